/**
 * Message digests for matching a proxied request to what a session already holds.
 *
 * Clients move their `cache_control` markers from call to call (Claude Code puts one on the
 * last block of the last message), so a message is compared without them; everything else
 * must be byte-identical for the message to count as the same (a client that edits or
 * compacts its history starts a new epoch). A digest is the SHA-1 of the message's JSON with
 * cache_control removed: 20 bytes per message to keep, whatever the message's size.
 *
 * The digest is of the message's canonical form, `{role, content: blocks}`: `content: "hi"`
 * digests as `[{type: 'text', text: 'hi'}]`, which is how the session (and so its journal)
 * keeps it. A session restored from its journal after a restart then matches the client's
 * next request whatever form the client sends its content in.
 */
import { createHash } from 'node:crypto';
import { normalizeContent } from './log';
import type { MessageParam } from './types';

/** JSON of a value with every `cache_control` key left out (at any depth: nested tool_result content too). */
function withoutCacheControlJson(v: unknown): string {
  return JSON.stringify(v, (key, value: unknown) => (key === 'cache_control' ? undefined : value));
}

/** Whether a message carries a `cache_control` key where clients put them: on a block or a part of a tool_result. */
function hasCacheControl(m: MessageParam): boolean {
  if (typeof m.content === 'string') return false;
  for (const b of m.content) {
    if ('cache_control' in b) return true;
    if (b.type === 'tool_result' && Array.isArray(b.content)) for (const part of b.content) if ('cache_control' in part) return true;
  }
  return false;
}

/**
 * SHA-1 of the message's JSON without cache_control. Most messages carry none: their plain
 * JSON is the same string, and JSON.stringify without a replacer is several times faster
 * (the proxy digests every message of every request). Anything with a marker elsewhere
 * (the key at another depth) is still caught by the replacer, only on the slower path.
 */
export function messageDigest(m: MessageParam): string {
  const canonical = { role: m.role, content: typeof m.content === 'string' ? normalizeContent(m.content) : m.content } as MessageParam;
  const plain = hasCacheControl(canonical) ? undefined : JSON.stringify(canonical);
  const json = plain !== undefined && !plain.includes('"cache_control"') ? plain : withoutCacheControlJson(canonical);
  return createHash('sha1').update(json).digest('base64');
}

/** Length of the common prefix of two digest lists. */
export function commonPrefix(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}
