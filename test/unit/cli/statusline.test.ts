/**
 * `trimline statusline`: the facts of Claude Code's session from the running proxy (found by its
 * state file, asked over HTTP), else from the tail of the transcript; one line with the five fields.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { formatStatus, statusFacts } from '../../../src/cli/statusline';
import { runningProxies, writeProxyState } from '../../../src/cli/proxy-state';
import { statusFromTail } from '../../../src/core/status';
import { startTestServer } from '../../../src/dev/server';
import { startProxy } from '../../../src/host/proxy/server';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'trimline-statusline-'));
  cleanups.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
};

/** A Claude Code assistant line with its usage. */
function line(id: string, at: string, read: number, written: number, model = 'claude-sonnet-4-6'): string {
  return JSON.stringify({
    type: 'assistant',
    timestamp: at,
    isSidechain: false,
    message: {
      id,
      model,
      role: 'assistant',
      content: [{ type: 'text', text: 'x' }],
      usage: { input_tokens: 5, output_tokens: 9, cache_read_input_tokens: read, cache_creation_input_tokens: written },
    },
  });
}

const TRANSCRIPT = [
  '{"type":"user","message":{"role":"user","content":"hi"}}',
  line('msg_1', '2026-11-28T10:00:00Z', 0, 20_000),
  line('msg_1', '2026-11-28T10:00:00Z', 0, 20_000),
  line('msg_2', '2026-11-28T10:01:00Z', 20_000, 1_000),
  line('msg_3', '2026-11-28T10:12:00Z', 0, 22_000),
  line('msg_4', '2026-11-28T10:13:00Z', 22_000, 500),
].join('\n');

describe('status from a transcript tail', () => {
  it("reads the last call's context and cache share, and the last miss with its idle time", () => {
    const f = statusFromTail(`{"cut line\n${TRANSCRIPT}\n`);
    expect(f).toMatchObject({
      source: 'transcript',
      model: 'claude-sonnet-4-6',
      calls: 4,
      contextTokens: 22_505,
      contextWindow: 1_000_000,
    });
    expect(f.cacheReadShare).toBeCloseTo(22_000 / 22_505);
    expect(f.lastMiss).toEqual({
      call: 2,
      miss: { reason: 'ttl_expired', source: 'local', missedTokens: 21_000, idleMinutes: 11 },
    });
  });

  it("prints the five fields in one line, the cost from Claude Code's JSON", () => {
    const text = formatStatus(statusFromTail(TRANSCRIPT), {
      cost: { total_cost_usd: 1.234 },
      context_window: { context_window_size: 200_000 },
    });
    expect(text).toBe(
      'trimline · ctx 23k/200k (11%) · cache read 98% · last miss: ttl expired, idle 11 min [local] 1 call ago · $1.23 session · saving vs none: not proxied',
    );
    expect(text).not.toContain('\n');
    expect(formatStatus(statusFromTail(TRANSCRIPT), {})).toMatch(/^trimline · ctx 23k\/1M \(2%\) · /);
  });

  it('says a model switch, and no miss on a warm cache', () => {
    const switched = statusFromTail(
      [
        line('a', '2026-11-28T10:00:00Z', 0, 9_000),
        line('b', '2026-11-28T10:00:30Z', 0, 9_000, 'claude-opus-4-1'),
      ].join('\n'),
    );
    expect(switched.lastMiss?.miss.reason).toBe('model_changed');
    expect(statusFromTail(TRANSCRIPT.split('\n').slice(0, 4).join('\n')).lastMiss).toBeUndefined();
  });
});

describe('status from the running proxy', () => {
  const transcriptFile = (): string => {
    const f = join(tmp(), 's.jsonl');
    writeFileSync(f, TRANSCRIPT);
    return f;
  };

  it('asks the proxy that has the session (found by its state file), else reads the transcript', async () => {
    const server = await startTestServer({ fallback: 'echo' });
    cleanups.push(() => server.close());
    const proxy = await startProxy({ upstream: server.url, strategy: 'none' });
    cleanups.push(() => proxy.close());
    const data = tmp();
    cleanups.push(
      writeProxyState(
        data,
        {
          pid: process.pid,
          url: proxy.url,
          port: proxy.port,
          strategy: 'none',
          upstream: server.url,
          token: proxy.token,
          startedAt: new Date().toISOString(),
        },
        () => undefined,
      ),
    );
    expect(runningProxies(data).map((p) => p.url)).toEqual([proxy.url]);

    const client = new Anthropic({
      apiKey: 'test',
      baseURL: proxy.url,
      maxRetries: 0,
      defaultHeaders: { 'x-claude-code-session-id': 'cc-session-1' },
    });
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Hello there, proxy.' }];
    for (const reply of ['First.', 'Second.']) {
      server.script({ content: [{ type: 'text', text: reply }] });
      const msg = await client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 50, messages });
      messages.push({ role: 'assistant', content: msg.content }, { role: 'user', content: 'Go on.' });
    }
    let facts = await statusFacts({ session_id: 'cc-session-1' }, data);
    for (let i = 0; i < 200 && facts.calls < 2; i++) {
      await new Promise((r) => setTimeout(r, 10));
      facts = await statusFacts({ session_id: 'cc-session-1' }, data);
    }
    expect(facts).toMatchObject({ source: 'proxy', calls: 2, model: 'claude-sonnet-4-6', savingVsNone: 0 });
    expect(facts.contextTokens).toBeGreaterThan(0);
    expect(formatStatus(facts, {})).toMatch(
      /^trimline · ctx \d+\/1M \(\d+%\) · cache read \d+% · .* · \$[\d.]+ session · saved \$0\.00 vs none$/,
    );

    // A session the proxy has not seen: the transcript answers.
    expect((await statusFacts({ session_id: 'other', transcript_path: transcriptFile() }, data)).source).toBe(
      'transcript',
    );
  });

  it('falls back to the transcript when the proxy refuses (403: no or a wrong token)', async () => {
    const seen: string[] = [];
    const refusing: Server = createServer((req, res) => {
      seen.push(`${req.url} ${String(req.headers['x-trimline-token'])}`);
      res.writeHead(403).end('forbidden');
    });
    await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise((r) => refusing.close(r)));
    const port = (refusing.address() as AddressInfo).port;
    const data = tmp();
    cleanups.push(
      writeProxyState(
        data,
        {
          pid: process.pid,
          url: `http://127.0.0.1:${port}`,
          port,
          strategy: 'none',
          upstream: 'x',
          token: 'tok-1',
          startedAt: new Date().toISOString(),
        },
        () => undefined,
      ),
    );
    const facts = await statusFacts({ session_id: 'cc-1', transcript_path: transcriptFile() }, data);
    expect(facts).toMatchObject({ source: 'transcript', calls: 4 });
    expect(seen).toEqual(['/api/status?session=cc-1&token=tok-1 tok-1']);
  });

  it('skips state files of proxies that are gone, and knows nothing without a transcript', async () => {
    const data = tmp();
    writeProxyState(
      data,
      {
        pid: 2 ** 22 + 12345,
        url: 'http://127.0.0.1:1',
        port: 1,
        strategy: 'none',
        upstream: 'x',
        startedAt: '2026-01-01',
      },
      () => undefined,
    );
    expect(runningProxies(data)).toEqual([]);
    expect(await statusFacts({ session_id: 's' }, data)).toEqual({ source: 'transcript', calls: 0 });
  });

  it("without a transcript, takes the last call from Claude Code's own current_usage", async () => {
    const usage = { input_tokens: 100, cache_creation_input_tokens: 900, cache_read_input_tokens: 9_000 };
    const input = {
      transcript_path: join(tmp(), 'not-yet.jsonl'),
      context_window: { context_window_size: 200_000, current_usage: usage },
    };
    const f = await statusFacts(input, tmp());
    expect(f).toEqual({ source: 'transcript', calls: 1, contextTokens: 10_000, cacheReadShare: 0.9 });
    expect(formatStatus(f, input)).toBe(
      'trimline · ctx 10k/200k (5%) · cache read 90% · no miss yet · $– session · saving vs none: not proxied',
    );
  });
});
