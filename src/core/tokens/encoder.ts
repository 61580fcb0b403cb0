/**
 * Raw cl100k_base token counts (js-tiktoken), each distinct content counted once.
 *
 * Imports the `lite` build plus only the cl100k ranks (the full entry point
 * bundles every encoding, ~4 MB more). The encoder is built lazily: building
 * the rank maps costs ~300 ms, paid on the first count, not at load.
 */
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { CharRatios } from './char-ratio';
import { contentKey } from './hash';
import { LruMap } from './lru';
import { codePointsEnd, longRuns, sliceEnd } from './text-runs';
import type { ContentClass } from './types';

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
let shared: Tiktoken | undefined;
function tiktoken(): Tiktoken {
  shared ??= new Tiktoken(cl100k);
  return shared;
}

/** Whether the encoder's rank maps are built (building them costs ~300 ms, see above). */
export function encoderReady(): boolean {
  return shared !== undefined;
}

/** Build the encoder now (a host calls this at startup, off any request path). */
export function warmEncoder(): void {
  tiktoken();
}

/** Encode as plain text: special-token strings such as `<|endoftext|>` in content are ordinary text, never an error. */
function encodePlain(text: string): number {
  return text.length === 0 ? 0 : tiktoken().encode(text, [], []).length;
}

/**
 * cl100k_base token count of `text`, uncached, safe on pathological input (see LONG_RUN_CHARS):
 * constant stack and linear time for any text (text-runs.ts), the same count as encoding it
 * whole except at the cuts of long runs.
 */
export function cl100kCount(text: string): number {
  if (text.length < LONG_RUN_CHARS) return encodePlain(text);
  let total = 0;
  let start = 0;
  // Long runs are often one repeated character ('====', zero bytes in base64): count each distinct chunk once.
  const chunkCounts = new Map<string, number>();
  for (const run of longRuns(text, LONG_RUN_CHARS)) {
    total += encodePlain(text.slice(start, run.start));
    // Cut on code points so a surrogate pair is never split into two invalid halves.
    for (let i = run.start; i < run.end;) {
      const next = codePointsEnd(text, i, run.end, RUN_CHUNK_CHARS);
      const chunk = text.slice(i, next);
      let n = chunkCounts.get(chunk);
      if (n === undefined) chunkCounts.set(chunk, (n = encodePlain(chunk)));
      total += n;
      i = next;
    }
    start = run.end;
  }
  return total + encodePlain(text.slice(start));
}

export interface RawCounterOptions {
  /** Maximum distinct texts remembered (LRU). */
  capacity?: number;
  /** The uncached counter; tests inject a spy. Default: cl100kCount. */
  encode?: (text: string) => number;
  /** Start deferring (see DeferPolicy); default: every count is exact. */
  defer?: DeferPolicy;
}

/**
 * Counting on a latency path (a proxy): which texts are estimated from their characters
 * instead of encoded, so that one call never encodes megabytes. Estimates are queued and
 * replaced by exact counts with `refine`, off the hot path.
 */
export interface DeferPolicy {
  /** Texts at least this long are always estimated on the hot path. */
  readonly minChars: number;
  /**
   * Shorter texts are encoded exactly until this many chars were encoded since `newBudget()`; then they are estimated
   * too.
   */
  readonly budgetChars: number;
}

export interface RawCounterStats {
  hits: number;
  misses: number;
  size: number;
  /** Texts counted from characters, waiting for their exact count. */
  pending: number;
  pendingChars: number;
}

/** A raw count and whether it is exact (an estimate from characters is not). */
export interface RawEstimate {
  readonly tokens: number;
  readonly exact: boolean;
}

interface Pending {
  readonly text: string;
  readonly cls: ContentClass;
  /** The estimate from characters. */
  readonly tokens: number;
  /** A text longer than one step is counted in slices: chars counted so far, and their tokens. */
  done: number;
  counted: number;
}

/** cl100k counts cached by content hash: per-turn work grows only with new content. */
export class RawCounter {
  /** Chars per token by class, calibrated by every exact encode (see char-ratio.ts). */
  readonly ratios = new CharRatios();
  /** When set, `quick` estimates big texts instead of encoding them. */
  defer: DeferPolicy | undefined;
  private readonly cache: LruMap<string, number>;
  private readonly encode: (text: string) => number;
  /** False while the default encoder is not built yet: a deferring counter then estimates everything. */
  private readonly ready: () => boolean;
  /** Estimated texts by content key, oldest first (Map order). */
  private readonly pending = new Map<string, Pending>();
  private pendingChars = 0;
  private spent = 0;
  private refined = 0;
  private hits = 0;
  private misses = 0;

  constructor(opts: RawCounterOptions = {}) {
    this.cache = new LruMap(opts.capacity ?? DEFAULT_RAW_CACHE_ENTRIES);
    this.encode = opts.encode ?? cl100kCount;
    this.ready = opts.encode ? () => true : encoderReady;
    this.defer = opts.defer;
  }

  /** Exact count (encodes on a miss; resolves a pending estimate of the same text). */
  count(text: string, cls: ContentClass = 'text'): number {
    if (text.length === 0) return 0;
    const key = contentKey(text);
    const hit = this.cache.get(key);
    if (hit !== undefined) {
      this.hits++;
      return hit;
    }
    return this.encodeMiss(text, cls, key);
  }

  /**
   * Exact when known or cheap, else (with a `defer` policy) an estimate from characters,
   * queued for `refine`. The same text gets the same estimate until it is refined.
   */
  quick(text: string, cls: ContentClass = 'text'): RawEstimate {
    if (!this.defer) return { tokens: this.count(text, cls), exact: true };
    if (text.length === 0) return { tokens: 0, exact: true };
    const key = contentKey(text);
    const hit = this.cache.get(key);
    if (hit !== undefined) {
      this.hits++;
      return { tokens: hit, exact: true };
    }
    const queued = this.pending.get(key);
    if (queued) return { tokens: queued.tokens, exact: false };
    if (text.length < this.defer.minChars && this.spent + text.length <= this.defer.budgetChars && this.ready()) {
      this.spent += text.length;
      return { tokens: this.encodeMiss(text, cls, key), exact: true };
    }
    const tokens = this.ratios.estimate(cls, text.length);
    this.pending.set(key, { text, cls, tokens, done: 0, counted: 0 });
    this.pendingChars += text.length;
    return { tokens, exact: false };
  }

  /** Start a new call's exact-encoding budget (DeferPolicy.budgetChars). */
  newBudget(): void {
    this.spent = 0;
  }

  /**
   * Replace estimates by exact counts, oldest first, encoding at most about `maxChars` chars
   * (at least one char): a text longer than that is counted in slices over several calls, each
   * ending where the slices' counts add up to the whole text's (text-runs.ts `sliceEnd`), so a
   * step stays small however big one text is. Returns the number of texts still pending.
   * A text whose encoding throws keeps its estimate (as if exact) and the error is rethrown.
   */
  refine(maxChars: number): number {
    const budget = Math.max(1, maxChars);
    let left = budget;
    for (const [key, p] of this.pending) {
      if (left <= 0) break;
      if (this.cache.get(key) !== undefined) {
        this.resolve(key);
        continue;
      }
      // A text longer than what is left of this step starts on a fresh step (fewer cuts).
      if (p.text.length - p.done > left && left < budget) break;
      try {
        if (p.done === 0 && p.text.length <= left) {
          this.encodeMiss(p.text, p.cls, key);
          left -= p.text.length;
        } else left -= this.refineSlice(key, p, left);
      } catch (e) {
        this.cache.set(key, p.tokens);
        this.resolve(key);
        throw e;
      }
    }
    return this.pending.size;
  }

  /** Count the next slice of a pending text (at most `maxChars`; the last one makes it exact); returns its length. */
  private refineSlice(key: string, p: Pending, maxChars: number): number {
    const from = p.done;
    const end = sliceEnd(p.text, from, from + maxChars);
    p.counted += this.encode(p.text.slice(from, end));
    p.done = end;
    if (end < p.text.length) return end - from;
    this.misses++;
    this.cache.set(key, p.counted);
    this.ratios.observe(p.cls, p.text.length, p.counted);
    this.resolve(key);
    return end - from;
  }

  /** Bumped whenever an estimate was replaced by an exact count: counts taken before may be stale. */
  get generation(): number {
    return this.refined;
  }

  stats(): RawCounterStats {
    return {
      hits: this.hits,
      misses: this.misses,
      size: this.cache.size,
      pending: this.pending.size,
      pendingChars: this.pendingChars,
    };
  }

  private encodeMiss(text: string, cls: ContentClass, key: string): number {
    this.misses++;
    const n = this.encode(text);
    this.cache.set(key, n);
    this.ratios.observe(cls, text.length, n);
    this.resolve(key);
    return n;
  }

  private resolve(key: string): void {
    const p = this.pending.get(key);
    if (!p) return;
    this.pending.delete(key);
    this.pendingChars -= p.text.length;
    this.refined++;
  }
}
