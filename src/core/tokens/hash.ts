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

/** Texts at least this long may have their key made elsewhere (a worker thread: `rememberContentKey`). */
export const KNOWN_KEY_MIN_CHARS = 64 * 1024;
/** Keys made elsewhere, by their text (a Map hashes a long string by its length: a look-up is O(1) for the same text). */
const knownKeys = new Map<string, string>();
/** Characters of the texts `knownKeys` holds on to (oldest dropped beyond KNOWN_KEYS_MAX_CHARS). */
let knownChars = 0;
const KNOWN_KEYS_MAX_CHARS = 64 * 1024 * 1024;

/**
 * The key of a huge text, made off the event loop (the proxy's worker hashes a 20 MB tool result): the next
 * `contentKey` of that text takes it instead of hashing it again on the event loop.
 */
export function rememberContentKey(text: string, key: string): void {
  if (text.length < KNOWN_KEY_MIN_CHARS || knownKeys.has(text)) return;
  knownKeys.set(text, key);
  knownChars += text.length;
  for (const old of knownKeys.keys()) {
    if (knownChars <= KNOWN_KEYS_MAX_CHARS || old === text) break;
    knownKeys.delete(old);
    knownChars -= old.length;
  }
}

/** A compact key for `text`; equal texts give equal keys. */
export function contentKey(text: string): string {
  if (text.length <= INLINE_KEY_MAX_CHARS) return `=${text}`;
  const known = text.length >= KNOWN_KEY_MIN_CHARS ? knownKeys.get(text) : undefined;
  if (known !== undefined) return known;
  // Length is part of the key: a cheap extra guard and handy when debugging.
  return `#${text.length}:${createHash('sha1').update(text).digest('base64')}`;
}
