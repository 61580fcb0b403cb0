/**
 * Message digests for matching a proxied request to what a session already holds. A digest is of
 * the message's content identity, the one rule of cache/rules.ts (see cache/message-digest.ts):
 * the proxy, the fingerprints and the simulator agree on what "the same message" is.
 */
export { messageDigest } from '../cache/message-digest';

/** Length of the common prefix of two digest lists. */
export function commonPrefix(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}
