/**
 * `trimline report --since/--until/--by/--timezone`: the local dates and the zone the command line names,
 * and the report cut to them (rows with a call in the range, their totals, the periods asked for).
 */
import { totalsOf } from '../core/report/report';
import type { Report } from '../protocol/report-types';
import { dateFormat, isTimeZone, localDate, localTimeZone, PERIOD_KINDS, withPeriods } from '../views/report-periods';
import type { PeriodKind } from '../views/report-periods';
import { UsageError } from './common';

export const DAY_MS = 86_400_000;

/** A `--since`/`--until` date as the local date `YYYY-MM-DD` it names (also YYYYMMDD; a date-time keeps its day). */
export function localDay(flag: string, v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  const m = /^(\d{4})-?(\d{2})-?(\d{2})(?:$|T)/.exec(v);
  if (!m || !Number.isFinite(Date.parse(`${m[1]}-${m[2]}-${m[3]}`))) {
    throw new UsageError(`report: --${flag} must be a date like 2026-01-31 (got "${v}")`);
  }
  return `${m[1]}-${m[2]}-${m[3]}`;
}

/** `--by`: day, week or month. */
export function parseBy(v: string | undefined): PeriodKind | undefined {
  if (v === undefined) return undefined;
  const k = PERIOD_KINDS.find((p) => p === v);
  if (!k) throw new UsageError(`report: --by must be day, week or month (got "${v}")`);
  return k;
}

/** `--timezone`: an IANA zone Intl knows (e.g. Europe/Paris, UTC); the system's when not given. */
export function parseTimeZone(v: string | undefined): string {
  if (v === undefined) return localTimeZone();
  if (!isTimeZone(v)) {
    throw new UsageError(`report: --timezone must be an IANA time zone like Europe/Paris or UTC (got "${v}")`);
  }
  return v;
}

/** The rows with a call from `since` to `until` (local dates, inclusive), their totals, and the periods of `--by`. */
export function inRange(rep: Report, o: { by?: PeriodKind; timezone: string; since?: string; until?: string }): Report {
  const fmt = dateFormat(o.timezone);
  const within = (r: Report['sessions'][number]): boolean => {
    if (!o.since && !o.until) return true;
    const days = (r.slots ?? []).map((s) => localDate(Date.parse(s.start), fmt));
    if (!days.length) return !o.until && r.firstTimestamp === undefined;
    return days.some((d) => (!o.since || d >= o.since) && (!o.until || d <= o.until));
  };
  const sessions = rep.sessions.filter(within);
  const totals = (): Report['totals'] => totalsOf(sessions, rep.strategies, rep.totals.badLines);
  const kept = sessions.length === rep.sessions.length ? rep : { ...rep, sessions, totals: totals() };
  return o.by ? withPeriods(kept, { by: o.by, timezone: o.timezone, since: o.since, until: o.until }) : kept;
}
