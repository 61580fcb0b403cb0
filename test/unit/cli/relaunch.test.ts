/** When `trimline report` relaunches itself with the report's V8 flags (src/cli/relaunch.ts). */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RELAUNCHED_ENV, relaunchReport, reportRelaunchArgs, type RelaunchContext } from '../../../src/cli/relaunch';
import { reportStrategies } from '../../../src/cli/report';
import { buildReport, REPORT_V8_FLAGS, ReportCache } from '../../../src/core/report';

const SESSIONS = resolve('test/fixtures/transcripts/m-claude');
const ctx = (over: Partial<RelaunchContext> = {}): RelaunchContext => ({
  env: { TRIMLINE_RELAUNCH_MIN_BYTES: '0' },
  execArgv: ['--enable-source-maps'],
  script: '/opt/trimline/dist/cli.js',
  workerScript: '/opt/trimline/dist/report-worker.js',
  ...over,
});

describe('report relaunch', () => {
  it('relaunches with the flags, this process options, the script and the same arguments when workers will read enough', () => {
    const argv = [SESSIONS, '--no-cache', '--workers', '2', '--json'];
    expect(reportRelaunchArgs(argv, ctx())).toEqual([
      ...REPORT_V8_FLAGS,
      '--enable-source-maps',
      '/opt/trimline/dist/cli.js',
      'report',
      ...argv,
    ]);
  });

  it('runs here when already relaunched, already flagged, without a worker script, under a debugger, or in one thread', () => {
    const argv = [SESSIONS, '--no-cache', '--workers', '2'];
    expect(
      reportRelaunchArgs(argv, ctx({ env: { TRIMLINE_RELAUNCH_MIN_BYTES: '0', [RELAUNCHED_ENV]: '1' } })),
    ).toBeUndefined();
    expect(reportRelaunchArgs(argv, ctx({ execArgv: [...REPORT_V8_FLAGS] }))).toBeUndefined();
    expect(reportRelaunchArgs(argv, ctx({ workerScript: undefined }))).toBeUndefined();
    expect(reportRelaunchArgs(argv, ctx({ execArgv: ['--inspect-brk=9229'] }))).toBeUndefined();
    expect(reportRelaunchArgs([SESSIONS, '--no-cache', '--workers', '0'], ctx())).toBeUndefined();
    expect(reportRelaunchArgs([SESSIONS, '--no-cache', '--workers', '1'], ctx())).toBeUndefined();
  });

  it('runs here below the byte threshold (the default one for a few MB of sessions) and on a usage error', () => {
    const argv = [SESSIONS, '--no-cache', '--workers', '2'];
    expect(reportRelaunchArgs(argv, ctx({ env: {} }))).toBeUndefined();
    expect(reportRelaunchArgs(argv, ctx({ env: { TRIMLINE_RELAUNCH_MIN_BYTES: '100000000' } }))).toBeUndefined();
    expect(reportRelaunchArgs([SESSIONS, '--workers', 'two'], ctx())).toBeUndefined();
    expect(reportRelaunchArgs([SESSIONS, '--since', 'yesterday'], ctx())).toBeUndefined();
  });

  it('counts only what the cache will not answer', () => {
    const dir = mkdtempSync(join(tmpdir(), 'trimline-relaunch-'));
    const cacheFile = join(dir, 'cache.json');
    const cache = new ReportCache(cacheFile);
    buildReport({ paths: [SESSIONS], strategies: reportStrategies(undefined), config: {}, cache });
    const argv = [SESSIONS, '--cache', cacheFile, '--workers', '2'];
    // Every file cached: nothing for the workers. The same with 1 byte to read: relaunched.
    expect(reportRelaunchArgs(argv, ctx({ env: { TRIMLINE_RELAUNCH_MIN_BYTES: '1' } }))).toBeUndefined();
    writeFileSync(cacheFile, '{}');
    expect(reportRelaunchArgs(argv, ctx({ env: { TRIMLINE_RELAUNCH_MIN_BYTES: '1' } }))).toBeDefined();
  }, 60_000); // a whole report of m-claude: seconds on a quiet machine, more on a shared one

  it('runs here when the node it starts does not know a flag (exit code 9: a bad option)', () => {
    const real = ctx({
      script: resolve('dist/cli.js'),
      execArgv: [],
      env: { ...process.env, TRIMLINE_RELAUNCH_MIN_BYTES: '0' },
    });
    expect(
      relaunchReport([SESSIONS, '--no-cache', '--workers', '2', '--json'], real, ['--no-such-v8-flag-for-trimline']),
    ).toBeUndefined();
  });
});
