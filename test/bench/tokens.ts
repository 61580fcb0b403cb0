/**
 * Token accounting on real transcripts: how far raw cl100k and the calibrated
 * estimator are from Claude's own counts, per call delta.
 *
 * For call i > 0 of the same epoch, true delta = totalInput(i) − totalInput(i−1);
 * the estimate covers log messages [calls[i−1].at, calls[i].at) (the previous
 * response and what followed), minus the thinking the API strips at a new user
 * turn (see `deltaSamples`). The calibrated estimator is evaluated online:
 * predict, then observe (no peeking); and leave-one-transcript-out.
 *
 * Findings behind the rules in src/core/tokens (2026 data, Claude Code 2.0–2.1):
 * - claude-sonnet-4-5 stops counting every thinking block of earlier turns
 *   when a new human turn starts (22 deltas are negative for this reason, one
 *   of −2,988 tokens); within a tool loop the previous thinking is counted.
 *   claude-opus-4-5 keeps counting earlier turns' thinking.
 * - Every content class costs ≈ 1.13 Claude tokens per cl100k token; the
 *   apparent ratio ≈ 1.5 comes from ≈ 44 tokens per tool_use/tool_result block.
 *
 * Run: npx esbuild test/bench/tokens.ts --bundle --platform=node --outfile=dist/tokens-bench.cjs && node
 * dist/tokens-bench.cjs
 */
import { readdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { ImportError, importTranscript } from '../../src/core/import';
import type { CallRecord, ContentBlockParam, LogMessage, MessageParam } from '../../src/core/session';
import {
  Calibrator,
  FeatureExtractor,
  MIN_CALIBRATION_SAMPLES,
  uncountedThinking,
  usageDelta,
  type CalibrationPrior,
} from '../../src/core/tokens';

export interface Transcript {
  file: string;
  messages: LogMessage[];
  calls: CallRecord[];
}

/** A transcript through the project importer; undefined when the file holds no conversation (ImportError). */
export function loadTranscript(file: string): Transcript | undefined {
  try {
    const imp = importTranscript(file);
    return { file, messages: imp.messages, calls: imp.calls };
  } catch (e) {
    if (e instanceof ImportError) return undefined;
    throw e;
  }
}

/**
 * The real Claude Code transcripts (copies in test/fixtures, see NOTICE.md there; override with TRIMLINE_TRANSCRIPTS).
 */
export const TRANSCRIPT_DIR =
  process.env.TRIMLINE_TRANSCRIPTS ?? resolve(process.cwd(), 'test/fixtures/transcripts/m-claude');

export function transcriptFiles(dir = TRANSCRIPT_DIR): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((f) => join(dir, f));
}

// ---------------------------------------------------------------------------
// Call deltas
// ---------------------------------------------------------------------------

export interface DeltaSample {
  file: string;
  call: number;
  model: string | undefined;
  trueDelta: number;
  /** Blocks of messages [calls[i−1].at, calls[i].at) that the API counts at call i. */
  added: ContentBlockParam[];
  addedMessages: number;
  /** Thinking the API counted at call i−1 but not at call i (earlier turns' thinking, on models that drop it). */
  removed: ContentBlockParam[];
}

/** Usage deltas of consecutive calls in the same epoch, with what was added (and dropped) between them. */
export function deltaSamples(t: Transcript): DeltaSample[] {
  const view: MessageParam[] = t.messages.map((m) => ({ role: m.role, content: m.blocks.map((b) => b.param) }));
  const out: DeltaSample[] = [];
  for (let i = 1; i < t.calls.length; i++) {
    const prev = t.calls[i - 1];
    const cur = t.calls[i];
    const trueDelta = usageDelta(prev, cur);
    if (trueDelta === undefined) continue;
    const before = uncountedThinking(view.slice(prev.epochStart, prev.at), cur.model);
    const after = uncountedThinking(view.slice(cur.epochStart, cur.at), cur.model);
    const window = t.messages.slice(prev.at, cur.at).flatMap((m) => m.blocks.map((b) => b.param));
    const windowBlocks = new Set(window);
    // Dropped thinking of the window itself (the previous response's, at a new turn) was never counted: neither added
    // nor removed.
    const removed = [...after].filter((b) => !before.has(b) && !windowBlocks.has(b));
    out.push({
      file: basename(t.file),
      call: i,
      model: cur.model,
      trueDelta,
      added: window.filter((b) => !after.has(b)),
      addedMessages: cur.at - prev.at,
      removed,
    });
  }
  return out;
}

// ---------------------------------------------------------------------------
// Error statistics and the report
// ---------------------------------------------------------------------------

export interface ErrorStats {
  n: number;
  /** Median of |est − true| / true. */
  medianAbs: number;
  /** 10th / 50th / 90th percentile of the signed relative error (est − true) / true. */
  p10: number;
  median: number;
  p90: number;
  /** Mean signed relative error. */
  bias: number;
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

export function errorStats(errors: number[]): ErrorStats {
  const s = [...errors].sort((a, b) => a - b);
  const abs = errors.map(Math.abs).sort((a, b) => a - b);
  return {
    n: errors.length,
    medianAbs: quantile(abs, 0.5),
    p10: quantile(s, 0.1),
    median: quantile(s, 0.5),
    p90: quantile(s, 0.9),
    bias: errors.reduce((a, b) => a + b, 0) / Math.max(1, errors.length),
  };
}

/**
 * A prior that knows only the reference's per-message ratio (≈ 1.5) and nothing about structure: shows convergence from
 * scratch.
 */
export const NAIVE_PRIOR: CalibrationPrior = {
  ratio: 1.5,
  perMessage: 0,
  perBlock: 0,
  perToolBlock: 0,
  perThinkingBlock: 0,
  sigma: { ratio: 0.5, classRatio: 0.15, perMessage: 20, perBlock: 20, perToolBlock: 60, perThinkingBlock: 30 },
};
const naivePriors = { 'claude-4': NAIVE_PRIOR, 'claude-4.7': NAIVE_PRIOR };

export type Method = 'raw' | 'online' | 'onlineNaive' | 'loo';
export const METHODS: readonly Method[] = ['raw', 'online', 'onlineNaive', 'loo'];
export const METHOD_LABELS: Readonly<Record<Method, string>> = {
  raw: 'raw cl100k',
  online: 'online (default prior)',
  onlineNaive: 'online (naive prior 1.5)',
  loo: 'leave-one-out (frozen)',
};

export interface TranscriptReport {
  file: string;
  model: string | undefined;
  /** Deltas ≤ 0 (the API dropped content): not scored, never learned from. */
  nonPositive: number;
  stats: Record<Method, ErrorStats>;
}

export interface Report {
  transcripts: TranscriptReport[];
  overall: Record<Method, ErrorStats>;
  /** The first MIN_CALIBRATION_SAMPLES scored deltas of each transcript (online: before `calibrated`). */
  coldStart: Record<Method, ErrorStats>;
  samples: number;
  rawCache: { hits: number; misses: number };
  ms: number;
}

type Errors = Record<Method, number[]>;
const emptyErrors = (): Errors => ({ raw: [], online: [], onlineNaive: [], loo: [] });

/** Predicted delta (net of removed blocks) under a calibrator. */
function predictDelta(c: Calibrator, s: DeltaSample): number {
  const f = c.extractor.blocks(s.added, s.addedMessages);
  if (s.removed.length) f.add(c.extractor.blocks(s.removed), -1);
  return c.predict(s.model, f);
}

function observe(c: Calibrator, s: DeltaSample): void {
  c.observe({
    model: s.model,
    addedBlocks: s.added,
    addedMessages: s.addedMessages,
    removedBlocks: s.removed,
    trueDelta: s.trueDelta,
  });
}

/**
 * Measure raw and calibrated per-delta error on Claude Code transcripts.
 * online: a fresh calibrator per transcript, predict then observe each delta.
 * onlineNaive: the same from NAIVE_PRIOR. loo: trained on every other
 * transcript from NAIVE_PRIOR (nothing of the held-out one, not even the
 * default prior fitted on all of them), then frozen while predicting it.
 */
export function measureCalibration(files: readonly string[]): Report {
  const t0 = performance.now();
  const extractor = new FeatureExtractor();
  const all = files
    .map((f) => {
      const t = loadTranscript(f);
      return t ? deltaSamples(t) : [];
    })
    .filter((s) => s.length > 0);
  const transcripts: TranscriptReport[] = [];
  const overall = emptyErrors();
  const cold = emptyErrors();
  all.forEach((samples, k) => {
    const online = new Calibrator({ extractor });
    const naive = new Calibrator({ extractor, priors: naivePriors });
    const loo = new Calibrator({ extractor, priors: naivePriors });
    all.forEach((other, j) => j !== k && other.forEach((s) => observe(loo, s)));
    const errs = emptyErrors();
    let nonPositive = 0;
    for (const s of samples) {
      const f = extractor.blocks(s.added);
      if (s.removed.length) f.add(extractor.blocks(s.removed), -1);
      const est: Record<Method, number> = {
        raw: f.rawTotal(),
        online: predictDelta(online, s),
        onlineNaive: predictDelta(naive, s),
        loo: predictDelta(loo, s),
      };
      observe(online, s);
      observe(naive, s);
      if (s.trueDelta <= 0) {
        nonPositive++;
        continue;
      }
      const isCold = errs.raw.length < MIN_CALIBRATION_SAMPLES;
      for (const m of METHODS) {
        errs[m].push((est[m] - s.trueDelta) / s.trueDelta);
        if (isCold) cold[m].push(errs[m][errs[m].length - 1]);
      }
    }
    for (const m of METHODS) overall[m].push(...errs[m]);
    const stats = {} as Record<Method, ErrorStats>;
    for (const m of METHODS) stats[m] = errorStats(errs[m]);
    transcripts.push({ file: samples[0].file, model: samples[samples.length - 1].model, nonPositive, stats });
  });
  const stats = {} as Record<Method, ErrorStats>;
  const coldStart = {} as Record<Method, ErrorStats>;
  for (const m of METHODS) {
    stats[m] = errorStats(overall[m]);
    coldStart[m] = errorStats(cold[m]);
  }
  const { hits, misses } = extractor.raw.stats();
  return {
    transcripts,
    overall: stats,
    coldStart,
    samples: all.reduce((a, s) => a + s.length, 0),
    rawCache: { hits, misses },
    ms: performance.now() - t0,
  };
}

const pct = (v: number): string => `${v >= 0 ? '+' : ''}${(100 * v).toFixed(1)}%`;
const cell = (s: ErrorStats): string =>
  `${(100 * s.medianAbs).toFixed(1)}% [${pct(s.p10)}, ${pct(s.p90)}] b${pct(s.bias)}`;

export function formatReport(r: Report): string {
  const head = ['transcript', 'model', 'n', ...METHODS.map((m) => METHOD_LABELS[m])];
  const rows = r.transcripts.map((t) => [
    t.file.slice(0, 8),
    (t.model ?? '?').replace(/^claude-|-\d{8}$/g, ''),
    String(t.stats.raw.n),
    ...METHODS.map((m) => cell(t.stats[m])),
  ]);
  rows.push(['overall', '', String(r.overall.raw.n), ...METHODS.map((m) => cell(r.overall[m]))]);
  rows.push([
    'cold start',
    `first ${MIN_CALIBRATION_SAMPLES}`,
    String(r.coldStart.raw.n),
    ...METHODS.map((m) => cell(r.coldStart[m])),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (row: string[]): string => row.map((c, i) => c.padEnd(widths[i])).join(' | ');
  return [
    'Per-call-delta relative error: median |err| [p10, p90 of signed err] b = bias (mean signed)',
    line(head),
    widths.map((w) => '-'.repeat(w)).join('-|-'),
    ...rows.map(line),
    `${r.samples} deltas (${r.transcripts.reduce((a, t) => a + t.nonPositive, 0)} ≤ 0 not scored); raw cache ${r.rawCache.hits} hits / ${r.rawCache.misses} misses; ${r.ms.toFixed(0)} ms`,
  ].join('\n');
}

export function main(files: readonly string[] = transcriptFiles()): Report {
  const report = measureCalibration(files);
  console.log(formatReport(report));
  return report;
}

if (process.argv[1] && /bench[\\/]tokens\.[cm]?[jt]s$|tokens-bench\.c?js$/.test(process.argv[1])) main();
