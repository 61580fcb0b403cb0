/**
 * `trimline report` (the built CLI) relaunched with the report's V8 flags: the same output and exit, from a second
 * process that has the flags.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPORT_V8_FLAGS } from '../../src/core/report';

const CLI = resolve('dist/cli.js');
const SESSIONS = resolve('test/fixtures/transcripts/m-claude');

/**
 * Runs the CLI with a preload that logs each process's node options, one JSON line per process (worker threads load it
 * too: skipped).
 */
function run(args: string[], env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'trimline-relaunch-'));
  const log = join(dir, 'processes.jsonl');
  const probe = join(dir, 'probe.js');
  writeFileSync(
    probe,
    `if (require('worker_threads').isMainThread) require('fs').appendFileSync(${JSON.stringify(log)}, JSON.stringify(process.execArgv) + '\\n');`,
  );
  writeFileSync(log, '');
  const r = spawnSync(process.execPath, [CLI, 'report', ...args], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, NODE_OPTIONS: `--require ${probe}`, ...env },
  });
  const processes = readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as string[]);
  return { ...r, processes };
}

describe('trimline report relaunch', () => {
  it('gives the same report from a relaunched process that runs with the flags', () => {
    const args = [SESSIONS, '--no-cache', '--workers', '2', '--json'];
    const here = run(args, { TRIMLINE_RELAUNCH_MIN_BYTES: '1000000000000' });
    const again = run(args, { TRIMLINE_RELAUNCH_MIN_BYTES: '0' });
    expect(here.status).toBe(0);
    expect(again.status).toBe(0);
    expect(here.processes).toEqual([[]]);
    expect(again.processes).toEqual([[], [...REPORT_V8_FLAGS]]);
    expect(again.stdout).toBe(here.stdout);
    expect(JSON.parse(again.stdout).sessions.length).toBeGreaterThan(5);
  });

  it('answers with the relaunched process exit code and message', () => {
    // An unknown strategy is found by the report itself, after the relaunch.
    const args = [SESSIONS, '--no-cache', '--workers', '2', '--strategy', 'no-such-strategy'];
    const here = run(args, { TRIMLINE_RELAUNCH_MIN_BYTES: '1000000000000' });
    const again = run(args, { TRIMLINE_RELAUNCH_MIN_BYTES: '0' });
    expect(again.processes).toHaveLength(2);
    expect(here.status).not.toBe(0);
    expect(again.status).toBe(here.status);
    expect(again.stderr).toBe(here.stderr);
  });

  it('refuses an output it cannot write before relaunching (no second process, no work)', () => {
    const r = run(
      [SESSIONS, '--no-cache', '--workers', '2', '--html', join(tmpdir(), 'no-such-dir-trimline', 'r.html')],
      { TRIMLINE_RELAUNCH_MIN_BYTES: '0' },
    );
    expect(r.processes).toHaveLength(1);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^trimline: report: --html .*r\.html: cannot write there: directory .* does not exist\n$/);
  });
});
