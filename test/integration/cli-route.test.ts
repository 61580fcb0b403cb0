/**
 * `trimline route` as a user runs it (the CLI bundled from src/cli/main.ts), in a scratch HOME:
 * `--list` names what it would change, `--agent continue` routes Continue and only Continue,
 * a real SDK request at the written apiBase reaches the proxy, Ctrl+C restores the file byte for
 * byte, and after a SIGKILL `--stop` restores from the journal alone.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../src/dev/server';
import { buildCli } from './cli';

const YAML =
  '# my models\nmodels:\n  - name: Sonnet\n    provider: anthropic\n    model: claude-sonnet-4-6\n  - name: Local\n    provider: ollama\n    model: qwen\n';

describe('trimline route', () => {
  let bundle: string;
  let server: TestServer;
  let home: string;
  let env: NodeJS.ProcessEnv;
  const yamlFile = (): string => path.join(home, '.continue', 'config.yaml');

  beforeAll(async () => {
    bundle = buildCli();
    server = await startTestServer({ fallback: 'echo' });
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'trimline-route-home-'));
    fs.mkdirSync(path.join(home, '.continue'));
    fs.writeFileSync(yamlFile(), YAML);
    fs.mkdirSync(path.join(home, '.claude'));
    fs.writeFileSync(path.join(home, '.claude', 'settings.json'), '{ "model": "opus" }\n');
    env = {
      PATH: process.env.PATH,
      HOME: home,
      TRIMLINE_DATA_DIR: path.join(home, 'data'),
      TRIMLINE_UPSTREAM: server.url,
    };
  });
  afterAll(async () => {
    await server.close();
    fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(path.dirname(bundle), { recursive: true, force: true });
  });

  const start = (args: string[]): Promise<{ child: ChildProcess; out: () => string }> =>
    new Promise((ok, fail) => {
      const child = spawn(process.execPath, [bundle, 'route', ...args], {
        env,
        cwd: home,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout!.on('data', (b: Buffer) => {
        out += b.toString();
        if (out.includes('Routed')) ok({ child, out: () => out });
      });
      child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
      child.once('exit', (code) => fail(new Error(`route exited (${code}):\n${out}`)));
    });
  const exited = (c: ChildProcess): Promise<void> =>
    new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once('exit', () => r())));

  it('--list names the agents found and what each would change, touching nothing', () => {
    const r = spawnSync(process.execPath, [bundle, 'route', '--list'], { env, cwd: home, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/continue\s+Continue: apiBase: .*\/v1\/ on each "provider: anthropic" model/);
    expect(r.stdout).toMatch(/claude-code\s+Claude Code: env\.ANTHROPIC_BASE_URL=/);
    expect(fs.readFileSync(yamlFile(), 'utf8')).toBe(YAML);
  });

  it('routes only the agent asked for; a client at the written apiBase reaches the proxy; Ctrl+C restores', async () => {
    const run = await start(['--agent', 'continue']);
    const routed = fs.readFileSync(yamlFile(), 'utf8');
    const apiBase = /apiBase: (\S+)/.exec(routed)![1];
    expect(routed).toBe(
      YAML.replace('    provider: anthropic\n', `    provider: anthropic\n    apiBase: ${apiBase}\n`),
    );
    expect(fs.readFileSync(path.join(home, '.claude', 'settings.json'), 'utf8')).toBe('{ "model": "opus" }\n');
    // Continue posts to new URL("messages", apiBase) (core/llm/llms/Anthropic.ts); the SDK's baseURL is that minus
    // /v1/.
    const before = server.requests.length;
    const client = new Anthropic({
      apiKey: 'sk-ant-cli-route',
      baseURL: new URL('..', apiBase).href.replace(/\/$/, ''),
      maxRetries: 0,
    });
    await client.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 16,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(server.requests.length).toBe(before + 1);
    run.child.kill('SIGINT');
    await exited(run.child);
    expect(run.out()).toContain(`restored ${yamlFile()}`);
    expect(fs.readFileSync(yamlFile(), 'utf8')).toBe(YAML);
  });

  it('after a SIGKILL, --stop restores from the journal written before the change', async () => {
    const run = await start(['--agent', 'claude-code', '--agent', 'continue']);
    expect(fs.readFileSync(path.join(home, '.claude', 'settings.json'), 'utf8')).toMatch(
      /"ANTHROPIC_BASE_URL": "http:\/\/127\.0\.0\.1:\d+"/,
    );
    run.child.kill('SIGKILL');
    await exited(run.child);
    const stop = spawnSync(process.execPath, [bundle, 'route', '--stop'], { env, cwd: home, encoding: 'utf8' });
    expect(stop.status).toBe(0);
    expect(fs.readFileSync(yamlFile(), 'utf8')).toBe(YAML);
    expect(fs.readFileSync(path.join(home, '.claude', 'settings.json'), 'utf8')).toBe('{ "model": "opus" }\n');
    expect(
      spawnSync(process.execPath, [bundle, 'route', '--stop'], { env, cwd: home, encoding: 'utf8' }).stdout,
    ).toMatch(/nothing is routed/);
  });
});
