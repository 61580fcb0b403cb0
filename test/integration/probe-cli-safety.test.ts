/**
 * Probes of the BUILT CLI (`npm run build` → dist/cli.js, rebuilt when a source is newer)
 * with hostile input, as a user meets it:
 * - `trimline run` with the offline test server scripting the model: writes to .git/config and
 *   .git/hooks/pre-commit are refused without approval (stdin is not a terminal), the files unchanged;
 * - transcripts and files carrying ESC/CSI/OSC, C1 and bidi controls in the model name, tool names,
 *   paths, commands and contents: `inspect`, `report`, `replay` and `run` print none of them raw;
 * - `report` names an unfinished last line of an old file and stays quiet for one being written.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../src/dev/server';

const REPO = path.resolve(__dirname, '../..');
const CLI = path.join(REPO, 'dist', 'cli.js');

/** Newest modification time of any file under `dir`. */
function newest(dir: string): number {
  let t = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs);
  }
  return t;
}

/** Raw bytes a terminal would obey: ESC, other C0 except \n \t, DEL, C1, bidi controls. */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
function unsafeIn(s: string): string | undefined {
  const m = UNSAFE.exec(s);
  return m
    ? `U+${m[0].codePointAt(0)!.toString(16)} at ${m.index}: ${JSON.stringify(s.slice(Math.max(0, m.index - 40), m.index + 20))}`
    : undefined;
}

const CLEAR = '\x1b[2J\x1b[H';
const TITLE = '\x1b]0;pwned\x07';
const CLIP = '\x1b]52;c;cHduZWQ=\x1b\\';
const RLO = '\u202e';
const CSI8 = '\u009b31m';
const HOSTILE = `${CLEAR}${TITLE}${CLIP}${RLO}\u2066${CSI8}`;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: cwd, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString('utf8')));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function expectSafe(r: Run, what: string): void {
  expect(unsafeIn(r.stdout), `${what} stdout`).toBeUndefined();
  expect(unsafeIn(r.stderr), `${what} stderr`).toBeUndefined();
}

/** A Claude Code session whose model, tool names, paths, commands and results carry terminal controls. */
function hostileTranscript(): string {
  let n = 0;
  let parent: string | null = null;
  const line = (rec: Record<string, unknown>): string => {
    const uuid = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
    const out = {
      parentUuid: parent,
      isSidechain: false,
      userType: 'external',
      cwd: '/work/app',
      sessionId: 'b1d1e5c0-0000-4000-8000-000000000001',
      version: '2.1.6',
      type: 'user',
      ...rec,
      uuid,
      timestamp: `2026-01-13T16:00:0${n}.000Z`,
    };
    parent = uuid;
    return JSON.stringify(out);
  };
  const model = `claude-sonnet-4-5${TITLE}${RLO}`;
  const usage = { input_tokens: 9, cache_creation_input_tokens: 1200, cache_read_input_tokens: 0, output_tokens: 40 };
  const assistant = (id: string, content: unknown[], stop: string): string =>
    line({
      type: 'assistant',
      requestId: `req_${id}`,
      message: {
        model,
        id,
        type: 'message',
        role: 'assistant',
        content,
        stop_reason: stop,
        stop_sequence: null,
        usage,
      },
    });
  return (
    [
      line({ message: { role: 'user', content: `look at the files ${HOSTILE}` } }),
      assistant(
        'msg_01',
        [
          { type: 'tool_use', id: 'toolu_01', name: `Bash${CLEAR}`, input: { command: `cat notes.txt ${HOSTILE}` } },
          {
            type: 'tool_use',
            id: 'toolu_02',
            name: `Read${TITLE}${CSI8}`,
            input: { file_path: `/work/app/${RLO}txt.exe${TITLE}` },
          },
        ],
        'tool_use',
      ),
      line({
        message: {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_01', content: `contents ${HOSTILE} end` },
            { type: 'tool_result', tool_use_id: 'toolu_02', content: `more ${HOSTILE}` },
          ],
        },
      }),
      assistant('msg_02', [{ type: 'text', text: `All done ${HOSTILE}` }], 'end_turn'),
    ].join('\n') + '\n'
  );
}

let dir: string;
let server: TestServer;

beforeAll(async () => {
  if (!fs.existsSync(CLI) || newest(path.join(REPO, 'src')) > fs.statSync(CLI).mtimeMs)
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: REPO });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trimline-probe-'));
  server = await startTestServer({ fallback: 'fail' });
});

afterAll(async () => {
  await server?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('trimline run: .git writes need approval', () => {
  it('refuses .git/config and .git/hooks/pre-commit without a terminal to ask, and leaves them unchanged', async () => {
    const ws = fs.mkdtempSync(path.join(dir, 'ws-'));
    const config = '[core]\n\trepositoryformatversion = 0\n\tbare = false\n';
    fs.mkdirSync(path.join(ws, '.git', 'hooks'), { recursive: true });
    fs.writeFileSync(path.join(ws, '.git', 'config'), config);
    server.script(
      {
        content: [
          { type: 'text', text: 'Configuring git.' },
          {
            type: 'tool_use',
            name: 'write_file',
            input: { path: '.git/config', content: '[core]\n\tfsmonitor = "touch pwned-fsmonitor"\n' },
          },
          {
            type: 'tool_use',
            name: 'write_file',
            input: { path: '.git/hooks/pre-commit', content: '#!/bin/sh\ntouch pwned-hook\n' },
          },
          {
            type: 'tool_use',
            name: 'edit_file',
            input: {
              path: '.GIT/../.git/config',
              old_text: 'bare = false',
              new_text: 'bare = false\n\tpager = touch pwned-pager',
            },
          },
          { type: 'tool_use', name: 'write_file', input: { path: 'src/ok.ts', content: 'export const ok = 1;\n' } },
        ],
      },
      { content: [{ type: 'text', text: 'Done.' }] },
    );
    const r = await cli(['run', 'set up git', '--workspace', ws, '--session', 'git'], ws, {
      ANTHROPIC_BASE_URL: server.url,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(fs.readFileSync(path.join(ws, '.git', 'config'), 'utf8')).toBe(config);
    expect(fs.existsSync(path.join(ws, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(fs.readFileSync(path.join(ws, 'src', 'ok.ts'), 'utf8')).toBe('export const ok = 1;\n');
    expect(r.stdout.match(/✗ (write|edit)_file: refused: \S+ is inside \.git /g)).toHaveLength(3);
    expect(r.stderr).toMatch(/write to \.git\/config refused: it is inside \.git .*no terminal to ask/);
    expect(r.stderr).toMatch(/write to \.git\/hooks\/pre-commit refused/);
  });
});

describe('trimline run on a terminal: a .git write is asked', () => {
  it('asks before each one (the prompt sanitized); "n" leaves the file alone, "y" writes it', async () => {
    const ws = fs.mkdtempSync(path.join(dir, 'tty-'));
    const config = '[core]\n\tbare = false\n';
    fs.mkdirSync(path.join(ws, '.git'), { recursive: true });
    fs.writeFileSync(path.join(ws, '.git', 'config'), config);
    server.script(
      {
        content: [
          {
            type: 'tool_use',
            name: 'write_file',
            input: { path: '.git/config', content: '[core]\n\tfsmonitor = "touch pwned"\n' },
          },
          { type: 'tool_use', name: 'write_file', input: { path: `.git/info/exclude${TITLE}`, content: 'tmp/\n' } },
        ],
      },
      { content: [{ type: 'text', text: 'Done.' }] },
    );
    // `script` gives the CLI a pseudo-terminal; what we write to its stdin is typed there.
    const command = [process.execPath, CLI, 'run', 'configure', '--workspace', ws, '--session', 'tty'].join(' ');
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: ws,
      env: { PATH: process.env.PATH ?? '', HOME: ws, TERM: 'dumb', ANTHROPIC_BASE_URL: server.url },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const until = async (re: RegExp): Promise<void> => {
      for (let i = 0; i < 3000 && !re.test(out); i++) await new Promise((r) => setTimeout(r, 10));
      expect(out).toMatch(re);
    };
    await until(/Allow the agent to write \.git\/config\?[^]*\[y\/N\] $/);
    child.stdin.write('n\r');
    await until(
      /Allow the agent to write \.git\/info\/exclude\\u\{1b\}\]0;pwned\\u\{7\}\?[^]*It is inside \.git: git's own configuration and hooks[^]*\[y\/N\] $/,
    );
    child.stdin.write('y\r');
    await until(/Done\./);
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(fs.readFileSync(path.join(ws, '.git', 'config'), 'utf8')).toBe(config);
    expect(fs.readFileSync(path.join(ws, '.git', 'info', `exclude${TITLE}`), 'utf8')).toBe('tmp/\n');
    // The terminal's own line discipline writes CRs; nothing else may be a control.
    expect(unsafeIn(out.replace(/\r/g, ''))).toBeUndefined();
  });
});

describe('terminal controls from transcripts and files never reach the terminal raw', () => {
  it('inspect (table and --json) and replay --jsonl', async () => {
    const file = path.join(dir, `session${TITLE}${RLO}.jsonl`);
    fs.writeFileSync(file, hostileTranscript());
    const table = await cli(['inspect', file, '--strategy', 'none'], dir);
    expect(table.code, table.stderr).toBe(0);
    expectSafe(table, 'inspect');
    expect(table.stdout).toContain('claude-sonnet-4-5\\u{1b}]0;pwned\\u{7}\\u{202e}');
    expect(table.stdout).toContain('Bash\\u{1b}[2J');
    const json = await cli(['inspect', file, '--strategy', 'none', '--json'], dir);
    expectSafe(json, 'inspect --json');
    expect((JSON.parse(json.stdout) as { model: string }).model).toBe(`claude-sonnet-4-5${TITLE}${RLO}`);
    const jsonl = await cli(['replay', file, '--strategy', 'none', '--jsonl'], dir);
    expect(jsonl.code, jsonl.stderr).toBe(0);
    expectSafe(jsonl, 'replay');
    const first = JSON.parse(jsonl.stdout.split('\n')[0]) as { request: { model: string } };
    expect(first.request.model).toBe(`claude-sonnet-4-5${TITLE}${RLO}`);
  });

  it('report (table, --json, and the bidi controls of the --html page)', async () => {
    const projects = fs.mkdtempSync(path.join(dir, 'projects-'));
    fs.mkdirSync(path.join(projects, `-work-app${RLO}`));
    fs.writeFileSync(path.join(projects, `-work-app${RLO}`, `b1d1e5c0${CLEAR}${TITLE}.jsonl`), hostileTranscript());
    const table = await cli(['report', projects, '--no-cache'], dir);
    expect(table.code, table.stderr).toBe(0);
    expectSafe(table, 'report');
    expect(table.stdout).toMatch(/\\u\{1b\}/);
    const json = await cli(['report', projects, '--no-cache', '--json'], dir);
    expectSafe(json, 'report --json');
    expect(JSON.parse(json.stdout)).toHaveProperty('sessions');
    const page = path.join(dir, 'report.html');
    expect((await cli(['report', projects, '--no-cache', '--html', page, '--quiet'], dir)).code).toBe(0);
    const html = fs.readFileSync(page, 'utf8');
    expect(html).not.toMatch(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u);
    expect(html).toContain('\\u{202e}');
  });

  it('run: model text, tool names, paths, commands and file contents', async () => {
    const ws = fs.mkdtempSync(path.join(dir, 'ws-'));
    const name = `notes${RLO}txt.md`;
    fs.writeFileSync(path.join(ws, name), `line one ${HOSTILE}\r\nline two\n`);
    server.script(
      {
        content: [
          { type: 'text', text: `Reading ${HOSTILE}` },
          { type: 'tool_use', name: 'read_file', input: { path: name } },
          { type: 'tool_use', name: 'run_command', input: { command: `echo hi ${CLEAR}${TITLE}` } },
          { type: 'tool_use', name: 'search', input: { query: `one ${RLO}` } },
        ],
      },
      { content: [{ type: 'text', text: `Done ${TITLE}${CSI8}\r\nreally` }] },
    );
    const r = await cli(['run', 'read the notes', '--workspace', ws, '--session', 'esc'], ws, {
      ANTHROPIC_BASE_URL: server.url,
    });
    expect(r.code, r.stderr).toBe(0);
    expectSafe(r, 'run');
    expect(r.stdout).toContain('Reading \\u{1b}[2J');
    expect(r.stdout).toContain(`→ read_file notes\\u{202e}txt.md`);
    expect(r.stderr).toContain(
      'run_command denied (no terminal to ask; pass --approve-commands to allow): echo hi \\u{1b}[2J',
    );
    expect(r.stdout).toContain('Done \\u{1b}]0;pwned\\u{7}\\u{9b}31m\nreally');
  });
});

describe('report: an unfinished last line', () => {
  it('is named for a file not modified for a while, and left out quietly for one being written', async () => {
    const projects = fs.mkdtempSync(path.join(dir, 'unfinished-'));
    fs.mkdirSync(path.join(projects, '-work-app'));
    const partial = '{"type":"assistant","message":{"id":"msg_03","content":[{"type":"text","text":"cut';
    const body = hostileTranscript();
    const old = path.join(projects, '-work-app', 'old-session.jsonl');
    const fresh = path.join(projects, '-work-app', 'fresh-session.jsonl');
    fs.writeFileSync(old, body + partial);
    fs.writeFileSync(fresh, body + partial);
    // An hour older than the file just written (from its own mtime, not the clock).
    const hourBefore = new Date(fs.statSync(fresh).mtimeMs - 3_600_000);
    fs.utimesSync(old, hourBefore, hourBefore);
    const lines = body.split('\n').length;
    for (const workers of ['0', '2']) {
      const r = await cli(['report', projects, '--no-cache', '--workers', workers], dir);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(
        `old-session.jsonl: line ${lines} (the last, ${partial.length} bytes) is unfinished (no final newline, not valid JSON): left out`,
      );
      expect(r.stdout).not.toMatch(/fresh-session\.jsonl: .*unfinished/);
    }
  });
});
