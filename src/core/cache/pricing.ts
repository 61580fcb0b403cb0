/**
 * Model facts in one table: prices, context window, minimum cacheable prefix.
 * Source: shared/reference/anthropic-api.md ("Models and prices", "Prompt caching").
 * Rows the reference does not list are marked `assumed` with the reason.
 *
 * Model ids are matched by longest prefix on a canonical id, so dated and
 * provider-qualified ids find their family: `claude-sonnet-4-5-20250929` →
 * `claude-sonnet-4-5`, `claude-3-5-haiku-20241022` → `claude-haiku-3-5`,
 * `us.anthropic.claude-opus-4-6-v1:0` → `claude-opus-4-6`.
 */
import type { CacheTtl } from '../request/types';

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

export interface ModelInfo {
  /** The table key that matched. */
  readonly key: string;
  readonly price: ModelPrice;
  readonly contextWindow: number;
  /** Below this prefix length nothing is cached (and no error is raised). */
  readonly minCacheableTokens: number;
  /** Why some value of this row is a guess (not in the reference); undefined for reference rows. */
  readonly assumed?: string;
  /** The prices themselves are a guess (not in the reference, or a fallback). */
  readonly priceAssumed?: boolean;
}

/** Multipliers on base input price (reference: 5m write 1.25×, 1h write 2×, read 0.1×). */
export const CACHE_WRITE_5M_MULTIPLIER = 1.25;
export const CACHE_WRITE_1H_MULTIPLIER = 2;
export const CACHE_READ_MULTIPLIER = 0.1;
const PER_MILLION = 1_000_000;
const WINDOW_200K = 200_000;
const WINDOW_1M = 1_000_000;
/** Minimum cacheable prefixes named in the reference. */
const MIN_1K = 1024;
const MIN_2K = 2048;
const MIN_4K = 4096;
/**
 * Minimum for models the reference does not list: 1,024, the most common
 * floor (the same default as cache/simulator.ts, so planner and simulator agree).
 */
export const DEFAULT_MIN_CACHEABLE_TOKENS = MIN_1K;

function price(input: number, output: number): ModelPrice {
  return {
    input,
    output,
    cacheWrite5m: input * CACHE_WRITE_5M_MULTIPLIER,
    cacheWrite1h: input * CACHE_WRITE_1H_MULTIPLIER,
    cacheRead: input * CACHE_READ_MULTIPLIER,
  };
}

type Row = Omit<ModelInfo, 'key'>;
const NOT_IN_REFERENCE = 'not in the reference; public list price, verify';
const MIN_GUESS = 'minimum cacheable length not in the reference; default used';

/** Keys are canonical ids (`claude-<family>-<major>-<minor>`) or family fallbacks (`claude-<family>`). */
export const MODEL_TABLE: Readonly<Record<string, Row>> = {
  'claude-sonnet-4-6': { price: price(3, 15), contextWindow: WINDOW_1M, minCacheableTokens: MIN_1K },
  'claude-sonnet-4-5': { price: price(3, 15), contextWindow: WINDOW_200K, minCacheableTokens: MIN_1K },
  'claude-sonnet-4-0': { price: price(3, 15), contextWindow: WINDOW_200K, minCacheableTokens: MIN_1K, assumed: NOT_IN_REFERENCE, priceAssumed: true },
  'claude-opus-4-8': { price: price(5, 25), contextWindow: WINDOW_1M, minCacheableTokens: DEFAULT_MIN_CACHEABLE_TOKENS, assumed: MIN_GUESS },
  'claude-opus-4-7': { price: price(5, 25), contextWindow: WINDOW_1M, minCacheableTokens: MIN_2K },
  'claude-opus-4-6': { price: price(5, 25), contextWindow: WINDOW_1M, minCacheableTokens: MIN_4K },
  'claude-opus-4-5': { price: price(5, 25), contextWindow: WINDOW_200K, minCacheableTokens: MIN_4K, assumed: NOT_IN_REFERENCE, priceAssumed: true },
  'claude-opus-4-1': { price: price(15, 75), contextWindow: WINDOW_200K, minCacheableTokens: MIN_1K, assumed: NOT_IN_REFERENCE, priceAssumed: true },
  'claude-opus-4-0': { price: price(15, 75), contextWindow: WINDOW_200K, minCacheableTokens: MIN_1K, assumed: NOT_IN_REFERENCE, priceAssumed: true },
  'claude-haiku-4-5': { price: price(1, 5), contextWindow: WINDOW_200K, minCacheableTokens: MIN_4K },
  'claude-haiku-3-5': { price: price(0.8, 4), contextWindow: WINDOW_200K, minCacheableTokens: MIN_2K, assumed: NOT_IN_REFERENCE, priceAssumed: true },
  'claude-sonnet-5-0': { price: price(2, 10), contextWindow: WINDOW_1M, minCacheableTokens: DEFAULT_MIN_CACHEABLE_TOKENS, assumed: MIN_GUESS },
  'claude-opus-5-0': { price: price(5, 25), contextWindow: WINDOW_1M, minCacheableTokens: DEFAULT_MIN_CACHEABLE_TOKENS, assumed: MIN_GUESS },
  // Family fallbacks for versions newer than the table: the newest known row of the family.
  'claude-sonnet': { price: price(2, 10), contextWindow: WINDOW_1M, minCacheableTokens: DEFAULT_MIN_CACHEABLE_TOKENS, assumed: 'unknown sonnet version: newest sonnet row', priceAssumed: true },
  'claude-opus': { price: price(5, 25), contextWindow: WINDOW_1M, minCacheableTokens: DEFAULT_MIN_CACHEABLE_TOKENS, assumed: 'unknown opus version: newest opus row', priceAssumed: true },
  'claude-haiku': { price: price(1, 5), contextWindow: WINDOW_200K, minCacheableTokens: MIN_4K, assumed: 'unknown haiku version: newest haiku row', priceAssumed: true },
};

/**
 * Used when nothing matches (unknown families such as `claude-mythos-…`):
 * Opus prices, so an unknown model's cost is over- rather than under-reported.
 */
export const FALLBACK_MODEL: ModelInfo = {
  key: 'unknown',
  price: price(5, 25),
  contextWindow: WINDOW_200K,
  minCacheableTokens: DEFAULT_MIN_CACHEABLE_TOKENS,
  assumed: 'unknown model: Opus prices, 200k window',
  priceAssumed: true,
};

export interface ModelGeneration {
  readonly family: string;
  readonly major: number;
  readonly minor: number;
}

/** `claude-<family>-<major>[-<minor>]`, minor 1–2 digits (8 digits is a date). */
const NEW_STYLE = /claude-([a-z]+)-(\d+)(?:-(\d{1,2}))?(?=$|[-@:._])/;
/** `claude-<major>[-<minor>]-<family>` (Claude 3 naming). */
const OLD_STYLE = /claude-(\d+)(?:-(\d{1,2}))?-([a-z]+)(?=$|[-@:._])/;

/** Family and version of a model id, or undefined when the id has no version (e.g. `claude-mythos-preview`). */
export function modelGeneration(model: string): ModelGeneration | undefined {
  const id = model.toLowerCase();
  const n = NEW_STYLE.exec(id);
  if (n) return { family: n[1], major: Number(n[2]), minor: n[3] ? Number(n[3]) : 0 };
  const o = OLD_STYLE.exec(id);
  if (o) return { family: o[3], major: Number(o[1]), minor: o[2] ? Number(o[2]) : 0 };
  return undefined;
}

/** True when the model's version is at least major.minor. */
export function isAtLeast(gen: ModelGeneration, major: number, minor: number): boolean {
  return gen.major > major || (gen.major === major && gen.minor >= minor);
}

/** Claude 4.6 is the first generation without assistant prefill. */
const NO_PREFILL_SINCE = { major: 4, minor: 6 } as const;

/**
 * Whether the conversation must end with a user message (Claude 4.6 and later,
 * including the 5 family). Undefined when the id has no parsable version.
 */
export function prefillUnsupported(model: string): boolean | undefined {
  const g = modelGeneration(model);
  return g ? isAtLeast(g, NO_PREFILL_SINCE.major, NO_PREFILL_SINCE.minor) : undefined;
}

/** Canonical id used for table lookups: `claude-<family>-<major>-<minor>`, or the raw id without a version. */
export function canonicalModelId(model: string): string {
  const g = modelGeneration(model);
  if (g) return `claude-${g.family}-${g.major}-${g.minor}`;
  const id = model.toLowerCase();
  const at = id.indexOf('claude-');
  return at > 0 ? id.slice(at) : id;
}

/** Longest key that is `id` itself or a prefix of it ending at a `-` boundary. */
export function longestPrefixKey(id: string, keys: Iterable<string>): string | undefined {
  let best: string | undefined;
  for (const k of keys) {
    if ((id === k || id.startsWith(`${k}-`)) && (!best || k.length > best.length)) best = k;
  }
  return best;
}

/** Overrides keyed by model id or family prefix (settings); merged over the table row. */
export type PriceOverrides = Readonly<Record<string, Partial<ModelPrice>>>;

/** Everything we know about a model, with price overrides applied. */
export function modelInfo(model: string, overrides?: PriceOverrides): ModelInfo {
  const id = canonicalModelId(model);
  const key = longestPrefixKey(id, Object.keys(MODEL_TABLE));
  const base: ModelInfo = key ? { key, ...MODEL_TABLE[key] } : FALLBACK_MODEL;
  if (!overrides) return base;
  const okey = longestPrefixKey(id, Object.keys(overrides)) ?? longestPrefixKey(model, Object.keys(overrides));
  if (!okey) return base;
  return { ...base, price: { ...base.price, ...overrides[okey] }, priceAssumed: false };
}

export function minCacheableTokens(model: string): number {
  return modelInfo(model).minCacheableTokens;
}

export function contextWindow(model: string): number {
  return modelInfo(model).contextWindow;
}

/** Usage fields that decide cost (the SDK's Usage fits). */
export interface PricedUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  /** Per-TTL split of cache writes, when the API reports it. */
  cache_creation?: { ephemeral_5m_input_tokens?: number; ephemeral_1h_input_tokens?: number } | null;
}

export interface Cost {
  readonly input: number;
  readonly output: number;
  readonly cacheWrite: number;
  readonly cacheRead: number;
  /** USD. */
  readonly total: number;
  /** The table row used; `unknown` when the fallback prices were used. */
  readonly modelKey: string;
  /** False when the prices are a guess or the fallback (show the cost as approximate). */
  readonly exactPrices: boolean;
}

/**
 * Cost in USD of one call. Cache writes are split by TTL when usage reports
 * the split (`cache_creation`), otherwise all writes are priced at `ttl`.
 */
export function costOf(usage: PricedUsage, model: string, ttl: CacheTtl = '5m', overrides?: PriceOverrides): Cost {
  const info = modelInfo(model, overrides);
  const p = info.price;
  const writes = usage.cache_creation_input_tokens ?? 0;
  const split = usage.cache_creation;
  let w5 = ttl === '5m' ? writes : 0;
  let w1 = ttl === '1h' ? writes : 0;
  if (split && (split.ephemeral_5m_input_tokens !== undefined || split.ephemeral_1h_input_tokens !== undefined)) {
    w5 = split.ephemeral_5m_input_tokens ?? 0;
    w1 = split.ephemeral_1h_input_tokens ?? 0;
  }
  const input = (usage.input_tokens * p.input) / PER_MILLION;
  const output = (usage.output_tokens * p.output) / PER_MILLION;
  const cacheWrite = (w5 * p.cacheWrite5m + w1 * p.cacheWrite1h) / PER_MILLION;
  const cacheRead = ((usage.cache_read_input_tokens ?? 0) * p.cacheRead) / PER_MILLION;
  return {
    input,
    output,
    cacheWrite,
    cacheRead,
    total: input + output + cacheWrite + cacheRead,
    modelKey: info.key,
    exactPrices: !info.priceAssumed,
  };
}
