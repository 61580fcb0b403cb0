/**
 * Four yardsticks per session (issue 26): `default`'s cost as a share of `none`'s by the bench's engine section
 * (engine-bench.ts runOne), by `trimline report` (reportFile), by `trimline inspect` (transcriptBill) and by the
 * ground truth (recorded sessions through the proxy to the local server, ground-truth.ts), with the largest gap
 * between any two of them.
 */
import { basename } from 'node:path';
import { importTranscript } from '../../src/core/import';
import { transcriptBill } from '../../src/core/report/transcript-bill';
import { CONTENDERS, runOne } from './engine-bench';
import type { TruthRow } from './ground-truth';
import { setupSession } from './session-setup';

export interface Yardsticks {
  readonly session: string;
  readonly calls: number;
  /** default / none by each yardstick (undefined: that one could not price the session). */
  readonly bench?: number;
  readonly report?: number;
  readonly inspect?: number;
  readonly truth?: number;
  /** Largest difference between two of them, percentage points of `none`. */
  readonly maxGap?: number;
}

const byName = (name: string) => CONTENDERS.find((c) => c.name === name)!;

/** The bench's and the inspector's default/none for one file, beside the report's and the ground truth's. */
export function yardsticks(file: string, truth: TruthRow): Yardsticks {
  let bench: number | undefined;
  let inspect: number | undefined;
  try {
    const s = setupSession(importTranscript(file));
    const none = runOne(s, byName('none')).row;
    const def = runOne(s, byName('default')).row;
    if (none.pricedBy === 'report' && none.inputCost > 0) bench = def.inputCost / none.inputCost;
    const bill = transcriptBill(importTranscript(file), 'default', {});
    if (bill && bill.none > 0) inspect = bill.strategyCost / bill.none;
  } catch {
    // A session the bench cannot replay has no bench figure.
  }
  const report = truth.reportRatio;
  const gt = truth.none > 0 ? truth.default / truth.none : undefined;
  const all = [bench, report, inspect, gt].filter((x): x is number => x !== undefined);
  const maxGap = all.length > 1 ? 100 * (Math.max(...all) - Math.min(...all)) : undefined;
  return { session: basename(file).slice(0, 8), calls: truth.calls, bench, report, inspect, truth: gt, maxGap };
}

export function formatYardsticks(rows: readonly Yardsticks[]): string[] {
  const pct = (x: number | undefined): string => (x === undefined ? '—' : `${(100 * x).toFixed(1)}%`);
  const gaps = rows.flatMap((r) => (r.maxGap === undefined ? [] : [r.maxGap])).sort((a, b) => a - b);
  const median = gaps.length ? gaps[Math.floor(gaps.length / 2)] : undefined;
  return [
    '| session | calls | bench | report | inspect | ground truth | max gap |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.session} | ${r.calls} | ${pct(r.bench)} | ${pct(r.report)} | ${pct(r.inspect)} | ${pct(r.truth)} | ${r.maxGap === undefined ? '—' : `${r.maxGap.toFixed(2)} pts`} |`,
    ),
    '',
    `Sessions within 1 point: ${gaps.filter((g) => g <= 1).length} of ${gaps.length}; median gap ${median === undefined ? '—' : median.toFixed(2)} pts, largest ${gaps.length ? gaps[gaps.length - 1].toFixed(2) : '—'} pts.`,
  ];
}
