/**
 * The user's words in every request the engine builds (docs/ARCHITECTURE.md; issue "never lose what
 * the user said"): the validator is given the protected blocks of the history the request
 * covers (session/user-text.ts) and refuses a request that does not carry one of them
 * verbatim in a user message. Exempt are only the changes the user may make to their own
 * words: their own trims and prunes, and LLM compression they started (its summary says
 * so). This is decided from the log and the overlays, not from how the request was built,
 * so a strategy, a repair or the planner that loses user text is caught before anything
 * is sent (the proxy then forwards the client's own bytes; the agent stops and says so).
 */
import { blockIdentityJson } from '../api/cache-rules';
import type { Session } from '../session/session';
import type { ContentBlockParam, MessageParam } from '../session/types';
import { mayChangeUserText } from '../session/user-text';

/** Block types a user message carries (the API refuses the others there). */
const CARRIED_KINDS: ReadonlySet<string> = new Set(['text', 'image', 'document']);

/** A protected block a request must carry, and the log position of its message. */
export interface RequiredUserText {
  readonly position: number;
  readonly param: ContentBlockParam;
}

/** Per session and message: its required blocks at a revision (overlay changes bump the revision). */
const memo = new WeakMap<
  Session,
  Map<string, { readonly revision: number; readonly required: readonly RequiredUserText[] }>
>();

/** The required blocks of the message at `position` (see {@link userTextRequired}). */
function requiredOf(session: Session, position: number): readonly RequiredUserText[] {
  const m = session.messages[position];
  let bySession = memo.get(session);
  if (!bySession) memo.set(session, (bySession = new Map()));
  const revision = session.revision(m.id);
  const hit = bySession.get(m.id);
  if (hit && hit.revision === revision) return hit.required;
  const required: RequiredUserText[] = [];
  for (const b of m.blocks) {
    // Blocks a user message cannot carry (a misplaced tool_use, thinking) are dropped by repair, not lost.
    if (!session.userText.reasonOf(b.id) || !CARRIED_KINDS.has(b.param.type)) continue;
    // The user's own change (a trim, a prune, compression they started) may rewrite their words.
    if (session.overlaysOnBlock(b.id).some((o) => o.kind !== 'pin' && mayChangeUserText(o.author))) continue;
    required.push({ position, param: b.param });
  }
  bySession.set(m.id, { revision, required });
  return required;
}

/**
 * The protected blocks of log messages [from, upTo) that must reach the model verbatim. Each
 * message's part is remembered at its revision, so a build re-derives only messages whose
 * overlays changed.
 */
export function userTextRequired(session: Session, from: number, upTo: number): RequiredUserText[] {
  const out: RequiredUserText[] = [];
  for (const position of session.userText.positionsIn(from, upTo))
    for (const r of requiredOf(session, position)) out.push(r);
  return out;
}

/**
 * The required blocks a request's user messages do not carry verbatim. Found by object (the
 * request reuses the log's block objects), else by content (a copy carrying a breakpoint, or
 * string content), so the check costs one lookup per block in the common case.
 */
export function missingUserText(
  messages: readonly MessageParam[],
  required: readonly RequiredUserText[],
): RequiredUserText[] {
  if (!required.length) return [];
  const at = carriedAt(messages, required);
  return required.filter((r) => !at.has(r.param));
}

/**
 * Where the required blocks are carried: for each one some user message among messages
 * [from, end) carries, that message's index (absent: none of them does). The one rule of
 * {@link missingUserText}: the same block object, else the same text (or string content),
 * else a block with the same identity JSON. The stream validator keeps these indexes, so a
 * block carried by a message a request sends again unchanged is not looked for again.
 */
export function carriedAt(
  messages: readonly MessageParam[],
  required: readonly RequiredUserText[],
  from = 0,
): Map<object, number> {
  const at = new Map<object, number>();
  if (!required.length) return at;
  const objects = new Map<object, number>();
  const texts = new Map<string, number>();
  const others: { readonly block: ContentBlockParam; readonly index: number }[] = [];
  for (let i = from; i < messages.length; i++) {
    const m = messages[i];
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') {
      if (!texts.has(m.content)) texts.set(m.content, i);
      continue;
    }
    for (const b of m.content) {
      if (b.type === 'tool_result') continue;
      if (!objects.has(b)) objects.set(b, i);
      if (b.type === 'text') {
        if (!texts.has(b.text)) texts.set(b.text, i);
      } else others.push({ block: b, index: i });
    }
  }
  let json: Map<string, number> | undefined;
  for (const r of required) {
    const p = r.param;
    let i = objects.get(p) ?? (p.type === 'text' ? texts.get(p.text) : undefined);
    if (i === undefined && p.type !== 'text') {
      if (!json) {
        json = new Map();
        for (const o of others) {
          const k = blockIdentityJson(o.block);
          if (!json.has(k)) json.set(k, o.index);
        }
      }
      i = json.get(blockIdentityJson(p));
    }
    if (i !== undefined) at.set(p, i);
  }
  return at;
}
