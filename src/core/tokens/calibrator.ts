/**
 * Online calibration of cl100k counts against Claude's billed input.
 *
 * Model (per model id, pooled per tokenizer generation): the true size of
 * what was added (minus what the API stopped counting) between two calls is
 *   Δ ≈ g·raw + Σ_c δ_c·raw_c + m·messages + k·blocks + t·toolBlocks + h·thinkingBlocks + media
 * with g the global Claude/cl100k ratio, δ_c per-class corrections (shrunk to 0
 * so a class with few samples uses the global ratio), and structural overheads.
 * It is a Bayesian ridge regression updated one usage delta at a time:
 * relative weighting (samples weigh 1/scale², so errors are relative), Huber
 * down-weighting, an outlier rule, and slow forgetting. The prior for a model
 * is the pooled fit of the other models of its generation, else the
 * generation's documented prior. Solving is an 11×11 Cholesky.
 */
import type { ContentBlockParam } from '../session/types';
import type { ContentClass, TokenQuality } from './types';
import {
  FeatureExtractor,
  Features,
  F_BLOCKS,
  F_MESSAGES,
  F_THINKING_BLOCKS,
  F_TOOL_BLOCKS,
  RAW_CLASSES,
} from './features';
import { solveSpd } from './linalg';
import { modelKey, tokenizerGeneration, type TokenizerGeneration } from '../models';

/**
 * Parameters: [g, δ_text, δ_tool_use, δ_tool_result, δ_thinking, δ_code, δ_other,
 * perMessage, perBlock, perToolBlock, perThinkingBlock].
 */
const P = 11;
const P_MSG = 7;
const P_BLOCK = 8;
const P_TOOL = 9;
const P_THINK = 10;

/** Accepted usage deltas before a model's counts are `calibrated` rather than `estimated`. */
export const MIN_CALIBRATION_SAMPLES = 5;
/** Deltas smaller than this are weighed as if this large: a 20-token delta's relative error is mostly noise. */
export const MIN_SCALE_TOKENS = 50;
/** Huber threshold on the relative residual: beyond ±25% a sample's weight falls as 1/|r|. */
export const HUBER_REL = 0.25;
/**
 * Outlier rule: once a model has MIN_CALIBRATION_SAMPLES samples, a delta off
 * by more than 100% of its scale (the predicted size of what moved) is not
 * learned from. On the transcripts 2 of 814 deltas: a small tool step that cost
 * 377 tokens for ~180 predicted (text injected by Claude Code that is not in the
 * log, e.g. a system reminder) and a −16,504 drop at a new turn (content dropped
 * by the harness, not the thinking rule). Deltas ≤ 0 without declared removed
 * content are rejected outright ('nonpositive').
 */
export const OUTLIER_REL = 1.0;
/** After this many outliers in a row the model is more likely wrong than the data: learn again. */
export const MAX_CONSECUTIVE_OUTLIERS = 3;
/** Per-sample forgetting: an effective memory of ~500 deltas, so a changed tokenizer or harness is followed. */
export const FORGETTING = 0.998;
/**
 * Typical relative noise of one delta (measured: p10/p90 ≈ −8%/+7.5% for the fitted model); sets prior
 * strength.
 */
const NOISE_REL = 0.1;

/** Prior belief about a generation's parameters (means and standard deviations). */
export interface CalibrationPrior {
  /** Claude tokens per cl100k token, all content. */
  ratio: number;
  /** Per-class ratio, where known; others use `ratio`. */
  classRatio?: Partial<Record<ContentClass, number>>;
  perMessage: number;
  perBlock: number;
  perToolBlock: number;
  perThinkingBlock: number;
  sigma: {
    ratio: number;
    classRatio: number;
    perMessage: number;
    perBlock: number;
    perToolBlock: number;
    perThinkingBlock: number;
  };
}

/**
 * Measured on the 814 call deltas of the Claude Code transcripts
 * (test/bench/tokens.ts; claude-sonnet-4-5 and claude-opus-4-5 agree within
 * noise, from this prior or from a naive one): every class ≈ 1.14 Claude
 * tokens per cl100k token (text ~1.21, code ~1.09: left to calibration),
 * +43 per tool_use/tool_result block (ids and tool-call markup), +12 per
 * thinking block (seen when Sonnet 4.5 drops earlier turns' thinking),
 * ≈ 0–1 per message/block. Per whole message this reproduces the reference's
 * cl100k/Claude ≈ 0.63–0.66 (ratio ≈ 1.5): small tool messages are mostly overhead.
 */
export const CLAUDE_4_PRIOR: CalibrationPrior = {
  ratio: 1.14,
  perMessage: 0,
  perBlock: 1,
  perToolBlock: 43,
  perThinkingBlock: 12,
  sigma: { ratio: 0.25, classRatio: 0.1, perMessage: 5, perBlock: 5, perToolBlock: 15, perThinkingBlock: 10 },
};

/** Opus 4.7+ tokenizer: ~30% more tokens than claude-4 for the same text (reference); wider, since unmeasured here. */
const NEW_TOKENIZER_FACTOR = 1.3;
export const CLAUDE_4_7_PRIOR: CalibrationPrior = {
  ratio: CLAUDE_4_PRIOR.ratio * NEW_TOKENIZER_FACTOR,
  perMessage: 0,
  perBlock: 1,
  perToolBlock: Math.round(CLAUDE_4_PRIOR.perToolBlock * NEW_TOKENIZER_FACTOR),
  perThinkingBlock: Math.round(CLAUDE_4_PRIOR.perThinkingBlock * NEW_TOKENIZER_FACTOR),
  sigma: { ratio: 0.4, classRatio: 0.1, perMessage: 6, perBlock: 6, perToolBlock: 25, perThinkingBlock: 15 },
};

export const DEFAULT_PRIORS: Readonly<Record<TokenizerGeneration, CalibrationPrior>> = {
  'claude-4': CLAUDE_4_PRIOR,
  'claude-4.7': CLAUDE_4_7_PRIOR,
};

interface PriorVectors {
  mean: Float64Array;
  precision: Float64Array;
}

function priorVectors(p: CalibrationPrior): PriorVectors {
  const mean = new Float64Array(P);
  const sd = new Float64Array(P);
  mean[0] = p.ratio;
  sd[0] = p.sigma.ratio;
  RAW_CLASSES.forEach((c, i) => {
    mean[1 + i] = (p.classRatio?.[c] ?? p.ratio) - p.ratio;
    sd[1 + i] = p.sigma.classRatio;
  });
  mean[P_MSG] = p.perMessage;
  mean[P_BLOCK] = p.perBlock;
  mean[P_TOOL] = p.perToolBlock;
  mean[P_THINK] = p.perThinkingBlock;
  sd[P_MSG] = p.sigma.perMessage;
  sd[P_BLOCK] = p.sigma.perBlock;
  sd[P_TOOL] = p.sigma.perToolBlock;
  sd[P_THINK] = p.sigma.perThinkingBlock;
  // Samples are divided by their scale, so residuals are relative (≈ NOISE_REL): precision = (noise / sd)².
  const precision = sd.map((s) => (NOISE_REL / s) ** 2);
  return { mean, precision };
}

/** Design vector of the linear model from block features. */
function design(f: Features): Float64Array {
  const z = new Float64Array(P);
  z[0] = f.rawTotal();
  for (let i = 0; i < RAW_CLASSES.length; i++) z[1 + i] = f.x[i];
  z[P_MSG] = f.x[F_MESSAGES];
  z[P_BLOCK] = f.x[F_BLOCKS];
  z[P_TOOL] = f.x[F_TOOL_BLOCKS];
  z[P_THINK] = f.x[F_THINKING_BLOCKS];
  return z;
}

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

interface ModelStats {
  a: Float64Array; // P×P, Σ w z zᵀ (forgotten)
  b: Float64Array; // Σ w z y
  samples: number;
  rejected: number;
  consecutiveOutliers: number;
}

function emptyStats(): ModelStats {
  return { a: new Float64Array(P * P), b: new Float64Array(P), samples: 0, rejected: 0, consecutiveOutliers: 0 };
}

/** One usage delta: what was added since the previous call of the same conversation and what it really cost. */
export interface UsageSample {
  model?: string;
  /** Blocks added since the previous call: its assistant response and the user/tool_result message(s) after it. */
  addedBlocks: readonly ContentBlockParam[];
  /** Messages the added blocks form (default 2: the previous response and one user message). */
  addedMessages?: number;
  /** Blocks the API stopped counting since the previous call (earlier turns' thinking on models that drop it). */
  removedBlocks?: readonly ContentBlockParam[];
  /** totalInput(this call) − totalInput(previous call); ≤ 0 is only learned from when removedBlocks explain it. */
  trueDelta: number;
}

export type RejectReason = 'nonpositive' | 'empty' | 'outlier';

export interface ObserveResult {
  accepted: boolean;
  reason?: RejectReason;
  /** Prediction before learning from this sample (what an online estimate would have shown). */
  predicted: number;
}

export interface CalibrationParameters {
  model: string;
  generation: TokenizerGeneration;
  ratio: number;
  classRatio: Record<ContentClass, number>;
  perMessage: number;
  perBlock: number;
  perToolBlock: number;
  perThinkingBlock: number;
  samples: number;
  rejected: number;
  quality: TokenQuality;
}

/** Serialized calibration (version 1): per-model sufficient statistics. */
export interface CalibrationState {
  version: 1;
  models: Record<string, { samples: number; rejected: number; a: number[]; b: number[] }>;
}

export interface CalibratorOptions {
  extractor?: FeatureExtractor;
  priors?: Partial<Record<TokenizerGeneration, CalibrationPrior>>;
}

export class Calibrator {
  readonly extractor: FeatureExtractor;
  private readonly priors: Record<TokenizerGeneration, PriorVectors>;
  private readonly stats = new Map<string, ModelStats>();
  private readonly posterior = new Map<string, Float64Array>();

  constructor(opts: CalibratorOptions = {}) {
    this.extractor = opts.extractor ?? new FeatureExtractor();
    const priors = { ...DEFAULT_PRIORS, ...opts.priors };
    this.priors = { 'claude-4': priorVectors(priors['claude-4']), 'claude-4.7': priorVectors(priors['claude-4.7']) };
  }

  /** Current parameters of a model (its posterior mean), in the units of CalibrationPrior. */
  parameters(model?: string): CalibrationParameters {
    const key = modelKey(model);
    const w = this.weights(key);
    const st = this.stats.get(key);
    const classRatio = {} as Record<ContentClass, number>;
    RAW_CLASSES.forEach((c, i) => (classRatio[c] = w[0] + w[1 + i]));
    return {
      model: key,
      generation: tokenizerGeneration(key),
      ratio: w[0],
      classRatio,
      perMessage: w[P_MSG],
      perBlock: w[P_BLOCK],
      perToolBlock: w[P_TOOL],
      perThinkingBlock: w[P_THINK],
      samples: st?.samples ?? 0,
      rejected: st?.rejected ?? 0,
      quality: this.quality(key),
    };
  }

  quality(model?: string): TokenQuality {
    return (this.stats.get(modelKey(model))?.samples ?? 0) >= MIN_CALIBRATION_SAMPLES ? 'calibrated' : 'estimated';
  }

  /** Claude tokens predicted for these features (unrounded). */
  predict(model: string | undefined, f: Features): number {
    return dot(this.weights(modelKey(model)), design(f)) + f.fixed;
  }

  /** Learn from one usage delta. Negative/zero deltas and outliers are not learned from (see OUTLIER_REL). */
  observe(sample: UsageSample): ObserveResult {
    const added = this.extractor.blocks(sample.addedBlocks, sample.addedMessages ?? 2);
    const net = new Features().add(added);
    let scale = this.predict(sample.model, added);
    const removing = (sample.removedBlocks?.length ?? 0) > 0;
    if (removing) {
      const removed = this.extractor.blocks(sample.removedBlocks ?? []);
      net.add(removed, -1);
      scale += this.predict(sample.model, removed);
    }
    return this.observeFeatures(sample.model, net, sample.trueDelta, { scale, removing });
  }

  /**
   * Learn from a delta given as features (`net` = added − removed).
   * `scale`: the predicted size of what moved (added + removed), the unit of the
   * sample's relative error. `removing`: the caller modelled dropped content, so a
   * delta ≤ 0 is explained and informative; otherwise it is rejected (content
   * vanished for a reason we do not model: /clear, micro-compaction).
   */
  observeFeatures(
    model: string | undefined,
    net: Features,
    trueDelta: number,
    opts: { scale?: number; removing?: boolean } = {},
  ): ObserveResult {
    const key = modelKey(model);
    const predicted = this.predict(key, net);
    if (!Number.isFinite(trueDelta) || (trueDelta <= 0 && !opts.removing))
      return this.reject(key, 'nonpositive', predicted);
    if (net.isEmpty()) return this.reject(key, 'empty', predicted);
    const st = this.statsFor(key);
    const scale = Math.max(opts.scale ?? 0, Math.abs(predicted), MIN_SCALE_TOKENS);
    const r = (trueDelta - predicted) / scale;
    if (
      st.samples >= MIN_CALIBRATION_SAMPLES &&
      Math.abs(r) > OUTLIER_REL &&
      st.consecutiveOutliers < MAX_CONSECUTIVE_OUTLIERS
    ) {
      st.consecutiveOutliers++;
      return this.reject(key, 'outlier', predicted);
    }
    st.consecutiveOutliers = 0;
    const w = Math.min(1, HUBER_REL / Math.max(Math.abs(r), 1e-9)) / (scale * scale);
    const z = design(net);
    const y = trueDelta - net.fixed;
    for (let i = 0; i < P; i++) {
      st.b[i] = FORGETTING * st.b[i] + w * z[i] * y;
      for (let j = 0; j < P; j++) st.a[i * P + j] = FORGETTING * st.a[i * P + j] + w * z[i] * z[j];
    }
    st.samples++;
    this.invalidate(key);
    return { accepted: true, predicted };
  }

  toJSON(): CalibrationState {
    const models: CalibrationState['models'] = {};
    for (const [k, s] of this.stats)
      models[k] = { samples: s.samples, rejected: s.rejected, a: Array.from(s.a), b: Array.from(s.b) };
    return { version: 1, models };
  }

  /**
   * Restore a state saved by toJSON; malformed entries are skipped, never thrown on (a corrupt file must not break a
   * session).
   */
  static fromJSON(state: unknown, opts: CalibratorOptions = {}): Calibrator {
    const c = new Calibrator(opts);
    if (!state || typeof state !== 'object' || (state as { version?: unknown }).version !== 1) return c;
    const models = (state as { models?: unknown }).models;
    if (!models || typeof models !== 'object') return c;
    const finite = (v: unknown, n: number): v is number[] =>
      Array.isArray(v) && v.length === n && v.every((x) => typeof x === 'number' && Number.isFinite(x));
    for (const [k, v] of Object.entries(models as Record<string, unknown>)) {
      const e = v as { samples?: unknown; rejected?: unknown; a?: unknown; b?: unknown } | null;
      if (!e || !finite(e.a, P * P) || !finite(e.b, P) || typeof e.samples !== 'number') continue;
      c.stats.set(k, {
        a: Float64Array.from(e.a),
        b: Float64Array.from(e.b),
        samples: e.samples,
        rejected: typeof e.rejected === 'number' ? e.rejected : 0,
        consecutiveOutliers: 0,
      });
    }
    return c;
  }

  private reject(key: string, reason: RejectReason, predicted: number): ObserveResult {
    this.statsFor(key).rejected++;
    return { accepted: false, reason, predicted };
  }

  private statsFor(key: string): ModelStats {
    let s = this.stats.get(key);
    if (!s) this.stats.set(key, (s = emptyStats()));
    return s;
  }

  private invalidate(key: string): void {
    const gen = tokenizerGeneration(key);
    for (const k of [...this.posterior.keys()]) if (tokenizerGeneration(k) === gen) this.posterior.delete(k);
  }

  /** Posterior mean for a model: its data on top of a prior = pooled fit of the other models of its generation. */
  private weights(key: string): Float64Array {
    const cached = this.posterior.get(key);
    if (cached) return cached;
    const gen = tokenizerGeneration(key);
    const prior = this.priors[gen];
    const pooled = emptyStats();
    for (const [k, s] of this.stats) {
      if (k === key || tokenizerGeneration(k) !== gen || s.samples === 0) continue;
      pooled.samples += s.samples;
      for (let i = 0; i < P * P; i++) pooled.a[i] += s.a[i];
      for (let i = 0; i < P; i++) pooled.b[i] += s.b[i];
    }
    const mean = pooled.samples > 0 ? solveWithPrior(pooled, prior.mean, prior.precision) : prior.mean;
    const own = this.stats.get(key);
    const w = own && own.samples > 0 ? solveWithPrior(own, mean, prior.precision) : Float64Array.from(mean);
    this.posterior.set(key, w);
    return w;
  }
}

function solveWithPrior(s: ModelStats, mean: Float64Array, precision: Float64Array): Float64Array {
  const m = Float64Array.from(s.a);
  const v = Float64Array.from(s.b);
  for (let i = 0; i < P; i++) {
    m[i * P + i] += precision[i];
    v[i] += precision[i] * mean[i];
  }
  return solveSpd(m, v, P);
}
