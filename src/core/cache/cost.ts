/**
 * Cost model: USD of one call from its usage. Prices come from the model
 * catalog (src/core/models), overridable by settings; this file only does the
 * arithmetic (writes split by TTL, per-million scaling).
 */
import type { CacheTtl } from '../api/wire';
import { modelInfo, type ModelPrice, type PriceOverrides } from '../models';

/** Prices are per million tokens. */
const PER_MILLION = 1_000_000;

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

/** The input-side parts of {@link costOf} (USD) at a model's prices: for loops that price every call of a session at one model. */
export function inputSideCost(usage: Omit<PricedUsage, 'output_tokens'>, p: ModelPrice, ttl: CacheTtl = '5m'): { input: number; cacheWrite: number; cacheRead: number } {
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
