/**
 * Did the user's words reach the model? For a request built from log messages
 * [from, to), every protected block of those messages (session/user-text.ts: every
 * text block of a user message, and the first user message whole) must appear verbatim
 * in a user message of the request; a client context block (Cline's `<environment_details>`, its
 * task_progress block) only when no later block of the request restates it (the newest copy). Used by the bench, the property tests and the proxy
 * tests; independent of how the engine decided (it reads only the log and the body).
 */
import { blockIdentityJson } from '../api/cache-rules';
import { supersedesContext, type ClientContextKind } from '../session/client-text';
import { protectedReason, staleableContext } from '../session/user-text';
import type { ContentBlockParam, LogMessage, MessageParam } from '../session/types';

export interface UserTextCheck {
  /** Protected blocks of the history the request had to carry. */
  readonly needed: number;
  /** Those found verbatim. */
  readonly kept: number;
  /** The first few missing ones: message position and the text's start. */
  readonly missing: readonly { readonly position: number; readonly preview: string }[];
}

const MISSING_SHOWN = 5;
const PREVIEW_CHARS = 80;

function keyOf(b: ContentBlockParam | { type: string }): string {
  const x = b as ContentBlockParam;
  if (x.type === 'text') return `T${x.text}`;
  return `J${blockIdentityJson(x)}`;
}

/** `results`: key tool_result blocks too (only when a protected one is needed: they are the bulk of a request). */
function userBlocks(messages: readonly MessageParam[], results: boolean): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of messages) {
    if (m.role !== 'user') continue;
    const blocks = typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content;
    for (const b of blocks) {
      // Tool results are user text only when they carry the user's words (a Roo <feedback>).
      if (b.type === 'tool_result' && !results) continue;
      const k = keyOf(b);
      out.set(k, (out.get(k) ?? 0) + 1);
    }
  }
  return out;
}

/**
 * Check one request against the log it was built from. `firstUser(position)` says whether a
 * message opens the log or an epoch (default: the first user message of `log`, and compact
 * boundaries).
 */
export function checkUserText(
  log: readonly LogMessage[],
  from: number,
  to: number,
  messages: readonly MessageParam[],
): UserTextCheck {
  let firstUserPos = -1;
  for (let p = 0; p < log.length && firstUserPos < 0; p++) if (log[p].role === 'user') firstUserPos = p;
  let results = false;
  for (let p = from; p < to && !results; p++) {
    const m = log[p];
    results =
      m.role === 'user' && m.blocks.some((b) => b.kind === 'tool_result' && protectedReason(m, b, false) !== undefined);
  }
  const have = userBlocks(messages, results);
  // Client context blocks a later one of the request restates: stale, not needed (the newest copy is).
  const stale = new Set<string>();
  const later = new Set<ClientContextKind>();
  for (let p = to - 1; p >= from; p--) {
    const m = log[p];
    if (m.role !== 'user') continue;
    const first = p === firstUserPos || m.meta.compactBoundary === true;
    const own: ClientContextKind[] = [];
    for (const b of m.blocks) {
      const kind = staleableContext(b, protectedReason(m, b, first));
      if (!kind) continue;
      if ([...later].some((k) => supersedesContext(k, kind))) stale.add(b.id);
      own.push(kind);
    }
    for (const k of own) later.add(k);
  }
  let needed = 0;
  let kept = 0;
  const missing: { position: number; preview: string }[] = [];
  for (let p = from; p < to; p++) {
    const m = log[p];
    if (m.role !== 'user') continue;
    const first = p === firstUserPos || m.meta.compactBoundary === true;
    for (const b of m.blocks) {
      if (!protectedReason(m, b, first) || stale.has(b.id)) continue;
      needed++;
      const k = keyOf(b.param);
      const n = have.get(k) ?? 0;
      if (n > 0) {
        kept++;
        have.set(k, n - 1);
      } else if (missing.length < MISSING_SHOWN) {
        const text = b.param.type === 'text' ? b.param.text : `[${b.param.type}]`;
        missing.push({ position: p, preview: text.slice(0, PREVIEW_CHARS) });
      }
    }
  }
  return { needed, kept, missing };
}
