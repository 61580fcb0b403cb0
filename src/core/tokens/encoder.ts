/**
 * Raw cl100k_base token counts (js-tiktoken), each distinct content counted once.
 *
 * Imports the `lite` build plus only the cl100k ranks (the full entry point
 * bundles every encoding, ~4 MB more). The encoder is built lazily: building
 * the rank maps costs ~300 ms, paid on the first count, not at load.
 */
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { contentKey } from './hash';
import { LruMap } from './lru';

/**
 * Distinct texts remembered. A 300-call session has ~2,000 blocks; trimmed
 * variants and summaries add a few per block. 50,000 entries cover many such
 * sessions while bounding memory (key ≤ ~70 chars + a number: ≈ 10 MB worst case).
 */
export const DEFAULT_RAW_CACHE_ENTRIES = 50_000;

/**
 * js-tiktoken's byte-pair merge is quadratic in the length of one pre-token
 * piece: a 1,000-char run of letters takes ~75 ms, 4,000 base64 'A's ~1.1 s,
 * and 200 KB of one run would hang the host. Runs of one character class at
 * least this long are cut into RUN_CHUNK_CHARS pieces and encoded separately.
 * No cl100k token is longer than ~40 chars of such a run, so each cut changes
 * the count by at most one token.
 */
export const LONG_RUN_CHARS = 64;
/** Chunk size for long runs: 32 chars cost ≤ 1 ms even for 3-byte characters (box drawing). */
export const RUN_CHUNK_CHARS = 32;
const LONG_RUN = new RegExp(
  `\\p{L}{${LONG_RUN_CHARS},}|[^\\s\\p{L}\\p{N}]{${LONG_RUN_CHARS},}|\\s{${LONG_RUN_CHARS},}`,
  'gu',
);

let shared: Tiktoken | undefined;
function tiktoken(): Tiktoken {
  shared ??= new Tiktoken(cl100k);
  return shared;
}

/** Encode as plain text: special-token strings such as `<|endoftext|>` in content are ordinary text, never an error. */
function encodePlain(text: string): number {
  return text.length === 0 ? 0 : tiktoken().encode(text, [], []).length;
}

/** cl100k_base token count of `text`, uncached, safe on pathological input (see LONG_RUN_CHARS). */
export function cl100kCount(text: string): number {
  if (text.length < LONG_RUN_CHARS) return encodePlain(text);
  LONG_RUN.lastIndex = 0;
  let m = LONG_RUN.exec(text);
  if (m === null) return encodePlain(text);
  let total = 0;
  let start = 0;
  // Long runs are often one repeated character ('====', zero bytes in base64): count each distinct chunk once.
  const chunkCounts = new Map<string, number>();
  while (m !== null) {
    total += encodePlain(text.slice(start, m.index));
    const run = m[0];
    // Cut on code points so a surrogate pair is never split into two invalid halves.
    const chars = Array.from(run);
    for (let i = 0; i < chars.length; i += RUN_CHUNK_CHARS) {
      const chunk = chars.slice(i, i + RUN_CHUNK_CHARS).join('');
      let n = chunkCounts.get(chunk);
      if (n === undefined) chunkCounts.set(chunk, (n = encodePlain(chunk)));
      total += n;
    }
    start = m.index + run.length;
    m = LONG_RUN.exec(text);
  }
  return total + encodePlain(text.slice(start));
}

export interface RawCounterOptions {
  /** Maximum distinct texts remembered (LRU). */
  capacity?: number;
  /** The uncached counter; tests inject a spy. Default: cl100kCount. */
  encode?: (text: string) => number;
}

export interface RawCounterStats {
  hits: number;
  misses: number;
  size: number;
}

/** cl100k counts cached by content hash: per-turn work grows only with new content. */
export class RawCounter {
  private readonly cache: LruMap<string, number>;
  private readonly encode: (text: string) => number;
  private hits = 0;
  private misses = 0;

  constructor(opts: RawCounterOptions = {}) {
    this.cache = new LruMap(opts.capacity ?? DEFAULT_RAW_CACHE_ENTRIES);
    this.encode = opts.encode ?? cl100kCount;
  }

  count(text: string): number {
    if (text.length === 0) return 0;
    const key = contentKey(text);
    const hit = this.cache.get(key);
    if (hit !== undefined) {
      this.hits++;
      return hit;
    }
    this.misses++;
    const n = this.encode(text);
    this.cache.set(key, n);
    return n;
  }

  stats(): RawCounterStats {
    return { hits: this.hits, misses: this.misses, size: this.cache.size };
  }
}
