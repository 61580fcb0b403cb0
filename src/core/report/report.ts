/**
 * `trimline report`: every transcript under the given paths → per-session
 * rows and totals. Bad input (unreadable files, unknown formats, corrupt
 * lines) is counted and named, never fatal.
 */
import type { PipelineConfig } from '../trimming';
import { CountedKeys, type ReportCache } from './cache';
import { discover, type FoundFile } from './discover';
import { readTranscriptText } from './jobs';
import { OFFENDERS_SHOWN } from './offenders';
import { addTotals, emptyTotals } from './recorded';
import { unfinishedLastLine } from './unfinished-line';
import { reportFile } from './session-report';
import {
  COUNTERFACTUAL_NOTE,
  type Report,
  type ReportTotals,
  type SessionReport,
  type Skipped,
} from '../../protocol/report-types';

/** Strategies priced when none are named: the baseline and the default pipeline. */
export const DEFAULT_REPORT_STRATEGIES: readonly string[] = ['none', 'default'];

export interface ReportOptions {
  readonly paths: readonly string[];
  readonly strategies: readonly string[];
  readonly config: PipelineConfig;
  /** Only files written since (ms since epoch). */
  readonly sinceMs?: number;
  /** Per-file cache (path, size, mtime): a second run reads only what changed. */
  readonly cache?: ReportCache;
  /** Told after each file (for progress and cancellation: return false to stop). */
  readonly onFile?: (done: number, total: number, file: string) => boolean | void;
}

/** Totals over rows; retention is tokens sent over `none`'s on the sessions where the strategy was priced. */
export function totalsOf(
  rows: readonly SessionReport[],
  strategies: readonly string[],
  badLines: number,
): ReportTotals {
  const recorded = emptyTotals();
  let calls = 0;
  let anchored = 0;
  let anchoredSessions = 0;
  let anchoredNone = 0;
  const anchoredSt: Record<string, { inputCost: number; documentedInputCost: number }> = {};
  const loose = { sessions: 0, recordedInputCost: 0 };
  const st: Record<string, { inputCost: number; tokensSent: number; retention: number }> = {};
  const noneTokens: Record<string, number> = {};
  for (const r of rows) {
    addTotals(recorded, { ...r.recorded });
    calls += r.calls;
    if (r.fit.status === 'loose') {
      loose.sessions++;
      loose.recordedInputCost += r.recorded.inputCost;
    }
    if (r.fit.status === 'anchored' && r.strategies.none) {
      anchored += r.recorded.inputCost;
      anchoredSessions++;
      anchoredNone += r.strategies.none.inputCost;
      for (const s of strategies) {
        const v = r.strategies[s];
        if (!v) continue;
        const t = (anchoredSt[s] ??= { inputCost: 0, documentedInputCost: 0 });
        t.inputCost += v.inputCost;
        t.documentedInputCost += v.documentedInputCost ?? v.inputCost;
      }
    }
    for (const s of strategies) {
      const v = r.strategies[s];
      const none = r.strategies.none;
      if (!v || !none) continue;
      const t = (st[s] ??= { inputCost: 0, tokensSent: 0, retention: 1 });
      t.inputCost += v.inputCost;
      t.tokensSent += v.tokensSent;
      noneTokens[s] = (noneTokens[s] ?? 0) + none.tokensSent;
    }
  }
  for (const s of Object.keys(st)) st[s].retention = noneTokens[s] ? st[s].tokensSent / noneTokens[s] : 1;
  const offenders = rows
    .flatMap((r) => r.offenders)
    .sort((a, b) => b.dollars - a.dollars)
    .slice(0, OFFENDERS_SHOWN);
  const share = recorded.inputCost > 0 ? anchored / recorded.inputCost : 0;
  return {
    sessions: rows.length,
    calls,
    recorded,
    strategies: st,
    anchoredRecordedInputCost: anchored,
    anchored: { sessions: anchoredSessions, share, noneInputCost: anchoredNone, strategies: anchoredSt },
    loose,
    offenders,
    badLines,
  };
}

export interface Acc {
  rows: SessionReport[];
  skipped: Skipped[];
  badLines: number;
  counted: CountedKeys;
}

/**
 * The report of one found file, added into `acc` (bad input is counted, never thrown); from the cache when unchanged.
 */
export function addFile(
  acc: Acc,
  f: FoundFile,
  strategies: readonly string[],
  config: PipelineConfig,
  cache: ReportCache | undefined,
): void {
  const setup = reportSetup(strategies, config);
  const hit = cache?.get(f.path, f.size, f.mtimeMs, setup, acc.counted);
  if (hit) {
    for (const k of hit.keys) acc.counted.add(k);
    push(acc, f, hit);
    return;
  }
  acc.counted.added = [];
  const read = readTranscriptText(f.path);
  if ('unreadable' in read) {
    acc.skipped.push({ file: f.path, reason: read.unreadable });
    return;
  }
  const r = reportFile(f.path, read.text, acc.counted, { strategies, config });
  cache?.set(f.path, {
    size: f.size,
    mtimeMs: f.mtimeMs,
    setup,
    rows: r.rows,
    skipped: r.skipped,
    badLines: r.badLines,
    keys: acc.counted.added,
  });
  push(acc, f, r);
}

/** What the cache is keyed on besides the file: the strategies and their options. */
export function reportSetup(strategies: readonly string[], config: PipelineConfig): string {
  return JSON.stringify([strategies, config]);
}

export function push(acc: Acc, f: FoundFile, r: { rows: SessionReport[]; skipped: Skipped[]; badLines: number }): void {
  acc.rows.push(...r.rows);
  acc.skipped.push(...r.skipped);
  acc.badLines += r.badLines;
  if (r.badLines) acc.skipped.push({ file: f.path, reason: `${r.badLines} corrupt line(s) skipped` });
  // Not cached with the rows: whether the file may still be being written depends on when the report runs.
  const unfinished = unfinishedLastLine(f.path, f.mtimeMs);
  if (unfinished) acc.skipped.push(unfinished);
}

export function start(o: ReportOptions): { files: FoundFile[]; strategies: string[]; acc: Acc; searched: string[] } {
  const strategies = o.strategies.includes('none') ? [...o.strategies] : ['none', ...o.strategies];
  const found = discover(o.paths);
  const files = found.files.filter((f) => o.sinceMs === undefined || f.mtimeMs >= o.sinceMs);
  return {
    files,
    strategies,
    searched: [...o.paths],
    acc: { rows: [], skipped: [...found.skipped], badLines: 0, counted: new CountedKeys() },
  };
}

export function finish(
  acc: Acc,
  strategies: string[],
  cache: ReportCache | undefined,
  searched?: readonly string[],
): Report {
  cache?.save();
  return {
    sessions: acc.rows,
    totals: totalsOf(acc.rows, strategies, acc.badLines),
    skipped: acc.skipped,
    strategies,
    searched,
    note: COUNTERFACTUAL_NOTE,
  };
}

/** Build the report (synchronous; one file's text in memory at a time). */
export function buildReport(o: ReportOptions): Report {
  const { files, strategies, acc, searched } = start(o);
  for (let i = 0; i < files.length; i++) {
    addFile(acc, files[i], strategies, o.config, o.cache);
    if (o.onFile?.(i + 1, files.length, files[i].path) === false) break;
  }
  return finish(acc, strategies, o.cache, searched);
}

/**
 * The same, yielding to the event loop between files (an editor stays responsive; `onFile` returning false cancels).
 */
export async function buildReportAsync(o: ReportOptions): Promise<Report> {
  const { files, strategies, acc, searched } = start(o);
  for (let i = 0; i < files.length; i++) {
    addFile(acc, files[i], strategies, o.config, o.cache);
    if (o.onFile?.(i + 1, files.length, files[i].path) === false) break;
    await new Promise((r) => setImmediate(r));
  }
  return finish(acc, strategies, o.cache, searched);
}
