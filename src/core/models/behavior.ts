/**
 * Behavior that changes with a model's generation: prefill, thinking retention,
 * tokenizer. Each rule is a threshold on the version, so it also answers for
 * versions newer than the catalog; ids without a version get the documented
 * fallback of each rule.
 */
import { isAtLeast, modelGeneration, type ModelGeneration } from './ids';

/** Tokenizer a model counts with; calibration is pooled per generation. */
export type TokenizerGeneration = 'claude-4' | 'claude-4.7';

/** Reference: "Claude 4.6 and later: the conversation must end with a user message". */
const NO_PREFILL_SINCE = { major: 4, minor: 6 } as const;
/** Reference: "Opus 4.7+ uses a new tokenizer producing ~30% more tokens". */
const NEW_TOKENIZER_OPUS_SINCE = { major: 4, minor: 7 } as const;
/**
 * From this major version on every family is assumed to have the newer
 * behavior (new tokenizer, thinking kept): the 5 family followed Opus 4.7.
 */
const ALL_FAMILIES_NEW_SINCE_MAJOR = 5;
/** Thinking of earlier turns is kept (and billed) from Opus 4.5 (Anthropic docs; measured on transcripts). */
const OPUS_KEEPS_THINKING_SINCE = { major: 4, minor: 5 } as const;
/** Assumed for Sonnet from 4.6 on (Sonnet 4.5 measured to drop it). */
const SONNET_KEEPS_THINKING_SINCE = { major: 4, minor: 6 } as const;

function generationOf(model: string | undefined): ModelGeneration | undefined {
  return model ? modelGeneration(model) : undefined;
}

/**
 * Whether the conversation must end with a user message (Claude 4.6 and later,
 * including the 5 family). Undefined when the id has no parsable version: the
 * caller decides (the request builder then plays safe and ends with a user message).
 */
export function prefillUnsupported(model: string | undefined): boolean | undefined {
  const g = generationOf(model);
  return g ? isAtLeast(g, NO_PREFILL_SINCE.major, NO_PREFILL_SINCE.minor) : undefined;
}

/**
 * Tokenizer generation. The reference says Opus 4.7+ uses a new tokenizer
 * (~30% more tokens); we assume every model from major version 5 on shares it.
 * Unknown ids fall back to the measured generation (`claude-4`); calibration
 * corrects either way within a few calls.
 */
export function tokenizerGeneration(model: string | undefined): TokenizerGeneration {
  const g = generationOf(model);
  if (!g) return 'claude-4';
  if (g.major >= ALL_FAMILIES_NEW_SINCE_MAJOR) return 'claude-4.7';
  if (g.family === 'opus' && isAtLeast(g, NEW_TOKENIZER_OPUS_SINCE.major, NEW_TOKENIZER_OPUS_SINCE.minor))
    return 'claude-4.7';
  return 'claude-4';
}

/**
 * Does the API keep counting thinking blocks of earlier turns? Measured on the
 * transcripts (test/bench/tokens.ts): claude-sonnet-4-5 drops all thinking of
 * earlier assistant turns when a new human turn starts (the total input even
 * shrinks), claude-opus-4-5 keeps it. Per Anthropic's docs preservation is the
 * default from Opus 4.5 on; we assume the same for Sonnet ≥ 4.6 and major ≥ 5.
 * Haiku and unknown ids: dropped (the behavior measured on the older models).
 */
export function keepsPriorThinking(model: string | undefined): boolean {
  const g = generationOf(model);
  if (!g) return false;
  if (g.major >= ALL_FAMILIES_NEW_SINCE_MAJOR) return true;
  if (g.family === 'opus') return isAtLeast(g, OPUS_KEEPS_THINKING_SINCE.major, OPUS_KEEPS_THINKING_SINCE.minor);
  if (g.family === 'sonnet') return isAtLeast(g, SONNET_KEEPS_THINKING_SINCE.major, SONNET_KEEPS_THINKING_SINCE.minor);
  return false;
}
