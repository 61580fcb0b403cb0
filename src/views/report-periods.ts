/**
 * `trimline report --by day|week|month`: recorded usage per period in a time zone, grouped from each row's
 * 15-minute UTC slots the way ccusage's `daily` groups messages (the local date of each response's
 * timestamp, in the given time zone, else the system's). Pure, Intl only (bundled into the report webview).
 */
import type { PeriodReport, PeriodTotals, Report, SessionReport } from '../protocol/report-types';

export type PeriodKind = PeriodReport['by'];
export const PERIOD_KINDS: readonly PeriodKind[] = ['day', 'week', 'month'];

/** The system's IANA time zone (what Intl picks when none is named). */
export function localTimeZone(): string {
  return new Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** True when Intl knows the zone. */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-CA', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** `YYYY-MM-DD`: the local date of an instant in a time zone (en-CA formats dates that way, as ccusage does). */
export function localDate(ms: number, fmt: Intl.DateTimeFormat): string {
  return fmt.format(new Date(ms));
}

export function dateFormat(tz: string): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' });
}

/** The period a local date falls in: itself, the Monday of its week, or its month. */
export function periodOf(date: string, by: PeriodKind): string {
  if (by === 'day') return date;
  if (by === 'month') return date.slice(0, 7);
  const [y, m, d] = date.split('-').map(Number);
  const t = new Date(Date.UTC(y, m - 1, d));
  t.setUTCDate(t.getUTCDate() - ((t.getUTCDay() + 6) % 7));
  return t.toISOString().slice(0, 10);
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function emptyPeriod(period: string): Mutable<PeriodTotals> & { strategies: Record<string, number> } {
  const tokens = { inputTokens: 0, outputTokens: 0, cacheCreationTokens: 0, cacheReadTokens: 0, totalTokens: 0 };
  return { period, sessions: 0, calls: 0, ...tokens, totalCost: 0, inputCost: 0, strategies: {} };
}

export interface PeriodOptions {
  readonly by: PeriodKind;
  /** IANA zone; the system's when undefined. */
  readonly timezone?: string;
  /** Local dates `YYYY-MM-DD`, inclusive: calls outside are left out. */
  readonly since?: string;
  readonly until?: string;
}

/** The periods of a report's rows, oldest first. */
export function periodTotals(
  sessions: readonly SessionReport[],
  strategies: readonly string[],
  o: PeriodOptions,
): PeriodReport {
  const timezone = o.timezone ?? localTimeZone();
  const fmt = dateFormat(timezone);
  const out = new Map<string, ReturnType<typeof emptyPeriod>>();
  for (const r of sessions) {
    const seen = new Set<string>();
    for (const s of r.slots ?? []) {
      const date = localDate(Date.parse(s.start), fmt);
      if ((o.since && date < o.since) || (o.until && date > o.until)) continue;
      const key = periodOf(date, o.by);
      let p = out.get(key);
      if (!p) out.set(key, (p = emptyPeriod(key)));
      if (!seen.has(key)) p.sessions++;
      seen.add(key);
      p.calls += s.calls;
      p.inputTokens += s.inputTokens;
      p.outputTokens += s.outputTokens;
      p.cacheCreationTokens += s.cacheWriteTokens;
      p.cacheReadTokens += s.cacheReadTokens;
      p.totalTokens += s.inputTokens + s.outputTokens + s.cacheWriteTokens + s.cacheReadTokens;
      p.totalCost += s.inputCost + s.outputCost;
      p.inputCost += s.inputCost;
      // A strategy is priced per session: spread over the session's slots by their recorded input-side cost.
      const share = r.recorded.inputCost > 0 ? s.inputCost / r.recorded.inputCost : 0;
      for (const name of strategies) {
        const v = r.strategies[name];
        if (v) p.strategies[name] = (p.strategies[name] ?? 0) + share * v.inputCost;
      }
    }
  }
  const rows = [...out.values()].sort((a, b) => (a.period < b.period ? -1 : a.period > b.period ? 1 : 0));
  return { by: o.by, timezone, rows };
}

/** The report with its periods attached (what `--by` prints and `--json` carries). */
export function withPeriods(rep: Report, o: PeriodOptions): Report {
  return { ...rep, periods: periodTotals(rep.sessions, rep.strategies, o) };
}

function tokens(n: number): string {
  return n.toLocaleString('en-US');
}

function usd(n: number): string {
  const a = Math.abs(n);
  const v = a < 0.005 ? '$0' : a < 100 ? `$${a.toFixed(2)}` : `$${Math.round(a).toLocaleString('en-US')}`;
  return n < 0 && v !== '$0' ? `−${v}` : v;
}

/** The period table's cells (header first, then one row per period, then the total), for the text and the HTML. */
export function periodCells(p: PeriodReport, strategies: readonly string[]): string[][] {
  const others = strategies.filter((s) => s !== 'none');
  const head = [p.by, 'sessions', 'calls', 'input', 'output', 'cache write', 'cache read', 'recorded cost', 'none'];
  for (const s of others) head.push(s, 'saving');
  const row = (label: string, r: Omit<PeriodTotals, 'period'>): string[] => {
    const none = r.strategies.none;
    const counts = [r.inputTokens, r.outputTokens, r.cacheCreationTokens, r.cacheReadTokens].map(tokens);
    const noneCell = none !== undefined ? usd(none) : '—';
    const cells = [label, String(r.sessions), String(r.calls), ...counts, usd(r.totalCost), noneCell];
    for (const s of others) {
      const v = r.strategies[s];
      cells.push(v !== undefined ? usd(v) : '—', v !== undefined && none ? usd(none - v) : '—');
    }
    return cells;
  };
  const total = emptyPeriod('TOTAL');
  for (const r of p.rows) {
    const summed = ['calls', 'inputTokens', 'outputTokens', 'cacheCreationTokens', 'cacheReadTokens'] as const;
    for (const k of [...summed, 'totalTokens', 'totalCost', 'inputCost'] as const) total[k] += r[k];
    for (const [s, v] of Object.entries(r.strategies)) total.strategies[s] = (total.strategies[s] ?? 0) + v;
  }
  total.sessions = NaN;
  const totalCells = row('TOTAL', total);
  totalCells[1] = '';
  return [head, ...p.rows.map((r) => row(r.period, r)), totalCells];
}
