/** `trimline report [PATH…] [options]` (options: commands.ts); bad paths and outputs are refused before any work. */
import { accessSync, constants, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import {
  buildReport,
  buildReportParallel,
  DEFAULT_REPORT_STRATEGIES,
  type Report,
  type ReportOptions,
  defaultCacheFile,
  defaultProjectsDir,
  formatReport,
  holdsTranscript,
  ReportCache,
  reportHtml,
} from '../core/report';
import { discover } from '../core/report/discover';
import { DAY_MS, inRange, localDay, parseBy, parseTimeZone } from './report-range';
import { explainFile, formatExplained } from '../core/report/explain';
import { jsonTerminalSafe, terminalSafe, terminalSafeLine } from '../protocol/safe-text';
import { errCode, loadConfig, UsageError } from './common';
import { parseCommand } from './args';
import { REPORT_COMMAND } from './commands';

/** `--since` as ms since epoch: an ISO date or date-time (or YYYYMMDD, as ccusage takes it). */
export function parseSince(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const t = Date.parse(/^\d{8}$/.test(v) ? `${v.slice(0, 4)}-${v.slice(4, 6)}-${v.slice(6)}` : v);
  if (!Number.isFinite(t)) throw new UsageError(`report: --since must be a date like 2026-01-31 (got "${v}")`);
  return t;
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
  if (!Number.isInteger(n) || n < 0) {
    throw new UsageError(`report: --workers must be a whole number ≥ 0 (got "${v}")`);
  }
  return n;
}

/**
 * The report in worker threads when there is a worker script (see buildReportParallel for when it uses them); else in
 * this thread.
 */
export async function reportWithWorkers(
  o: ReportOptions,
  workers: number | undefined,
  script = reportWorkerScript(),
): Promise<Report> {
  return script ? buildReportParallel({ ...o, workerScript: script, workers }) : buildReport(o);
}

/** The report's inputs, refused before any work: a path that does not exist, or paths that hold no session. */
export function checkReportPaths(paths: readonly string[], named: boolean): void {
  for (const p of paths) {
    if (!existsSync(p)) {
      const hint = named ? '' : " (the default: Claude Code's sessions; name a PATH to report on)";
      throw new UsageError(`report: ${p}: no such file or directory${hint}`);
    }
  }
  if (!paths.some((p) => statSync(p).isFile() || holdsTranscript(p))) {
    const looked = 'looked for Claude Code .jsonl, Cline api_conversation_history.json, .traj';
    throw new UsageError(`report: no sessions found in ${paths.join(', ')} (${looked})`);
  }
}

/** `--html FILE` refused before any work when FILE cannot be written (no such directory, not writable, a directory). */
export function checkWritable(file: string, option: string): void {
  const dir = dirname(resolve(file));
  let problem: string | undefined;
  if (!existsSync(dir) || !statSync(dir).isDirectory()) problem = `directory ${dir} does not exist`;
  else if (existsSync(file) && statSync(file).isDirectory()) problem = 'it is a directory';
  else {
    try {
      accessSync(existsSync(file) ? file : dir, constants.W_OK);
    } catch {
      problem = existsSync(file) ? 'it is not writable' : `directory ${dir} is not writable`;
    }
  }
  if (problem) throw new UsageError(`report: ${option} ${file}: cannot write there: ${problem}`);
}

/** `trimline report`'s command line parsed and its paths checked (usage errors thrown as {@link UsageError}). */
export function parseReportArgs(argv: readonly string[]) {
  const { values, positionals } = parseCommand(REPORT_COMMAND, argv);
  const paths = positionals.length ? positionals : [defaultProjectsDir()];
  const since = parseSince(values.since);
  // Files picked by when they were written, a day early; rows are then kept by the local dates of their calls.
  const sinceMs = since === undefined ? undefined : since - DAY_MS;
  const workers = parseWorkers(values.workers);
  const config = loadConfig(values.config);
  if (values.html !== undefined) checkWritable(values.html, '--html');
  checkReportPaths(paths, positionals.length > 0);
  const options: ReportOptions = {
    paths,
    cache: values['no-cache'] ? undefined : new ReportCache(values.cache ?? defaultCacheFile()),
    strategies: reportStrategies(values.strategy),
    config,
    sinceMs,
  };
  const dates = { since: localDay('since', values.since), until: localDay('until', values.until) };
  const range = { by: parseBy(values.by), timezone: parseTimeZone(values.timezone), ...dates };
  return { values, options, range, workers };
}

export async function runReportCli(
  argv: string[],
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
): Promise<number> {
  const { values, options, range, workers } = parseReportArgs(argv);
  if (values.explain !== undefined) return explainCli(values.explain, options.paths, out, err);
  const interactive = !values.json && !values.quiet && (err as { isTTY?: boolean }).isTTY === true;
  const cache = options.cache;
  const built = await reportWithWorkers(
    {
      ...options,
      onFile: interactive ? (done, total) => void err.write(`\rtrimline report: ${done}/${total} files`) : undefined,
    },
    workers,
  );
  const report = inRange(built, range);
  if (interactive)
    err.write(`\n${cache?.hits ? `trimline report: ${cache.hits} unchanged file(s) from the cache\n` : ''}`);
  if (values.html) {
    try {
      writeFileSync(values.html, reportHtml(report, { timezone: range.timezone }));
    } catch (e) {
      throw new UsageError(`report: --html ${values.html}: cannot write: ${errCode(e)}`);
    }
    if (!values.json) err.write(`trimline report: wrote ${terminalSafeLine(values.html)}\n`);
  }
  // Paths, models and tool names come from the transcripts: printed through the sanitizer.
  const text = (): string => terminalSafe(formatReport(report, existsSync, { timezone: range.timezone }));
  out.write((values.json ? jsonTerminalSafe(JSON.stringify(report, null, 2)) : text()) + '\n');
  return 0;
}

/**
 * `--explain SESSION`: the calls of the sessions whose id (or file name) starts with SESSION, recorded against
 * simulated.
 */
function explainCli(
  session: string,
  paths: readonly string[],
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream,
): number {
  if (!session.trim()) throw new UsageError('report: --explain needs a session id or a file name');
  const found = discover(paths).files;
  const shown = found.flatMap((f) => {
    const text = readFileSync(f.path, 'utf8');
    return f.path.includes(session) || text.includes(session) ? explainFile(f.path, text, session) : [];
  });
  if (!shown.length) {
    err.write(
      `trimline report: no session matching "${terminalSafeLine(session)}" under ` +
        `${terminalSafeLine(paths.join(', '))}\n`,
    );
    return 1;
  }
  out.write(terminalSafe(shown.map(formatExplained).join('\n\n')) + '\n');
  return 0;
}
