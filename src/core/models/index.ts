/**
 * The one model catalog: id normalization, generations, prices, context
 * windows, cache minimums, prefill/thinking/tokenizer rules. Nothing else in
 * src/ knows a model; cost arithmetic (cache/cost.ts) and token accounting
 * (tokens/) ask here.
 *
 *   const m = modelInfo('claude-opus-4-6[1m]');
 *   m.id            // 'claude-opus-4-6'
 *   m.contextWindow // 1_000_000
 *   m.match         // 'exact' | 'family' | 'unknown' (with m.assumed saying why)
 */
export {
  DEFAULT_MODEL_KEY,
  canonicalModelId,
  generationId,
  isAtLeast,
  modelGeneration,
  modelKey,
  normalizeModelId,
  type ModelGeneration,
} from './ids';
export { keepsPriorThinking, prefillUnsupported, tokenizerGeneration, type TokenizerGeneration } from './behavior';
export {
  CACHE_READ_MULTIPLIER,
  CACHE_WRITE_1H_MULTIPLIER,
  CACHE_WRITE_5M_MULTIPLIER,
  DEFAULT_MIN_CACHEABLE_TOKENS,
  FALLBACK_ROW,
  MODEL_TABLE,
  WINDOW_1M,
  WINDOW_200K,
  priceOf,
  type ModelPrice,
  type ModelRow,
} from './table';
export {
  contextWindow,
  familyRow,
  longestPrefixKey,
  minCacheableTokens,
  modelInfo,
  modelPrice,
  overriddenPrice,
  priceOverride,
  suffixContextWindow,
  type ModelInfo,
  type ModelMatch,
  type PriceOverrides,
} from './catalog';
