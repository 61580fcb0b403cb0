/**
 * Message digests for matching a proxied request to what a session already holds.
 *
 * Clients move their `cache_control` markers from call to call (Claude Code puts one on the
 * last block of the last message), so a message is compared without them; everything else
 * must be byte-identical for the message to count as the same (a client that edits or
 * compacts its history starts a new epoch). A digest is the SHA-1 of the message's JSON with
 * cache_control removed: 20 bytes per message to keep, whatever the message's size.
 */
import { createHash } from 'node:crypto';
import type { MessageParam } from '../session/types';

/** JSON of a value with every `cache_control` key left out (at any depth: nested tool_result content too). */
function withoutCacheControlJson(v: unknown): string {
  return JSON.stringify(v, (key, value: unknown) => (key === 'cache_control' ? undefined : value));
}

export function messageDigest(m: MessageParam): string {
  return createHash('sha1').update(withoutCacheControlJson(m)).digest('base64');
}

/** Length of the common prefix of two digest lists. */
export function commonPrefix(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}
