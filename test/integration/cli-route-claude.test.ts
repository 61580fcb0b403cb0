/**
 * The real Claude Code CLI started with the routed environment reaches the proxy.
 *
 * `trimline route --agent claude-code` (the CLI bundled from src/cli/main.ts) writes `env.ANTHROPIC_BASE_URL` into
 * `~/.claude/settings.json` of a scratch HOME. The real CLI (`@anthropic-ai/claude-code`, a devDependency pinned to
 * 2.1.112, the last release that is one `cli.js` run by Node; later ones install a native executable) is then started
 * with no base URL in its environment, only a dummy key: `claude -p "hello"`. It can only find the proxy through the
 * settings file the route wrote (Claude Code settings docs, "Settings files": the `env` block applies to every
 * session). Asserted from both ends:
 * - the local Anthropic-compatible server (src/dev) received the CLI's requests through the proxy, with Claude Code's
 *   own headers (`user-agent: claude-cli/…`, `x-claude-code-session-id`), all valid, and answered them;
 * - the CLI printed the server's answer and exited 0;
 * - `trimline route` named the client from the request: "Claude Code's requests now arrive through Trimline";
 * - Ctrl+C restored the settings file byte for byte.
 * Nothing leaves the machine: the upstream is the local server, and non-essential traffic is off.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../src/dev/server';
import { buildCli } from './cli';

const CLAUDE_JS = path.resolve('node_modules/@anthropic-ai/claude-code/cli.js');
const ANSWER = 'Hello from the local server, through Trimline.';
const SETTINGS = '{\n  "includeCoAuthoredBy": false\n}\n';

describe('the Claude Code CLI through `trimline route`', () => {
  let bundle: string;
  let server: TestServer;
  let home: string;
  const settingsFile = (): string => path.join(home, '.claude', 'settings.json');

  beforeAll(async () => {
    bundle = buildCli();
    server = await startTestServer({ fallback: 'echo' });
    server.script(...Array.from({ length: 20 }, () => ({ content: [{ type: 'text' as const, text: ANSWER }] })));
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'trimline-route-claude-'));
    fs.mkdirSync(path.join(home, '.claude'));
    fs.writeFileSync(settingsFile(), SETTINGS);
    fs.mkdirSync(path.join(home, 'project'));
  });
  afterAll(async () => {
    await server.close();
    fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(path.dirname(bundle), { recursive: true, force: true });
  });

  /** Runs until `done` matches what the child printed (or it exits); returns the output and the exit code. */
  const run = (child: ChildProcess, done?: RegExp): Promise<{ out: string; code: number | null }> =>
    new Promise((resolve) => {
      let out = '';
      const add = (b: Buffer): void => {
        out += b.toString();
        if (done?.test(out)) resolve({ out, code: null });
      };
      child.stdout!.on('data', add);
      child.stderr!.on('data', add);
      child.once('exit', (code) => resolve({ out, code }));
    });

  it('claude -p started with the routed settings talks to the local server through the proxy', async () => {
    const route = spawn(process.execPath, [bundle, 'route', '--agent', 'claude-code'], {
      env: {
        PATH: process.env.PATH,
        HOME: home,
        TRIMLINE_DATA_DIR: path.join(home, 'data'),
        TRIMLINE_UPSTREAM: server.url,
      },
      cwd: home,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let routeOut = '';
    route.stdout!.on('data', (b: Buffer) => (routeOut += b.toString()));
    route.stderr!.on('data', (b: Buffer) => (routeOut += b.toString()));
    await new Promise<void>((ok, fail) => {
      route.stdout!.on('data', () => routeOut.includes('Routed') && ok());
      route.once('exit', (code) => fail(new Error(`route exited (${code}):\n${routeOut}`)));
    });
    const proxyUrl = /Trimline proxy: (http:\/\/127\.0\.0\.1:\d+)/.exec(routeOut)![1];
    const routed = JSON.parse(fs.readFileSync(settingsFile(), 'utf8')) as { env?: Record<string, string> };
    expect(routed.env?.ANTHROPIC_BASE_URL).toBe(proxyUrl);

    // No ANTHROPIC_BASE_URL here: the CLI can only learn the proxy from the settings file the route wrote.
    const cli = spawn(process.execPath, [CLAUDE_JS, '-p', 'hello', '--model', 'claude-sonnet-4-6'], {
      cwd: path.join(home, 'project'),
      env: {
        PATH: process.env.PATH,
        HOME: home,
        ANTHROPIC_API_KEY: 'sk-ant-local-route-test',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const done = await run(cli);
    expect(done.code, done.out).toBe(0);
    expect(done.out).toContain(ANSWER);

    const calls = server.requests.filter((r) => r.path === '/v1/messages');
    expect(calls.length).toBeGreaterThan(0);
    const main = calls.find((r) => JSON.stringify(r.body).includes('hello'));
    expect(main, 'the typed prompt reached the server').toBeDefined();
    expect(main!.headers['user-agent']).toMatch(/^claude-cli\/2\.1\.112/);
    expect(main!.headers['x-claude-code-session-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(calls.every((r) => r.validation.ok)).toBe(true);
    expect(calls.every((r) => r.response?.status === 200)).toBe(true);

    // The route names the client from the request's own headers and shape.
    await new Promise<void>((ok) => {
      if (routeOut.includes('arrive through Trimline')) ok();
      else route.stdout!.on('data', () => routeOut.includes('arrive through Trimline') && ok());
    });
    expect(routeOut).toMatch(/Claude Code's requests now arrive through Trimline \(session /);

    route.kill('SIGINT');
    const stopped = await run(route);
    expect(stopped.out + routeOut).toContain(`restored ${settingsFile()}`);
    expect(fs.readFileSync(settingsFile(), 'utf8')).toBe(SETTINGS);
  });
});
