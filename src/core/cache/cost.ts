/**
 * THE pricer: USD of one call from its usage. Prices come from the model
 * catalog (src/core/models), overridable by settings; this file only does the
 * arithmetic (writes split by TTL, per-million scaling). Every other figure is
 * priced here: a rewrite quote (break-even.ts) is the difference of two
 * requests' input sides ({@link inputSidePrice}), the offenders' per-span dollars
 * are the input side of a span, the MCP switch price and the findings are quotes.
 */
import type { CacheTtl } from '../api/wire';
import { modelInfo, priceOf, type ModelPrice, type PriceOverrides } from '../models';

/** Prices are per million tokens. */
const PER_MILLION = 1_000_000;

/**
 * The catalog's multipliers on a base price of 1 per token: prices in base-input tokens (a token at
 * the model's plain input price costs 1), the unit of the engine's model-independent quotes.
 */
export const BASE_INPUT_PRICE: ModelPrice = priceOf(PER_MILLION, 0);

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
  /** The catalog row used; `unknown` when the fallback prices were used. */
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
  const { input, cacheWrite, cacheRead } = inputSideCost(usage, info.price, ttl);
  const output = (usage.output_tokens * info.price.output) / PER_MILLION;
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

/** Tokens of a request's input side (or of a span of it) by where they sit in the cache. */
export interface InputSide {
  /** Sent uncached (after the last breakpoint, or nothing cached). */
  readonly uncached?: number;
  /** Written to the cache at the request's TTL. */
  readonly written?: number;
  /** Read from the cache. */
  readonly read?: number;
}

/** USD (or the price's own unit) of an input side at a price: the same arithmetic as {@link inputSideCost}. */
export function inputSidePrice(side: InputSide, p: ModelPrice, ttl: CacheTtl = '5m'): number {
  const usage = {
    input_tokens: side.uncached ?? 0,
    cache_creation_input_tokens: side.written ?? 0,
    cache_read_input_tokens: side.read ?? 0,
  };
  const c = inputSideCost(usage, p, ttl);
  return c.input + c.cacheWrite + c.cacheRead;
}

/**
 * The input-side parts of {@link costOf} (USD) at a model's prices: for loops that price every call of a session at one
 * model.
 */
export function inputSideCost(
  usage: Omit<PricedUsage, 'output_tokens'>,
  p: ModelPrice,
  ttl: CacheTtl = '5m',
): { input: number; cacheWrite: number; cacheRead: number } {
  const writes = usage.cache_creation_input_tokens ?? 0;
  const split = usage.cache_creation;
  let w5 = ttl === '5m' ? writes : 0;
  let w1 = ttl === '1h' ? writes : 0;
  if (split && (split.ephemeral_5m_input_tokens !== undefined || split.ephemeral_1h_input_tokens !== undefined)) {
    w5 = split.ephemeral_5m_input_tokens ?? 0;
    w1 = split.ephemeral_1h_input_tokens ?? 0;
  }
  return {
    input: (usage.input_tokens * p.input) / PER_MILLION,
    cacheWrite: (w5 * p.cacheWrite5m + w1 * p.cacheWrite1h) / PER_MILLION,
    cacheRead: ((usage.cache_read_input_tokens ?? 0) * p.cacheRead) / PER_MILLION,
  };
}
