/** `trimline report [PATH…] [--strategy S…] [--since DATE] [--json] [--html FILE]`. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildReport, buildReportParallel, DEFAULT_REPORT_STRATEGIES, type Report, type ReportOptions, defaultCacheFile, defaultProjectsDir, formatReport, ReportCache, reportHtml } from '../core/report';
import { discover } from '../core/report/discover';
import { totalsOf } from '../core/report/report';
import { dateFormat, isTimeZone, localDate, localTimeZone, PERIOD_KINDS, type PeriodKind, withPeriods } from '../views/report-periods';
import { explainFile, formatExplained } from '../core/report/explain';
import { jsonTerminalSafe, terminalSafe, terminalSafeLine } from '../protocol/safe-text';
import { loadConfig, UsageError } from './common';

export const REPORT_USAGE = 'trimline report [PATH…] [--strategy S…] [--since DATE] [--until DATE] [--by day|week|month] [--timezone TZ] [--json] [--html FILE] [--config F] [--cache FILE | --no-cache] [--workers N] [--explain SESSION]';

/** `--since` as ms since epoch: an ISO date or date-time (or YYYYMMDD, as ccusage takes it). */
export function parseSince(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const t = Date.parse(/^\d{8}$/.test(v) ? `${v.slice(0, 4)}-${v.slice(4, 6)}-${v.slice(6)}` : v);
  if (!Number.isFinite(t)) throw new UsageError(`report: --since must be a date like 2026-01-31 (got "${v}")`);
  return t;
}

/** A `--since`/`--until` date as the local date `YYYY-MM-DD` it names (YYYYMMDD accepted); date-times keep their day. */
export function localDay(flag: string, v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  const m = /^(\d{4})-?(\d{2})-?(\d{2})(?:$|T)/.exec(v);
  if (!m || !Number.isFinite(Date.parse(`${m[1]}-${m[2]}-${m[3]}`))) throw new UsageError(`report: --${flag} must be a date like 2026-01-31 (got "${v}")`);
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
  if (!isTimeZone(v)) throw new UsageError(`report: --timezone must be an IANA time zone like Europe/Paris or UTC (got "${v}")`);
  return v;
}

/** Strategies from repeated or comma-free `--strategy` values; `none` and `default` when none named. */
export function reportStrategies(values: readonly string[] | undefined): string[] {
  const named = (values ?? []).map((s) => s.trim()).filter(Boolean);
  const all = [...DEFAULT_REPORT_STRATEGIES, ...named];
  return [...new Set(all)];
}

/** The worker thread script beside the CLI bundle (dist/report-worker.js); undefined when running from sources. */
export function reportWorkerScript(dir: string = __dirname): string | undefined {
  const script = join(dir, 'report-worker.js');
  return existsSync(script) ? script : undefined;
}

/** `--workers`: a whole number ≥ 0 (0: in this thread); undefined: decided by the input's size. */
export function parseWorkers(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`report: --workers must be a whole number ≥ 0 (got "${v}")`);
  return n;
}

/** The report in worker threads when there is a worker script (see buildReportParallel for when it uses them); else in this thread. */
export async function reportWithWorkers(o: ReportOptions, workers: number | undefined, script = reportWorkerScript()): Promise<Report> {
  return script ? buildReportParallel({ ...o, workerScript: script, workers }) : buildReport(o);
}

const DAY_MS = 86_400_000;

/** The rows with a call between `since` and `until` (local dates, inclusive), their totals, and the periods `--by` asks for. */
export function inRange(rep: Report, o: { by?: PeriodKind; timezone: string; since?: string; until?: string }): Report {
  const fmt = dateFormat(o.timezone);
  const within = (r: Report['sessions'][number]): boolean => {
    if (!o.since && !o.until) return true;
    const days = (r.slots ?? []).map((s) => localDate(Date.parse(s.start), fmt));
    if (!days.length) return !o.until && r.firstTimestamp === undefined;
    return days.some((d) => (!o.since || d >= o.since) && (!o.until || d <= o.until));
  };
  const sessions = rep.sessions.filter(within);
  const kept = sessions.length === rep.sessions.length ? rep : { ...rep, sessions, totals: totalsOf(sessions, rep.strategies, rep.totals.badLines) };
  return o.by ? withPeriods(kept, { by: o.by, timezone: o.timezone, since: o.since, until: o.until }) : kept;
}

/** `trimline report`'s command line parsed (usage errors thrown as {@link UsageError}). */
export function parseReportArgs(argv: readonly string[]) {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      strategy: { type: 'string', short: 's', multiple: true },
      since: { type: 'string' },
      until: { type: 'string' },
      by: { type: 'string' },
      timezone: { type: 'string' },
      json: { type: 'boolean' },
      html: { type: 'string' },
      config: { type: 'string', short: 'c' },
      quiet: { type: 'boolean', short: 'q' },
      cache: { type: 'string' },
      'no-cache': { type: 'boolean' },
      workers: { type: 'string' },
      explain: { type: 'string' },
    },
  });
  const since = parseSince(values.since);
  const options: ReportOptions = {
    paths: positionals.length ? positionals : [defaultProjectsDir()],
    cache: values['no-cache'] ? undefined : new ReportCache(values.cache ?? defaultCacheFile()),
    strategies: reportStrategies(values.strategy),
    config: loadConfig(values.config),
    // Files are picked by when they were written, a day early: the rows are then kept by the local date of their calls.
    sinceMs: since === undefined ? undefined : since - DAY_MS,
  };
  const range = { by: parseBy(values.by), timezone: parseTimeZone(values.timezone), since: localDay('since', values.since), until: localDay('until', values.until) };
  return { values, options, range, workers: parseWorkers(values.workers) };
}

export async function runReportCli(argv: string[], out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  const { values, options, range, workers } = parseReportArgs(argv);
  if (values.explain !== undefined) return explainCli(values.explain, options.paths, out, err);
  const interactive = !values.json && !values.quiet && (err as { isTTY?: boolean }).isTTY === true;
  const cache = options.cache;
  const built = await reportWithWorkers(
    { ...options, onFile: interactive ? (done, total) => void err.write(`\rtrimline report: ${done}/${total} files`) : undefined },
    workers,
  );
  const report = inRange(built, range);
  if (interactive) err.write(`\n${cache?.hits ? `trimline report: ${cache.hits} unchanged file(s) from the cache\n` : ''}`);
  if (values.html) {
    writeFileSync(values.html, reportHtml(report, { timezone: range.timezone }));
    if (!values.json) err.write(`trimline report: wrote ${terminalSafeLine(values.html)}\n`);
  }
  // Paths, models and tool names come from the transcripts: printed through the sanitizer.
  out.write((values.json ? jsonTerminalSafe(JSON.stringify(report, null, 2)) : terminalSafe(formatReport(report, existsSync, { timezone: range.timezone }))) + '\n');
  return 0;
}

/** `--explain SESSION`: the calls of the sessions whose id (or file name) starts with SESSION, recorded against simulated. */
function explainCli(session: string, paths: readonly string[], out: NodeJS.WritableStream, err: NodeJS.WritableStream): number {
  if (!session.trim()) throw new UsageError('report: --explain needs a session id or a file name');
  const found = discover(paths).files;
  const shown = found.flatMap((f) => {
    const text = readFileSync(f.path, 'utf8');
    return f.path.includes(session) || text.includes(session) ? explainFile(f.path, text, session) : [];
  });
  if (!shown.length) {
    err.write(`trimline report: no session matching "${terminalSafeLine(session)}" under ${terminalSafeLine(paths.join(', '))}\n`);
    return 1;
  }
  out.write(terminalSafe(shown.map(formatExplained).join('\n\n')) + '\n');
  return 0;
}
