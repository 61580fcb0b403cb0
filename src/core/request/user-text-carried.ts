/**
 * The user's words in every request the engine builds (DESIGN.md; issue "never lose what
 * the user said"): the validator is given the protected blocks of the history the request
 * covers (session/user-text.ts) and refuses a request that does not carry one of them
 * verbatim in a user message. Exempt are only the changes the user may make to their own
 * words: their own trims and prunes, and LLM compression they started (its summary says
 * so). This is decided from the log and the overlays, not from how the request was built,
 * so a strategy, a repair or the planner that loses user text is caught before anything
 * is sent (the proxy then forwards the client's own bytes; the agent stops and says so).
 */
import { blockIdentityJson } from '../cache/rules';
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
const memo = new WeakMap<Session, Map<string, { readonly revision: number; readonly required: readonly RequiredUserText[] }>>();

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
  for (const position of session.userText.positionsIn(from, upTo)) for (const r of requiredOf(session, position)) out.push(r);
  return out;
}

/**
 * The required blocks a request's user messages do not carry verbatim. Found by object (the
 * request reuses the log's block objects), else by content (a copy carrying a breakpoint, or
 * string content), so the check costs one set lookup per block in the common case.
 */
export function missingUserText(messages: readonly MessageParam[], required: readonly RequiredUserText[]): RequiredUserText[] {
  if (!required.length) return [];
  const objects = new Set<object>();
  const texts = new Set<string>();
  let json: Set<string> | undefined;
  const others: object[] = [];
  for (const m of messages) {
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') {
      texts.add(m.content);
      continue;
    }
    for (const b of m.content) {
      if (b.type === 'tool_result') continue;
      objects.add(b);
      if (b.type === 'text') texts.add(b.text);
      else others.push(b);
    }
  }
  const out: RequiredUserText[] = [];
  for (const r of required) {
    const p = r.param;
    if (objects.has(p) || (p.type === 'text' && texts.has(p.text))) continue;
    if (p.type !== 'text') {
      json ??= new Set(others.map((b) => blockIdentityJson(b)));
      if (json.has(blockIdentityJson(p))) continue;
    }
    out.push(r);
  }
  return out;
}
