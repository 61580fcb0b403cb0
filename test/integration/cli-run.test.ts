/** `trimline run` as a user meets it: exit codes, one-line errors, approvals, Ctrl-C. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { journalPath, loadJournal } from '../../src/core/store';
import { faults, startTestServer, type TestServer } from '../../src/dev/server';
import { buildCli, runCli, waitFor } from './cli';

let bundle: string;
let server: TestServer;
let workspace: string;

beforeAll(async () => {
  bundle = buildCli();
  server = await startTestServer({ fallback: 'fail' });
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'trimline-cli-run-'));
});

afterAll(async () => {
  await server?.close();
  if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
});

/** Run with an explicit environment (no ANTHROPIC_* unless given). */
function runWithEnv(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bundle, 'run', ...args], {
      cwd: workspace,
      env: { PATH: process.env.PATH ?? '', HOME: workspace, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b));
    child.stderr.on('data', (b: Buffer) => (stderr += b));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('trimline run', () => {
  it('exits 2 with one line when there is no way to reach a model', async () => {
    const r = await runWithEnv(['hello', '--workspace', workspace], {});
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^trimline: run: no API key: set ANTHROPIC_API_KEY .* ANTHROPIC_BASE_URL/),
    ]);
  });

  it('exits 2 on usage errors, each in one line', async () => {
    const env = { ANTHROPIC_BASE_URL: server.url };
    for (const [args, msg] of [
      [['x', '--session', 'a', '--resume', 'b', '--workspace', workspace], /exclusive/],
      [['x', '--strategy', 'nope', '--workspace', workspace], /unknown strategy "nope"/],
      [['x', '--resume', 'missing-session', '--workspace', workspace], /no session "missing-session"/],
      [['x', '--workspace', path.join(workspace, 'no-such-dir')], /is not a directory/],
      [['--workspace', workspace], /missing "<prompt>"/],
      [['x', '--bogus', '--workspace', workspace], /unknown option --bogus; see `trimline run --help`/],
      [['x', '--session', '../escape', '--workspace', workspace], /invalid session id/],
    ] as const) {
      const r = await runWithEnv([...args], env);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(msg);
    }
  });

  it('exits 1 with "API key missing or invalid" on a 401', async () => {
    const strict = await startTestServer({ apiKey: 'right' });
    try {
      const r = await runWithEnv(['hello', '--workspace', workspace], {
        ANTHROPIC_BASE_URL: strict.url,
        ANTHROPIC_API_KEY: 'wrong',
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/error: API key missing or invalid \(invalid x-api-key\): set ANTHROPIC_API_KEY/);
    } finally {
      await strict.close();
    }
  });

  it('denies run_command without --approve-commands when stdin is not a terminal', async () => {
    server.script(
      {
        content: [
          { type: 'text', text: 'Running it.' },
          { type: 'tool_use', name: 'run_command', input: { command: 'touch ran.txt' } },
        ],
      },
      { content: [{ type: 'text', text: 'It was denied.' }] },
    );
    const r = await runWithEnv(['please run', '--workspace', workspace, '--session', 'deny'], {
      ANTHROPIC_BASE_URL: server.url,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/→ run_command \$ touch ran.txt\n {2}✗ denied by user/);
    expect(r.stderr).toMatch(/run_command denied \(no terminal to ask; pass --approve-commands/);
    expect(fs.existsSync(path.join(workspace, 'ran.txt'))).toBe(false);
    expect(r.stdout).toMatch(
      /tokens: input \d+, cache write \d+, cache read \d+, output \d+ \(2 calls\) · cost \$[\d.]+ this run/,
    );
  });

  it('Ctrl-C cancels the turn: exit 130, the partial answer journaled as interrupted', async () => {
    server.fault(faults.slow(30));
    server.script({ content: [{ type: 'text', text: 'A long and slow answer. '.repeat(60) }] });
    const run = runCli(bundle, ['talk slowly', '--workspace', workspace, '--session', 'sigint'], server.url, workspace);
    await waitFor(() => run.stdout().length > 40, 20_000, 'streamed text');
    run.child.kill('SIGINT');
    const { code } = await run.exited;
    expect(code).toBe(130);
    expect(run.stderr()).toMatch(/cancelled; the session is saved and valid/);
    const { session } = loadJournal(journalPath(path.join(workspace, '.trimline', 'sessions'), 'sigint'));
    expect(session.messages.map((m) => [m.role, m.meta.interrupted ?? false])).toEqual([
      ['user', false],
      ['assistant', true],
    ]);
  });
});
