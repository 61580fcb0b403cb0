/**
 * TokenEstimator: cl100k counts (cached by content hash) turned into Claude
 * tokens by a Calibrator learned from real usage. Counts carry their quality:
 * `estimated` (documented prior only), `calibrated` (≥ MIN_CALIBRATION_SAMPLES
 * usage deltas seen for this model) or `exact` (recorded from count_tokens).
 */
import type { CallRecord, ContentBlockParam, MessageParam } from '../session/types';
import { totalInput } from '../session/types';
import {
  Calibrator,
  type CalibrationState,
  type CalibratorOptions,
  type ObserveResult,
  type UsageSample,
} from './calibrator';
import { RawCounter, type DeferPolicy } from './encoder';
import { FeatureExtractor, Features } from './features';
import { contentKey } from './hash';
import { LruMap } from './lru';
import { modelKey } from '../models';
import { uncountedThinking } from './thinking';
import type { ContentClass, TokenAccountant, TokenCount, TokenQuality } from './types';

/** Exact counts remembered (count_tokens results for blocks/texts the host asked about). */
export const DEFAULT_EXACT_ENTRIES = 10_000;

export interface TokenEstimatorOptions {
  /** Model whose tokenizer to estimate for (default: the generation measured on Sonnet/Opus 4.5). */
  model?: string;
  calibrator?: Calibrator;
  /** Saved calibration (Calibrator.toJSON) to start from; ignored when `calibrator` is given. */
  state?: unknown;
  priors?: CalibratorOptions['priors'];
  /** Raw cache capacity (distinct texts); ignored when `rawCounter` is given. */
  rawCacheEntries?: number;
  /** Share a raw counter (and its cache) with other components; tests pass one with a spy encoder. */
  rawCounter?: RawCounter;
  /**
   * Latency path: estimate big texts from characters, refined later (see DeferPolicy, `refine`). Ignored when
   * `rawCounter` or `calibrator` is given.
   */
  defer?: DeferPolicy;
}

/** State shared by every model view of one estimator. */
interface Shared {
  calibrator: Calibrator;
  exact: LruMap<string, number>;
}

export class TokenEstimator implements TokenAccountant {
  readonly model: string | undefined;
  private shared: Shared;

  constructor(opts: TokenEstimatorOptions = {}) {
    this.model = opts.model;
    const extractor =
      opts.calibrator?.extractor ??
      new FeatureExtractor(opts.rawCounter ?? new RawCounter({ capacity: opts.rawCacheEntries, defer: opts.defer }));
    const calibrator =
      opts.calibrator ??
      (opts.state !== undefined
        ? Calibrator.fromJSON(opts.state, { extractor, priors: opts.priors })
        : new Calibrator({ extractor, priors: opts.priors }));
    this.shared = { calibrator, exact: new LruMap(DEFAULT_EXACT_ENTRIES) };
  }

  get calibrator(): Calibrator {
    return this.shared.calibrator;
  }

  /** The same caches and calibration, estimating for another model. */
  forModel(model: string | undefined): TokenEstimator {
    if (modelKey(model) === modelKey(this.model)) return this;
    const view = new TokenEstimator({ model, calibrator: this.calibrator });
    view.shared = this.shared;
    return view;
  }

  quality(): TokenQuality {
    return this.calibrator.quality(this.model);
  }

  raw(text: string): number {
    return this.calibrator.extractor.raw.count(text);
  }

  text(text: string, cls: ContentClass = 'text'): TokenCount {
    const exact = this.lookupExact(text);
    if (exact !== undefined) return { tokens: exact, quality: 'exact' };
    return this.count(this.calibrator.extractor.text(text, cls));
  }

  /**
   * One block as billed when sent (a tool block includes its id/markup
   * overhead). Thinking of earlier turns may not be billed at all on some
   * models: `messages()` applies that rule, a single block cannot.
   */
  block(param: ContentBlockParam): TokenCount {
    const exact = this.lookupExact(param);
    if (exact !== undefined) return { tokens: exact, quality: 'exact' };
    return this.count(this.calibrator.extractor.block(param));
  }

  /** Features of a block (raw tokens per class, structure, media); cached per block object. */
  features(param: ContentBlockParam): Features {
    return this.calibrator.extractor.block(param);
  }

  /** One message as sent (blocks + per-message overhead). */
  message(m: MessageParam): TokenCount {
    return this.count(this.calibrator.extractor.message(m));
  }

  /**
   * A whole message list as the model will bill it: per-message overheads, and
   * no thinking of earlier turns on models that drop it (see thinking.ts).
   * Excludes system prompt and tools. Exact block counts are not mixed in.
   */
  messages(list: readonly MessageParam[]): TokenCount {
    const skip = uncountedThinking(list, this.model);
    const f = new Features();
    for (const m of list) this.calibrator.extractor.message(m, f, skip);
    return this.count(f);
  }

  /** The raw counter's defer policy (undefined: every count exact). */
  get defer(): DeferPolicy | undefined {
    return this.calibrator.extractor.raw.defer;
  }

  set defer(policy: DeferPolicy | undefined) {
    this.calibrator.extractor.raw.defer = policy;
  }

  /** A new call: its budget of exact encodes on the hot path starts again (DeferPolicy.budgetChars). */
  newBudget(): void {
    this.calibrator.extractor.raw.newBudget();
  }

  /**
   * Make estimated raw counts exact, oldest first, about `maxChars` chars of text at a time; returns how many are left.
   */
  refine(maxChars: number): number {
    return this.calibrator.extractor.raw.refine(maxChars);
  }

  /** Texts still counted from characters. */
  pending(): number {
    return this.calibrator.extractor.raw.stats().pending;
  }

  refinements(): number {
    return this.calibrator.extractor.raw.generation;
  }

  /** Run `fn` with every count exact (no deferral): calibration must learn from encoded counts. */
  exactly<T>(fn: () => T): T {
    const raw = this.calibrator.extractor.raw;
    const policy = raw.defer;
    raw.defer = undefined;
    try {
      return fn();
    } finally {
      raw.defer = policy;
    }
  }

  /** Learn from one usage delta of this estimator's model (see Calibrator.observe). */
  observe(sample: Omit<UsageSample, 'model'> & { model?: string }): ObserveResult {
    return this.exactly(() => this.calibrator.observe({ ...sample, model: sample.model ?? this.model }));
  }

  /** Record an exact count (e.g. from count_tokens) for a block or text, for this model. */
  setExact(target: ContentBlockParam | string, tokens: number): void {
    if (!(tokens >= 0) || !Number.isFinite(tokens)) throw new Error(`setExact: invalid token count ${tokens}`);
    this.shared.exact.set(this.exactKey(target), Math.round(tokens));
  }

  toJSON(): CalibrationState {
    return this.calibrator.toJSON();
  }

  static fromJSON(state: unknown, opts: Omit<TokenEstimatorOptions, 'state' | 'calibrator'> = {}): TokenEstimator {
    return new TokenEstimator({ ...opts, state });
  }

  private count(f: Features): TokenCount {
    const tokens = Math.max(0, Math.round(this.calibrator.predict(this.model, f)));
    // A count from characters is an estimate whatever the calibration: it is refined later.
    return f.provisional > 0
      ? { tokens, quality: 'estimated', provisional: true }
      : { tokens, quality: this.quality() };
  }

  private exactKey(target: ContentBlockParam | string): string {
    const body = typeof target === 'string' ? `t${target}` : `b${JSON.stringify(target)}`;
    return `${modelKey(this.model)}\u0000${contentKey(body)}`;
  }

  private lookupExact(target: ContentBlockParam | string): number | undefined {
    // Skip hashing entirely (the common case) when nothing exact was ever recorded.
    return this.shared.exact.size === 0 ? undefined : this.shared.exact.get(this.exactKey(target));
  }
}

/**
 * True size of what was added between two consecutive calls of one
 * conversation: totalInput(cur) − totalInput(prev). Undefined when it is not
 * a valid sample: usage missing, or a compaction in between (epochStart changed).
 * Negative values are returned (the API dropped content); Calibrator rejects them.
 */
export function usageDelta(prev: CallRecord, cur: CallRecord): number | undefined {
  if (!prev.usage || !cur.usage || prev.epochStart !== cur.epochStart || cur.at < prev.at) return undefined;
  return totalInput(cur.usage) - totalInput(prev.usage);
}
