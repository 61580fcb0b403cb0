/**
 * The replay engine's token accounting on the report path, without a
 * tokenizer (js-tiktoken encodes ~1.2 MB/s; a report reads hundreds of MB).
 *
 * - A block of the log is as big as the fit says (sizing.ts reads every
 *   block's size off the recorded usage: exact for what each call added).
 * - Anything else the strategy sends (a trimmed placeholder, a summary, a
 *   shortened tool result) is estimated from its characters at the session's
 *   own chars-per-token ratio for its class, measured on the blocks the fit
 *   sized (blocks of at least {@link RATIO_MIN_CHARS} characters, starting
 *   from {@link CHARS_PER_TOKEN} with the weight of {@link PRIOR_WEIGHT_CHARS}).
 *
 * So the strategy decides on the sizes the bill model then prices, and no
 * text is ever encoded. Calibration from usage is not needed (the sizes come
 * from the usage already): `observe` learns nothing.
 */
import type { ContentBlockParam, ImportedSession } from '../session/types';
import { TokenEstimator } from '../tokens';
import type { ObserveResult } from '../tokens/calibrator';
import type { ContentClass, TokenCount, TokenQuality } from '../tokens/types';
import type { BillMessage } from './bill-model';
import { blockChars, CHARS_PER_TOKEN } from './sizing';

/** Blocks shorter than this do not teach the ratio (edge effects dominate their size). */
export const RATIO_MIN_CHARS = 256;
/** The starting ratio counts as this many characters of observed text per class. */
export const PRIOR_WEIGHT_CHARS = 20_000;

/** The content class of a block, for its chars-per-token ratio. */
export function classOf(p: ContentBlockParam): ContentClass {
  switch (p.type) {
    case 'text':
      return 'text';
    case 'tool_use':
      return 'tool_use';
    case 'tool_result':
      return 'tool_result';
    case 'thinking':
    case 'redacted_thinking':
      return 'thinking';
    default:
      return 'other';
  }
}

/** Characters per (Claude) token by class, learned from blocks of known size. */
export class SessionCharRatios {
  private readonly chars = new Map<ContentClass, number>();
  private readonly tokens = new Map<ContentClass, number>();

  observe(cls: ContentClass, chars: number, tokens: number): void {
    if (chars < RATIO_MIN_CHARS || !(tokens > 0)) return;
    this.chars.set(cls, (this.chars.get(cls) ?? 0) + chars);
    this.tokens.set(cls, (this.tokens.get(cls) ?? 0) + tokens);
  }

  charsPerToken(cls: ContentClass): number {
    return (
      (PRIOR_WEIGHT_CHARS + (this.chars.get(cls) ?? 0)) /
      (PRIOR_WEIGHT_CHARS / CHARS_PER_TOKEN + (this.tokens.get(cls) ?? 0))
    );
  }

  /** Tokens of `chars` characters of a class (≥ 1 for any non-empty content). */
  estimate(cls: ContentClass, chars: number): number {
    return chars <= 0 ? 0 : Math.max(1, Math.round(chars / this.charsPerToken(cls)));
  }
}

/** Token accounting for the replay engine: log blocks at their fitted sizes, the rest from characters. */
export class UsageSizedTokens extends TokenEstimator {
  private readonly known = new WeakMap<object, number>();
  private readonly memo = new WeakMap<object, number>();
  readonly ratios = new SessionCharRatios();

  /** `sized` are the fit's messages, in the same order and with the same blocks as `imp.messages`. */
  constructor(imp: ImportedSession, sized: readonly BillMessage[], model: string | undefined) {
    super({ model });
    imp.messages.forEach((m, i) => {
      const s = sized[i];
      m.blocks.forEach((b, j) => {
        const t = s?.blocks[j]?.tokens;
        if (t === undefined) return;
        this.known.set(b.param, Math.round(t));
        this.ratios.observe(classOf(b.param), blockChars(b.param), t);
      });
    });
  }

  override forModel(): TokenEstimator {
    return this;
  }

  override quality(): TokenQuality {
    return 'calibrated';
  }

  override raw(text: string): number {
    return this.ratios.estimate('text', text.length);
  }

  override text(text: string, cls: ContentClass = 'text'): TokenCount {
    return { tokens: this.ratios.estimate(cls, text.length), quality: 'calibrated' };
  }

  override block(param: ContentBlockParam): TokenCount {
    let t = this.known.get(param) ?? this.memo.get(param);
    if (t === undefined) this.memo.set(param, (t = this.ratios.estimate(classOf(param), blockChars(param))));
    return { tokens: t, quality: 'calibrated' };
  }

  override newBudget(): void {}

  override refinements(): number {
    return 0;
  }

  override observe(): ObserveResult {
    // The sizes come from the recorded usage already.
    return { accepted: false, predicted: 0 };
  }
}
