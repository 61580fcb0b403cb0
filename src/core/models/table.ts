/**
 * The one table of model facts: prices, context window, minimum cacheable
 * prefix. Source: docs/anthropic-api.md ("Models and prices",
 * "Prompt caching"). A value the reference does not give is marked in
 * `assumed` with the reason; a guessed price also sets `priceAssumed`.
 * Keys are canonical ids (see ids.ts).
 */
import { CACHE_READ_MULTIPLIER, CACHE_WRITE_1H_MULTIPLIER, CACHE_WRITE_5M_MULTIPLIER } from '../api/cache-rules';

/** USD per million tokens. */
export interface ModelPrice {
  readonly input: number;
  readonly output: number;
  /** 5-minute cache write (1.25× input). */
  readonly cacheWrite5m: number;
  /** 1-hour cache write (2× input). */
  readonly cacheWrite1h: number;
  /** Cache read (0.1× input). */
  readonly cacheRead: number;
}

/** One row of the table. */
export interface ModelRow {
  readonly price: ModelPrice;
  readonly contextWindow: number;
  /** Below this prefix length nothing is cached (and no error is raised). */
  readonly minCacheableTokens: number;
  /** Why some value of this row is a guess (not in the reference); undefined for reference rows. */
  readonly assumed?: string;
  /** The prices themselves are a guess (not in the reference). */
  readonly priceAssumed?: boolean;
}

/** Re-exported for the catalog's users; the rule itself lives in cache/rules.ts. */
export { CACHE_READ_MULTIPLIER, CACHE_WRITE_1H_MULTIPLIER, CACHE_WRITE_5M_MULTIPLIER };

export const WINDOW_200K = 200_000;
export const WINDOW_1M = 1_000_000;
/** Minimum cacheable prefixes named in the reference. */
const MIN_1K = 1024;
const MIN_2K = 2048;
const MIN_4K = 4096;
/**
 * Minimum for ids the table cannot place at all: 1,024, the most common floor
 * (too low only wastes a breakpoint; too high would skip a cacheable prefix).
 */
export const DEFAULT_MIN_CACHEABLE_TOKENS = MIN_1K;

/** A price row from the base input/output prices; cache prices follow the multipliers. */
export function priceOf(input: number, output: number): ModelPrice {
  return {
    input,
    output,
    cacheWrite5m: input * CACHE_WRITE_5M_MULTIPLIER,
    cacheWrite1h: input * CACHE_WRITE_1H_MULTIPLIER,
    cacheRead: input * CACHE_READ_MULTIPLIER,
  };
}

const LIST_PRICE = 'price not in the reference: public list price, verify';
const SONNET_MIN = 'minimum cacheable length not in the reference: 1,024 like every Sonnet 4.x';
/**
 * Minimums checked against current public docs (prompt caching page, "What's new in Claude Opus 4.8": "a lower
 * 1,024-token minimum cacheable prompt length" than Opus 4.7): 4,096 for Opus 4.5/4.6/4.7 and Haiku 4.5; 1,024 for
 * Sonnet 4.5/4.6, Opus 4/4.1 and Opus 4.8. One third-party article still says 2,048 for Opus 4.7 (an older copy).
 */
const OPUS_5_MIN =
  'minimum cacheable length not in the reference: 2,048 kept (third-party migration notes say 512 for Opus 5; ' +
  'unverified)';

export const MODEL_TABLE: Readonly<Record<string, ModelRow>> = {
  'claude-sonnet-5': {
    price: priceOf(2, 10),
    contextWindow: WINDOW_1M,
    minCacheableTokens: MIN_1K,
    assumed: SONNET_MIN,
  },
  'claude-sonnet-4-6': { price: priceOf(3, 15), contextWindow: WINDOW_1M, minCacheableTokens: MIN_1K },
  'claude-sonnet-4-5': { price: priceOf(3, 15), contextWindow: WINDOW_200K, minCacheableTokens: MIN_1K },
  'claude-sonnet-4': {
    price: priceOf(3, 15),
    contextWindow: WINDOW_200K,
    minCacheableTokens: MIN_1K,
    assumed: LIST_PRICE,
    priceAssumed: true,
  },
  'claude-sonnet-3-7': {
    price: priceOf(3, 15),
    contextWindow: WINDOW_200K,
    minCacheableTokens: MIN_1K,
    assumed: `${LIST_PRICE}; minimum as Sonnet 4.x`,
    priceAssumed: true,
  },
  'claude-opus-5': { price: priceOf(5, 25), contextWindow: WINDOW_1M, minCacheableTokens: MIN_2K, assumed: OPUS_5_MIN },
  'claude-opus-4-8': { price: priceOf(5, 25), contextWindow: WINDOW_1M, minCacheableTokens: MIN_1K },
  'claude-opus-4-7': { price: priceOf(5, 25), contextWindow: WINDOW_1M, minCacheableTokens: MIN_4K },
  'claude-opus-4-6': { price: priceOf(5, 25), contextWindow: WINDOW_1M, minCacheableTokens: MIN_4K },
  'claude-opus-4-5': {
    price: priceOf(5, 25),
    contextWindow: WINDOW_200K,
    minCacheableTokens: MIN_4K,
    assumed: LIST_PRICE,
    priceAssumed: true,
  },
  'claude-opus-4-1': {
    price: priceOf(15, 75),
    contextWindow: WINDOW_200K,
    minCacheableTokens: MIN_1K,
    assumed: LIST_PRICE,
    priceAssumed: true,
  },
  'claude-opus-4': {
    price: priceOf(15, 75),
    contextWindow: WINDOW_200K,
    minCacheableTokens: MIN_1K,
    assumed: LIST_PRICE,
    priceAssumed: true,
  },
  'claude-haiku-4-5': { price: priceOf(1, 5), contextWindow: WINDOW_200K, minCacheableTokens: MIN_4K },
  'claude-haiku-3-5': {
    price: priceOf(0.8, 4),
    contextWindow: WINDOW_200K,
    minCacheableTokens: MIN_2K,
    assumed: LIST_PRICE,
    priceAssumed: true,
  },
};

/**
 * Facts for ids of no known family (`claude-mythos-preview`): Opus prices, so
 * an unknown model's cost is over- rather than under-reported; the smallest
 * window of the table, so context pressure is warned about early.
 */
export const FALLBACK_ROW: ModelRow = {
  price: priceOf(5, 25),
  contextWindow: WINDOW_200K,
  minCacheableTokens: DEFAULT_MIN_CACHEABLE_TOKENS,
  assumed: 'unknown model: Opus prices, 200k window, 1,024-token cache minimum',
  priceAssumed: true,
};
