/** `trimline report [PATH…] [--strategy S…] [--since DATE] [--json] [--html FILE]`. */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { buildReport, DEFAULT_REPORT_STRATEGIES, defaultCacheFile, defaultProjectsDir, formatReport, ReportCache, reportHtml } from '../core/report';
import { loadConfig, UsageError } from './common';

export const REPORT_USAGE = 'trimline report [PATH…] [--strategy S…] [--since DATE] [--json] [--html FILE] [--config F] [--cache FILE | --no-cache]';

/** `--since` as ms since epoch: an ISO date or date-time. */
export function parseSince(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const t = Date.parse(v);
  if (!Number.isFinite(t)) throw new UsageError(`report: --since must be a date like 2026-01-31 (got "${v}")`);
  return t;
}

/** Strategies from repeated or comma-free `--strategy` values; `none` and `default` when none named. */
export function reportStrategies(values: readonly string[] | undefined): string[] {
  const named = (values ?? []).map((s) => s.trim()).filter(Boolean);
  const all = [...DEFAULT_REPORT_STRATEGIES, ...named];
  return [...new Set(all)];
}

export function runReportCli(argv: string[], out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      strategy: { type: 'string', short: 's', multiple: true },
      since: { type: 'string' },
      json: { type: 'boolean' },
      html: { type: 'string' },
      config: { type: 'string', short: 'c' },
      quiet: { type: 'boolean', short: 'q' },
      cache: { type: 'string' },
      'no-cache': { type: 'boolean' },
    },
  });
  const paths = positionals.length ? positionals : [defaultProjectsDir()];
  const interactive = !values.json && !values.quiet && (err as { isTTY?: boolean }).isTTY === true;
  const cache = values['no-cache'] ? undefined : new ReportCache(values.cache ?? defaultCacheFile());
  const report = buildReport({
    paths,
    cache,
    strategies: reportStrategies(values.strategy),
    config: loadConfig(values.config),
    sinceMs: parseSince(values.since),
    onFile: interactive ? (done, total) => void err.write(`\rtrimline report: ${done}/${total} files`) : undefined,
  });
  if (interactive) err.write(`\n${cache?.hits ? `trimline report: ${cache.hits} unchanged file(s) from the cache\n` : ''}`);
  if (values.html) {
    writeFileSync(values.html, reportHtml(report));
    if (!values.json) err.write(`trimline report: wrote ${values.html}\n`);
  }
  out.write((values.json ? JSON.stringify(report, null, 2) : formatReport(report)) + '\n');
  return 0;
}
