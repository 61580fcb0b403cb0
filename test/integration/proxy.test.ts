/**
 * The proxy with the real @anthropic-ai/sdk as a Claude-Code-shaped client, to the local
 * Anthropic-compatible server: `none` sends the client's bytes, `default` sends valid and
 * smaller requests that still read the cache, errors and retry-after reach the client as
 * sent, other endpoints pass through, and a proxy killed mid-session comes back.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateRequest } from '../../src/core/request/validate';
import type { RequestBody } from '../../src/core/api/wire';
import { startProxy, type ProxyHandle } from '../../src/host/proxy/server';
import { startTestServer, type TestServer } from '../../src/dev/server';
import { ccClient, ccTurn } from './claude-code-client';

const PER_PROMPT = 8;
const PROMPTS = ['Read the modules and check them.', 'Now the tests.', 'And the docs.', 'Finally the build scripts.'];
const sha = (s: string): string => createHash('sha256').update(s).digest('hex');
const totalInput = (u: {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}): number => u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ fallback: 'fail' });
});
afterAll(() => server.close());

async function session(
  strategy: string,
  id: string,
): Promise<{
  proxy: ProxyHandle;
  client: ReturnType<typeof ccClient>;
  calls: number;
  requests: TestServer['requests'];
}> {
  server.reset();
  server.script(...Array.from({ length: PROMPTS.length * PER_PROMPT }, (_, k) => () => ccTurn(k, PER_PROMPT)));
  const proxy = await startProxy({
    upstream: server.url,
    strategy,
    journalDir: mkdtempSync(join(tmpdir(), 'trimline-proxy-')),
  });
  const client = ccClient(proxy.url, id);
  let calls = 0;
  for (const p of PROMPTS) calls += await client.prompt(p);
  return { proxy, client, calls, requests: server.requests.filter((r) => r.path === '/v1/messages') };
}

describe('proxy: a Claude-Code-shaped session through the real SDK', () => {
  let none: Awaited<ReturnType<typeof session>>;
  let trimmed: Awaited<ReturnType<typeof session>>;
  beforeAll(async () => {
    none = await session('none', 'sess-none-1');
    trimmed = await session('default', 'sess-default-1');
  }, 120_000);
  afterAll(async () => {
    await none.proxy.close();
    await trimmed.proxy.close();
  });

  it('none: every upstream body is the client\u2019s bytes, byte for byte', () => {
    expect(none.calls).toBe(PROMPTS.length * PER_PROMPT);
    expect(none.requests).toHaveLength(none.calls);
    expect(none.requests.map((r) => r.sha256)).toEqual(none.client.sent.map(sha));
    for (const r of none.requests) expect(r.validation.ok).toBe(true);
    // One session, recognized by the client's session id, with every message of the conversation.
    const sessions = none.proxy.engine.sessions.all();
    expect(sessions.map((s) => s.id)).toEqual(['sess-none-1']);
    expect(sessions[0].session.messages.length).toBe(none.client.messages.length - 1);
    expect(sessions[0].session.calls.every((c) => c.usage !== undefined)).toBe(true);
  });

  it(
    'default: 0 invalid requests, fewer input tokens than none, cache reads kept, system/tools/thinking as ' + 'sent',
    () => {
      expect(trimmed.calls).toBe(none.calls);
      for (const r of trimmed.requests) {
        expect(r.validation.ok, r.validation.message).toBe(true);
        const body = r.body as RequestBody;
        expect(validateRequest(body, { model: body.model, thinking: true })).toEqual([]);
        const client = JSON.parse(trimmed.client.sent[r.seq - trimmed.requests[0].seq]) as Record<string, unknown>;
        for (const k of ['system', 'tools', 'thinking', 'context_management', 'metadata', 'max_tokens', 'model'])
          expect(body[k as keyof RequestBody]).toEqual(client[k]);
      }
      const inNone = none.requests.map((r) => totalInput(r.response!.usage!));
      const inDefault = trimmed.requests.map((r) => totalInput(r.response!.usage!));
      const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
      const ratio = sum(inDefault) / sum(inNone);
      console.log(`proxy default/none input tokens: ${sum(inDefault)} / ${sum(inNone)} = ${(ratio * 100).toFixed(1)}%`);
      expect(ratio).toBeLessThanOrEqual(0.6);
      const reads = trimmed.requests.filter((r) => r.response!.usage!.cache_read_input_tokens > 0).length;
      expect(reads).toBeGreaterThanOrEqual(trimmed.requests.length - 4);
    },
  );

  it('serves the inspector on the same port, showing the proxied session (and refuses other hosts)', async () => {
    const page = await fetch(trimmed.proxy.inspectorUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'nonce-");
    const headers = { 'content-type': 'application/json', 'x-trimline-token': trimmed.proxy.token };
    const res = await fetch(`${trimmed.proxy.url}/api/request`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ type: 'ready' }),
    });
    const [msg] = (await res.json()) as [
      { type: string; snapshot?: { title: string; live: boolean; rows: unknown[]; calls: unknown[] } },
    ];
    expect(msg.type).toBe('snapshot');
    expect(msg.snapshot!.title).toBe('Proxied: Read the modules and check them.');
    expect(msg.snapshot!.live).toBe(true);
    expect(msg.snapshot!.rows.length).toBeGreaterThan(50);
    expect(msg.snapshot!.calls.length).toBe(trimmed.calls);
    const forged = await fetch(`${trimmed.proxy.url}/api/request`, {
      method: 'POST',
      headers: { ...headers, origin: 'http://evil.example' },
      body: JSON.stringify({ type: 'ready' }),
    });
    expect(forged.status).toBe(403);
  });

  it('answers the inspector only with its token (another local account has no data); /v1/ needs none', async () => {
    const ready = JSON.stringify({ type: 'ready' });
    const wrong = `${trimmed.proxy.token.slice(0, -2)}xx`;
    for (const token of [undefined, wrong, '']) {
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        ...(token === undefined ? {} : { 'x-trimline-token': token }),
      };
      const res = await fetch(`${trimmed.proxy.url}/api/request`, { method: 'POST', headers, body: ready });
      expect(res.status).toBe(403);
      expect(await res.text()).not.toContain('snapshot');
      expect((await fetch(`${trimmed.proxy.url}/api/events`, { headers })).status).toBe(403);
      expect((await fetch(`${trimmed.proxy.url}/`, { headers })).status).toBe(403);
    }
    const ok = await fetch(`${trimmed.proxy.url}/api/request`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-trimline-token': trimmed.proxy.token },
      body: ready,
    });
    expect(ok.status).toBe(200);
    expect(trimmed.proxy.inspectorUrl).toBe(`${trimmed.proxy.url}/?token=${trimmed.proxy.token}`);
    // The API paths stay as clients expect them: no token.
    const models = await fetch(`${trimmed.proxy.url}/v1/models`, {
      headers: { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
    });
    expect(models.status).toBe(200);
  });

  it('journals the session under the data directory, without auth headers', () => {
    const st = trimmed.proxy.engine.state('sess-default-1')!;
    expect(st.journal).toBeDefined();
    const text = readFileSync(st.journal!.file, 'utf8');
    expect(text).not.toContain('sk-ant-test-secret');
    expect(text).toContain('"type":"usage"');
  });
});

describe('proxy: pass-through that never breaks the client', () => {
  let proxy: ProxyHandle;
  beforeAll(async () => {
    server.reset();
    proxy = await startProxy({ upstream: server.url, strategy: 'default' });
  });
  afterAll(() => proxy.close());

  it('a 429 with retry-after reaches the client unchanged', async () => {
    server.fault({
      kind: 'http',
      status: 429,
      errorType: 'rate_limit_error',
      message: 'Number of request tokens has exceeded your per-minute rate limit',
      retryAfterSec: 7,
    });
    const client = new Anthropic({ apiKey: 'k', baseURL: proxy.url, maxRetries: 0 });
    const err = await client.messages
      .create({ model: 'claude-sonnet-4-6', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.RateLimitError);
    const e = err as InstanceType<typeof Anthropic.RateLimitError>;
    expect(e.status).toBe(429);
    expect(e.headers?.get('retry-after')).toBe('7');
    expect(e.message).toContain('Number of request tokens has exceeded your per-minute rate limit');
  });

  it('other endpoints and methods pass through (models, count_tokens, 404s)', async () => {
    const client = new Anthropic({ apiKey: 'k', baseURL: proxy.url, maxRetries: 0 });
    const models = await client.models.list();
    expect(models.data.length).toBeGreaterThan(0);
    const count = await client.messages.countTokens({
      model: 'claude-sonnet-4-6',
      messages: [{ role: 'user', content: 'count me' }],
    });
    expect(count.input_tokens).toBeGreaterThan(0);
    const res = await fetch(`${proxy.url}/v1/nothing?x=1`, { method: 'DELETE' });
    expect(res.status).toBe(404);
    const seen = server.requests.at(-1)!;
    expect(seen.method).toBe('DELETE');
    expect(seen.path).toBe('/v1/nothing');
  });

  it('an invalid client request goes upstream untouched and the API\u2019s 400 reaches the client', async () => {
    const client = new Anthropic({ apiKey: 'k', baseURL: proxy.url, maxRetries: 0 });
    const err = await client.messages
      .create({
        model: 'claude-sonnet-4-6',
        max_tokens: 10,
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_x', name: 'Read', input: {} }] },
          { role: 'user', content: 'no result' },
        ],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect((err as Error).message).toContain(
      '`tool_use` ids were found without `tool_result` blocks immediately after',
    );
  });
});

describe('proxy process: killed mid-session, restarted, the next call succeeds', () => {
  const CLI = resolve('dist/cli.js');
  const start = (port: number, journal: string): Promise<{ child: ChildProcess; url: string }> =>
    new Promise((ok, fail) => {
      const child = spawn(
        process.execPath,
        [CLI, 'proxy', '--port', String(port), '--upstream', server.url, '--strategy', 'default', '--journal', journal],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let out = '';
      child.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /^Trimline proxy: (http:\/\/127\.0\.0\.1:(\d+))$/m.exec(out);
        if (m) ok({ child, url: m[1] });
      });
      child.on('exit', (code) => fail(new Error(`proxy exited ${code}: ${out}`)));
    });

  it('works across a SIGKILL and a restart on the same port (journal lock taken over)', async () => {
    expect(existsSync(CLI)).toBe(true);
    server.reset();
    server.script(...Array.from({ length: 3 * PER_PROMPT }, (_, k) => () => ccTurn(k, PER_PROMPT)));
    const journal = mkdtempSync(join(tmpdir(), 'trimline-proxy-kill-'));
    const first = await start(0, journal);
    const port = Number(new URL(first.url).port);
    const client = ccClient(first.url, 'sess-kill-1');
    await client.prompt(PROMPTS[0]);
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    expect(readdirSync(journal).some((f) => f.endsWith('.lock'))).toBe(true);
    const second = await start(port, journal);
    try {
      expect(await client.prompt(PROMPTS[1])).toBe(PER_PROMPT);
      for (const r of server.requests) expect(r.validation.ok, r.validation.message).toBe(true);
    } finally {
      second.child.kill('SIGTERM');
      await new Promise((r) => second.child.once('exit', r));
    }
    expect(readdirSync(journal).some((f) => f.endsWith('.lock'))).toBe(false);
  }, 60_000);
});
