/**
 * cl100k tokens from characters, for texts too big to encode on a latency path
 * (js-tiktoken encodes ~1.2 MB/s; a 5,000-message session is ~8 MB). The ratio is
 * kept per content class and calibrated online by every exact encode of a text long
 * enough to say something, starting from priors measured on the shared Claude Code
 * transcripts (blocks ≥ 1,000 chars, chars per cl100k token, weighted by size):
 *
 *   text 3.73 · tool_use 3.73 · thinking 4.06 · tool_result 2.82 · code 2.93
 *
 * Per block the spread is wide (tool_result p10/p90 ≈ 2.1/5.2 chars per token), so a
 * single estimate is only a first pass: the counts it feeds are `provisional` and are
 * replaced by exact counts off the hot path (RawCounter.refine).
 */
import type { ContentClass } from './types';

/**
 * Measured priors (see above). `other` is mostly opaque data (redacted thinking, base64): cl100k ≈ 2.5
 * chars/token.
 */
export const PRIOR_CHARS_PER_TOKEN: Readonly<Record<ContentClass, number>> = {
  text: 3.73,
  tool_use: 3.73,
  tool_result: 2.82,
  thinking: 4.06,
  code: 2.93,
  other: 2.5,
};

/**
 * The prior counts as this many chars of observed text per class: a handful of file
 * reads (~5 × 4 KB) outweigh it, so a session's own content sets its ratio quickly.
 */
export const PRIOR_WEIGHT_CHARS = 20_000;
/** Texts shorter than this do not teach the ratio: their count is dominated by edge effects. */
export const RATIO_MIN_CHARS = 256;

const CLASSES: readonly ContentClass[] = ['text', 'tool_use', 'tool_result', 'thinking', 'code', 'other'];

export class CharRatios {
  private readonly chars = new Map<ContentClass, number>();
  private readonly tokens = new Map<ContentClass, number>();

  constructor() {
    for (const c of CLASSES) {
      this.chars.set(c, PRIOR_WEIGHT_CHARS);
      this.tokens.set(c, PRIOR_WEIGHT_CHARS / PRIOR_CHARS_PER_TOKEN[c]);
    }
  }

  /** Learn from one exact count (ignored for short texts, see RATIO_MIN_CHARS). */
  observe(cls: ContentClass, chars: number, tokens: number): void {
    if (chars < RATIO_MIN_CHARS || !(tokens > 0)) return;
    this.chars.set(cls, (this.chars.get(cls) ?? 0) + chars);
    this.tokens.set(cls, (this.tokens.get(cls) ?? 0) + tokens);
  }

  /** Current chars per cl100k token of a class. */
  charsPerToken(cls: ContentClass): number {
    return (
      (this.chars.get(cls) ?? PRIOR_WEIGHT_CHARS) /
      (this.tokens.get(cls) ?? PRIOR_WEIGHT_CHARS / PRIOR_CHARS_PER_TOKEN[cls])
    );
  }

  /** Estimated cl100k tokens of `chars` characters of class `cls` (≥ 1 for any non-empty text). */
  estimate(cls: ContentClass, chars: number): number {
    return chars <= 0 ? 0 : Math.max(1, Math.round(chars / this.charsPerToken(cls)));
  }
}
