/**
 * Where a request's messages first differ from the last request's: the end of the cached prefix it
 * can read at the latest. By object first (unchanged messages are the same objects), then block by
 * block, then by JSON for small blocks a repair rebuilt.
 */
import type { ContentBlockParam, MessageParam } from '../session/types';

/** Blocks that differ by object are compared as JSON only up to this size (else: counted as changed). */
const SAME_BLOCK_JSON_LIMIT = 64 * 1024;

/**
 * Index of the first message of `cur` that differs from `prev` (by object, then block by block,
 * then by JSON for small messages a repair rebuilt): where the previous cached prefix breaks.
 */
export function firstChangedMessage(prev: readonly MessageParam[], cur: readonly MessageParam[]): number {
  const n = Math.min(prev.length, cur.length);
  for (let i = 0; i < n; i++) {
    const a = prev[i];
    const b = cur[i];
    if (a === b) continue;
    if (a.role !== b.role) return i;
    const ac = a.content;
    const bc = b.content;
    if (typeof ac === 'string' || typeof bc === 'string') {
      if (ac !== bc) return i;
      continue;
    }
    if (ac.length !== bc.length) return i;
    for (let k = 0; k < ac.length; k++) {
      if (ac[k] === bc[k]) continue;
      // Another type or another length of text is other bytes: no JSON needed to tell.
      if (ac[k].type !== bc[k].type || textLength(ac[k]) !== textLength(bc[k])) return i;
      const ja = smallJson(ac[k]);
      if (ja === undefined || ja !== smallJson(bc[k])) return i;
    }
  }
  return n;
}

/** Characters of a block's text (text, thinking, a tool result's text). */
function textLength(b: ContentBlockParam): number {
  if (b.type === 'text') return b.text.length;
  if (b.type === 'thinking') return b.thinking.length;
  if (b.type !== 'tool_result') return 0;
  return typeof b.content === 'string'
    ? b.content.length
    : (b.content ?? []).reduce((a, c) => a + (c.type === 'text' ? c.text.length : 0), 0);
}

/**
 * A block's JSON when it is at most {@link SAME_BLOCK_JSON_LIMIT} long; a block whose text alone is longer is not
 * serialized.
 */
function smallJson(b: ContentBlockParam): string | undefined {
  if (textLength(b) > SAME_BLOCK_JSON_LIMIT) return undefined;
  const json = JSON.stringify(b);
  return json.length > SAME_BLOCK_JSON_LIMIT ? undefined : json;
}
