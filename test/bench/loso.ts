/**
 * Leave-one-session-out choice of the default pipeline's parameters.
 *
 * Every grid point runs once on every session. For each session k, the parameters
 * are chosen on the other sessions alone (lowest pooled cost vs `none`, among the
 * points whose pooled retention there is at least {@link RETENTION_FLOOR}); session
 * k is then reported with that choice. The LOSO aggregate is the pooled cost of the
 * held-out sessions, each under its own fold's choice; the in-sample figure picks
 * one point on all sessions at once (optimistic by construction). The point chosen
 * by the most folds is the stable choice, the candidate for the defaults.
 */
import { CACHE_AWARE_DEFAULTS, DEFAULT_OPTIONS, type PipelineConfig } from '../../src/core/trimming';
import { SUMMARIZE_DEFAULTS } from '../../src/core/trimming/summarize-tool-results';
import { TOOL_PRUNING_DEFAULTS } from '../../src/core/trimming/tool-pruning';
import { runOne, type Row } from './engine-bench';
import type { BenchSession } from './session-setup';

/**
 * A choice must keep at least this share of the identifiers the model later used (pooled over the training sessions;
 * the aim).
 */
export const RETENTION_FLOOR = 0.97;

export interface Params {
  /** summarize-tool-results keepTurns (the setting keepRecentTurns). */
  keepRecentTurns: number;
  /** tool-pruning digestRefs: reference ids a prior turn's note keeps. */
  digestRefs: number;
  /** cache-aware priorWeight: the Lindy prior's weight in the expected warm calls. */
  priorWeight: number;
}

/**
 * The grid: the parameters left once the window is a safety net (its budget comes from the
 * model catalog) and the batch rule is a break-even (no tuned fraction): 18 points.
 */
export const GRID: readonly Params[] = (() => {
  const out: Params[] = [];
  for (const keepRecentTurns of [1, 2])
    for (const digestRefs of [40, 80, 200])
      for (const priorWeight of [0.5, 1, 2]) out.push({ keepRecentTurns, digestRefs, priorWeight });
  return out;
})();

export function label(p: Params): string {
  return `keepRecentTurns ${p.keepRecentTurns}, digest refs ${p.digestRefs}, warm-call prior ${p.priorWeight}`;
}

/** The parameters the `default` pipeline uses today (read from the source constants). */
export function currentParams(): Params {
  const num = (v: unknown, fallback: number): number => (typeof v === 'number' ? v : fallback);
  const tp = DEFAULT_OPTIONS['tool-pruning'] ?? {};
  const sum = DEFAULT_OPTIONS['summarize-tool-results'] ?? {};
  return {
    keepRecentTurns: num(sum.keepTurns, SUMMARIZE_DEFAULTS.keepTurns),
    digestRefs: num(tp.digestRefs, TOOL_PRUNING_DEFAULTS.digestRefs),
    priorWeight: CACHE_AWARE_DEFAULTS.priorWeight,
  };
}

export function gridIndex(p: Params): number {
  return GRID.findIndex(
    (g) => g.keepRecentTurns === p.keepRecentTurns && g.digestRefs === p.digestRefs && g.priorWeight === p.priorWeight,
  );
}

export function configOf(p: Params): PipelineConfig {
  return {
    strategies: {
      'summarize-tool-results': { keepTurns: p.keepRecentTurns },
      'tool-pruning': { digest: true, digestRefs: p.digestRefs },
    },
    cacheAware: { priorWeight: p.priorWeight },
  };
}

export interface Fold {
  heldOut: string;
  chosen: number;
  /** Held-out session's cost vs its `none` under the fold's choice. */
  heldOutRatio: number;
  /** The same under the in-sample choice. */
  inSampleRatio: number;
  heldOutRetention: number;
}

export interface LosoResult {
  grid: readonly Params[];
  folds: Fold[];
  losoRatio: number;
  inSampleRatio: number;
  inSample: number;
  /** Grid index chosen by the most folds, and by how many. */
  stable: number;
  stableFolds: number;
  /** Pooled ratio of every grid point on all sessions (for the table). */
  pooled: number[];
  ms: number;
}

interface Cell {
  cost: number;
  needed: number;
  retained: number;
}

function pick(cells: Cell[][], none: number[], use: (k: number) => boolean): number {
  let best = -1;
  let bestRatio = Infinity;
  cells.forEach((row, g) => {
    let cost = 0;
    let base = 0;
    let needed = 0;
    let retained = 0;
    row.forEach((c, k) => {
      if (!use(k)) return;
      cost += c.cost;
      base += none[k];
      needed += c.needed;
      retained += c.retained;
    });
    const ratio = cost / base;
    if ((needed === 0 || retained / needed >= RETENTION_FLOOR) && ratio < bestRatio - 1e-12) {
      best = g;
      bestRatio = ratio;
    }
  });
  return best;
}

export function runLoso(
  sessions: readonly BenchSession[],
  noneRows: readonly Row[],
  onProgress?: (msg: string) => void,
): LosoResult {
  const t0 = performance.now();
  const none = sessions.map((s) => noneRows.find((r) => r.transcript === s.name)!.inputCost);
  const cells: Cell[][] = GRID.map((p, g) => {
    const row = sessions.map((s) => {
      const r = runOne(s, { name: label(p), spec: 'default', config: configOf(p) }).row;
      return { cost: r.inputCost, needed: r.needed, retained: r.retained };
    });
    onProgress?.(`loso ${g + 1}/${GRID.length} ${label(p)}`);
    return row;
  });
  const inSample = pick(cells, none, () => true);
  const folds: Fold[] = sessions.map((s, k) => {
    const chosen = pick(cells, none, (j) => j !== k);
    const c = cells[chosen][k];
    return {
      heldOut: s.name,
      chosen,
      heldOutRatio: c.cost / none[k],
      inSampleRatio: cells[inSample][k].cost / none[k],
      heldOutRetention: c.needed ? c.retained / c.needed : 1,
    };
  });
  const noneTotal = none.reduce((a, b) => a + b, 0);
  const counts = new Map<number, number>();
  for (const f of folds) counts.set(f.chosen, (counts.get(f.chosen) ?? 0) + 1);
  let stable = inSample;
  let stableFolds = 0;
  for (const [g, n] of counts)
    if (n > stableFolds || (n === stableFolds && g === inSample)) [stable, stableFolds] = [g, n];
  return {
    grid: GRID,
    folds,
    losoRatio: folds.reduce((a, f, k) => a + cells[f.chosen][k].cost, 0) / noneTotal,
    inSampleRatio: cells[inSample].reduce((a, c) => a + c.cost, 0) / noneTotal,
    inSample,
    stable,
    stableFolds,
    pooled: cells.map((row) => row.reduce((a, c) => a + c.cost, 0) / noneTotal),
    ms: performance.now() - t0,
  };
}
