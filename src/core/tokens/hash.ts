/**
 * Cache keys for content. Measured on Node 20 (x64) for 20–200 KB strings:
 * node:crypto sha1 ≈ 700–1,300 chars/µs (native, after UTF-8 conversion),
 * a JS FNV-1a 64 (16-bit limbs) ≈ 350 chars/µs, FNV-1a 2×32 ≈ 450 chars/µs,
 * md5 ≈ 420 chars/µs. sha1 is the cheapest and collision-safe, so long
 * content is keyed by its sha1 digest; short content is its own key (no
 * hashing, no collisions, and a Map hashes short strings faster than sha1).
 * Either way hashing is < 1% of a cl100k encode of the same text.
 */
import { createHash } from 'node:crypto';

/** Below this many UTF-16 units the text itself is the key (a 28-char sha1 digest would save nothing). */
export const INLINE_KEY_MAX_CHARS = 64;

/** A compact key for `text`; equal texts give equal keys. */
export function contentKey(text: string): string {
  if (text.length <= INLINE_KEY_MAX_CHARS) return `=${text}`;
  // Length is part of the key: a cheap extra guard and handy when debugging.
  return `#${text.length}:${createHash('sha1').update(text).digest('base64')}`;
}
