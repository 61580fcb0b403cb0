/**
 * One CLI voice, as users meet it in the built bundle (dist/cli.js): every command answers an
 * unknown flag the same way, explains every flag in --help, refuses bad paths and outputs before
 * any work with one line and exit 2; the proxy's banner says what it runs with; `npm start`'s
 * demo honours PORT; `trimline statusline` prints its one line from a transcript.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands';

const CLI = resolve('dist/cli.js');
const REPORT_FIXTURES = resolve('test/fixtures/report');
const CC_SESSION = resolve('test/fixtures/claude-code/trailing-whitespace-2.1.332.jsonl');

function cli(args: string[], o: { env?: Record<string, string>; input?: string } = {}) {
  return spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    input: o.input ?? '',
    env: { ...process.env, ...o.env },
  });
}

/** One line on stderr, exit 2, no stack trace. */
function refused(r: ReturnType<typeof cli>): string {
  expect(r.status, r.stderr).toBe(2);
  const lines = r.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s+at |internal error/);
  return lines[0];
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

/** Start a long-running command; resolves with its stdout once `pattern` appeared in it. */
function started(
  args: string[],
  env: Record<string, string>,
  pattern: RegExp,
): Promise<{ child: ChildProcess; out: () => string }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  return new Promise((ok, fail) => {
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString('utf8');
      if (pattern.test(out)) ok({ child, out: () => out });
    });
    child.stderr!.on('data', (b: Buffer) => (err += b.toString('utf8')));
    child.on('exit', (code) => fail(new Error(`exited ${code} before ${pattern}: ${out}${err}`)));
  });
}

const exited = (c: ChildProcess): Promise<number | null> =>
  new Promise((r) => (c.exitCode !== null ? r(c.exitCode) : c.on('exit', (code) => r(code))));

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('one CLI voice', () => {
  it.each(COMMANDS.map((c) => c.name))('%s: an unknown flag is named with the help to read, exit 2', (name) => {
    expect(refused(cli([name, '--no-such-flag']))).toBe(
      `trimline: unknown option --no-such-flag; see \`trimline ${name} --help\``,
    );
  });

  it.each(COMMANDS.map((c) => [c.name, Object.keys(c.options)] as const))(
    '%s --help explains every flag',
    (name, options) => {
      const r = cli([name, '--help']);
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: trimline ${name}\\b|^Usage:\\n  trimline ${name}\\b`));
      for (const o of options)
        expect(r.stdout, `--${o}`).toMatch(new RegExp(`--${o}\\b[^\\n]* {2,}\\S|--${o}\\b[^\\n]*\\n {20,}\\S`));
    },
  );

  it('report refuses a missing path, a directory without sessions and an unwritable --html, before any work', () => {
    expect(refused(cli(['report', '/nonexistent', '--no-cache']))).toBe(
      'trimline: report: /nonexistent: no such file or directory',
    );
    const empty = mkdtempSync(join(tmpdir(), 'trimline-empty-'));
    expect(refused(cli(['report', empty, '--no-cache']))).toMatch(/^trimline: report: no sessions found in /);
    const html = refused(cli(['report', REPORT_FIXTURES, '--no-cache', '--html', '/nonexistent/dir/x.html']));
    expect(html).toBe(
      'trimline: report: --html /nonexistent/dir/x.html: cannot write there: directory /nonexistent/dir does not exist',
    );
    expect(refused(cli(['report', REPORT_FIXTURES, '--no-cache', '--html', empty]))).toMatch(
      /cannot write there: it is a directory$/,
    );
  });

  it('the proxy names its URL, strategy, upstream and journal, leaves a state file while it runs, and refuses a journal it cannot write', async () => {
    const data = mkdtempSync(join(tmpdir(), 'trimline-data-'));
    const journal = join(data, 'journals');
    const { child, out } = await started(
      ['proxy', '--port', '0', '--upstream', 'http://127.0.0.1:9', '--journal', journal],
      { TRIMLINE_DATA_DIR: data },
      /\(Ctrl\+C to stop\)\n/,
    );
    const url = /^Trimline proxy: (http:\/\/127\.0\.0\.1:(\d+))$/m.exec(out())!;
    expect(out()).toContain('  strategy none (observe only: requests go upstream unchanged)\n');
    expect(out()).toContain('  upstream http://127.0.0.1:9/\n');
    expect(out()).toContain(`  journal  ${journal}\n`);
    expect(readdirSync(join(data, 'proxies'))).toEqual([`${url[2]}.json`]);
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
    expect(readdirSync(join(data, 'proxies'))).toEqual([]);

    const file = join(data, 'a-file');
    writeFileSync(file, 'x');
    expect(refused(cli(['proxy', '--journal', join(file, 'sub')]))).toMatch(
      /^trimline: proxy: --journal .*: cannot write there \(ENOTDIR\)/,
    );
  });

  it('the demo (npm start) listens on PORT', async () => {
    const port = await freePort();
    const { child, out } = await started(
      ['demo'],
      { PORT: String(port), ANTHROPIC_API_KEY: '', ANTHROPIC_BASE_URL: '' },
      /^Inspector: http:\/\/127\.0\.0\.1:\d+\//m,
    );
    expect(out()).toMatch(new RegExp(`^Inspector: http://127\\.0\\.0\\.1:${port}/`, 'm'));
    child.kill('SIGTERM');
    expect(refused(cli(['demo'], { env: { PORT: 'eighty' } }))).toBe(
      'trimline: demo: PORT must be a port number 0–65535, got "eighty"',
    );
  });

  it('statusline prints one line with the five fields from a transcript, fast bundle or not', () => {
    const input = JSON.stringify({
      session_id: 'not-proxied',
      transcript_path: CC_SESSION,
      model: { id: 'claude-sonnet-4-6', display_name: 'Sonnet 4.6' },
      cost: { total_cost_usd: 0.5 },
      context_window: { context_window_size: 200_000 },
    });
    const data = mkdtempSync(join(tmpdir(), 'trimline-data-'));
    const r = cli(['statusline'], { input, env: { TRIMLINE_DATA_DIR: data } });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^trimline · ctx \d+k\/200k \(\d+%\) · cache read \d+% · (no cache miss|last miss: .*) · \$0\.50 session · saving vs none: not proxied\n$/,
    );
    expect(refused(cli(['statusline'], { input: 'not json' }))).toMatch(
      /^trimline: statusline: stdin is not Claude Code's status-line JSON/,
    );
    expect(existsSync(join(data, 'proxies'))).toBe(false);
  });
});
