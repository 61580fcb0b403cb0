/**
 * Token accounting. `TokenEstimator` (a TokenAccountant) counts content with
 * js-tiktoken cl100k_base, once per distinct content (sha1-keyed LRU + a
 * per-block-object cache), and converts to Claude tokens with a `Calibrator`
 * learned online from real usage deltas (observe / toJSON / fromJSON).
 *
 *   const est = new TokenEstimator({ model: 'claude-sonnet-4-5', state: saved });
 *   est.block(param)          // { tokens, quality: 'estimated' | 'calibrated' | 'exact' }
 *   est.messages(view)        // a whole request's messages, earlier-turn thinking rules applied
 *   const d = usageDelta(prevCall, call);   // undefined across a compaction
 *   if (d !== undefined) est.observe({ addedBlocks, addedMessages, removedBlocks, trueDelta: d });
 *   est.setExact(param, n)    // a count_tokens result
 *
 * On a latency path (the proxy) `defer` estimates big texts from their characters
 * (`provisional` counts, quality `estimated`); `refine(maxChars)` makes them exact
 * off the hot path and `refinements()` tells holders of counts to count again.
 *   save(est.toJSON());
 *
 * Measured on the Claude Code transcripts (test/bench/tokens.ts): raw cl100k
 * is −37% per call delta; the calibrated estimator ≈ 3.5% median abs error.
 */
export * from './types';
export { TokenEstimator, usageDelta, DEFAULT_EXACT_ENTRIES, type TokenEstimatorOptions } from './estimator';
export {
  Calibrator,
  CLAUDE_4_PRIOR,
  CLAUDE_4_7_PRIOR,
  DEFAULT_PRIORS,
  MIN_CALIBRATION_SAMPLES,
  OUTLIER_REL,
  type CalibrationParameters,
  type CalibrationPrior,
  type CalibrationState,
  type CalibratorOptions,
  type ObserveResult,
  type RejectReason,
  type UsageSample,
} from './calibrator';
export {
  RawCounter,
  cl100kCount,
  encoderReady,
  warmEncoder,
  DEFAULT_RAW_CACHE_ENTRIES,
  type DeferPolicy,
  type RawCounterOptions,
  type RawCounterStats,
  type RawEstimate,
} from './encoder';
export { CharRatios, PRIOR_CHARS_PER_TOKEN, PRIOR_WEIGHT_CHARS, RATIO_MIN_CHARS } from './char-ratio';
export { FeatureExtractor, Features, FEATURE_NAMES, RAW_CLASSES, looksLikeCode } from './features';
export { contentKey, rememberContentKey } from './hash';
export { imageTokens, imageTokensForSize, sniffDimensions, IMAGE_DEFAULT_TOKENS } from './media';
export { isHumanTurn, uncountedThinking } from './thinking';
