/**
 * Cache verdicts end to end: the real SDK breaks its own cache on purpose through the built
 * `trimline proxy --strategy none` (local test server upstream). The client's bytes reach
 * the upstream unchanged; `trimline inspect --json` on the proxy's journal names each broken
 * call with its reason and leaves the clean calls without a miss. With `--cache-diagnostics`
 * the reasons come from the API (source "api"), the upstream gets the client's bytes plus
 * only the diagnostics member and beta; an upstream that refuses the parameter gets the
 * client's own request again and the user is told once.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { CallVerdict } from '../../src/protocol/verdicts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../src/dev/server';
import { startProxy } from '../../src/host/proxy/server';
import { CACHE_DIAGNOSIS_BETA, withDiagnosticsBody } from '../../src/host/proxy/diagnostics';
import { breakerClient, BREAKER_SESSION, CLIENT_BETA, SCRIPT, type BreakerClient } from './cache-breaker-client';
import { ccClient, ccTurn } from './claude-code-client';
import { buildCli } from './cli';

interface PerCallJson {
  call: number;
  usage: { read: number; written: number; uncached: number } | null;
  miss: { reason: string; source: 'local' | 'api'; missedTokens: number; changeSource?: string } | null;
  local: { reason: string; missedTokens: number } | null;
  missCost: number;
  beyondRules: boolean;
  disagreement?: string;
}

const sha = (s: string | Buffer): string => createHash('sha256').update(s).digest('hex');
const journalOf = (files: string[]): string => dirname(files[0]);

let cli: string;
beforeAll(() => {
  cli = buildCli();
});

function startCliProxy(
  upstream: string,
  journal: string,
  extra: string[] = [],
): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  return new Promise((ok, fail) => {
    const child = spawn(
      process.execPath,
      [cli, 'proxy', '--port', '0', '--upstream', upstream, '--strategy', 'none', '--journal', journal, ...extra],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /^Trimline proxy: (http:\/\/127\.0\.0\.1:\d+)$/m.exec(out);
      if (m) ok({ child, url: m[1], stderr: () => err });
    });
    child.on('exit', (code) => fail(new Error(`proxy exited ${code}: ${out} ${err}`)));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await gone;
}

function inspectJson(file: string): { perCall?: PerCallJson[]; format: string } {
  const r = spawnSync(process.execPath, [cli, 'inspect', file, '--json'], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { perCall?: PerCallJson[]; format: string };
}

/** Run the script through a CLI proxy; returns the client, the upstream's requests and the journal's perCall. */
async function scripted(
  server: TestServer,
  extra: string[] = [],
): Promise<{ client: BreakerClient; upstream: TestServer['requests']; perCall: PerCallJson[]; files: string[] }> {
  server.reset();
  const journal = mkdtempSync(join(tmpdir(), 'trimline-verdicts-'));
  const proxy = await startCliProxy(server.url, journal, extra);
  const client = breakerClient(proxy.url);
  try {
    await client.run();
  } finally {
    await stop(proxy.child);
  }
  const files = readdirSync(journal).filter((f) => f.endsWith('.jsonl'));
  const out = inspectJson(join(journal, `proxy-${BREAKER_SESSION}.jsonl`));
  expect(out.format).toBe('trimline-journal');
  return {
    client,
    upstream: server.requests.filter((r) => r.path === '/v1/messages'),
    perCall: out.perCall ?? [],
    files: files.map((f) => join(journal, f)),
  };
}

describe('cache verdicts through `trimline proxy --strategy none`', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ fallback: 'echo' });
  });
  afterAll(() => server.close());

  it('names every broken call with its reason; clean calls have no miss; the client\u2019s bytes go upstream unchanged', async () => {
    const { client, upstream, perCall, files } = await scripted(server);
    // Byte equality at the upstream, call by call.
    expect(upstream).toHaveLength(SCRIPT.length);
    expect(upstream.map((r) => r.sha256)).toEqual(client.sent.map(sha));
    for (const r of upstream) expect(r.headers['anthropic-beta']).toBe(CLIENT_BETA);
    // The edit started a new epoch (its own journal); the verdicts still cover every call, numbered as sent.
    expect(files.map((f) => basename(f)).sort()).toEqual([
      `proxy-${BREAKER_SESSION}.e2.jsonl`,
      `proxy-${BREAKER_SESSION}.jsonl`,
    ]);
    expect(perCall.map((c) => c.call)).toEqual(SCRIPT.map((_, i) => i));
    expect(perCall.map((c) => c.miss?.reason ?? null)).toEqual(SCRIPT.map((s) => s.expected));
    for (const c of perCall) {
      expect(c.usage).not.toBeNull();
      if (c.miss) expect(c.miss.source).toBe('local');
    }
    // The usage in each verdict is the upstream's own.
    perCall.forEach((c, i) => {
      const u = upstream[i].response!.usage!;
      expect(c.usage).toEqual({
        read: u.cache_read_input_tokens,
        written: u.cache_creation_input_tokens,
        uncached: u.input_tokens,
      });
    });
    // Broken calls lost what the call before them had cached, and that cost money; clean calls read it all.
    for (const i of [2, 4, 6, 8]) {
      const before = perCall[i - 1].usage!;
      expect(perCall[i].miss!.missedTokens).toBe(before.read + before.written - perCall[i].usage!.read);
      expect(perCall[i].miss!.missedTokens).toBeGreaterThan(0);
      expect(perCall[i].missCost).toBeGreaterThan(0);
    }
    for (const i of [1, 3, 5, 7, 9])
      expect(perCall[i].usage!.read).toBe(perCall[i - 1].usage!.read + perCall[i - 1].usage!.written);
    expect(perCall[6].miss!.changeSource).toBe('client');
    for (const c of perCall) expect(c.beyondRules).toBe(false);
    // The text report names the same calls.
    const text = spawnSync(
      process.execPath,
      [cli, 'inspect', join(journalOf(files), `proxy-${BREAKER_SESSION}.jsonl`)],
      { encoding: 'utf8' },
    ).stdout;
    expect(text).toContain('cache verdicts: 10 calls, 4 missed the cache');
    for (const [i, reason] of [
      [2, 'tools changed'],
      [4, 'system changed'],
      [6, 'messages changed'],
      [8, 'model changed'],
    ] as const)
      expect(text).toMatch(new RegExp(`call ${i}: ${reason}`));
    console.log(text.slice(text.indexOf('cache verdicts:')));
  }, 120_000);

  it('--cache-diagnostics: the same reasons come from the API; the upstream gets the client\u2019s bytes plus only the diagnostics', async () => {
    const { client, upstream, perCall } = await scripted(server, ['--cache-diagnostics']);
    expect(upstream).toHaveLength(SCRIPT.length);
    upstream.forEach((r, i) => {
      const previous = i === 0 ? null : client.replyIds[i - 1];
      expect(r.sha256).toBe(sha(withDiagnosticsBody(Buffer.from(client.sent[i]), previous)!));
      expect(r.headers['anthropic-beta']).toBe(`${CLIENT_BETA},${CACHE_DIAGNOSIS_BETA}`);
      expect(r.validation.ok, r.validation.message).toBe(true);
    });
    // previous_message_id names the response before it (null on the first call).
    const ids = upstream.map(
      (r) => (r.body as { diagnostics: { previous_message_id: string | null } }).diagnostics.previous_message_id,
    );
    expect(ids).toEqual([null, ...client.replyIds.slice(0, -1)]);
    expect(perCall.map((c) => c.miss?.reason ?? null)).toEqual(SCRIPT.map((s) => s.expected));
    for (const i of [2, 4, 6, 8]) {
      expect(perCall[i].miss!.source).toBe('api');
      expect(perCall[i].miss!.missedTokens).toBe(upstream[i].response!.cacheMissReason!.cache_missed_input_tokens);
      expect(perCall[i].disagreement).toBeUndefined();
    }
    for (const i of [1, 3, 5, 7, 9]) expect(upstream[i].response!.cacheMissReason).toBeNull();
    // Every loss is what its divergence explains (the API's estimate bounds it).
    for (const c of perCall) expect(c.beyondRules).toBe(false);
    console.log(
      perCall
        .filter((c) => c.miss)
        .map(
          (c) =>
            `call ${c.call}: ${c.miss!.reason} [${c.miss!.source}] ${c.miss!.missedTokens} tokens missed, ${c.usage ? c.usage.read : '?'} read; local: ${c.local?.reason ?? 'none'} ${c.local?.missedTokens ?? 0}`,
        )
        .join('\n'),
    );
  }, 120_000);
});

describe('cache diagnostics against an upstream without the beta', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ fallback: 'echo', cacheDiagnostics: false });
  });
  afterAll(() => server.close());

  it('retries without the parameter, says so once, and keeps the local verdicts', async () => {
    const notices: string[] = [];
    const proxy = await startProxy({
      upstream: server.url,
      strategy: 'none',
      cacheDiagnostics: true,
      notice: (l) => notices.push(l),
    });
    const client = breakerClient(proxy.url);
    let verdicts: (CallVerdict | undefined)[];
    try {
      await client.run();
      // Read while the proxy is up: closing it releases every session's state.
      verdicts = proxy.engine.sessions.all().flatMap((e) =>
        proxy.engine
          .state(e.id)!
          .inspector.snapshot()!
          .calls.map((p) => p.verdict),
      );
    } finally {
      await proxy.close();
    }
    const upstream = server.requests.filter((r) => r.path === '/v1/messages');
    // The refused attempt, then every call as the client sent it.
    expect(upstream[0].validation.status).toBe(400);
    expect(upstream[0].validation.message).toContain('diagnostics');
    const sent = upstream.slice(1);
    expect(sent.map((r) => r.sha256)).toEqual(client.sent.map(sha));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain('refused the diagnostics parameter');
    expect(verdicts.map((v) => v?.miss?.reason ?? null)).toEqual(SCRIPT.map((s) => s.expected));
    expect(verdicts.every((v) => v?.api === undefined)).toBe(true);
  }, 120_000);
});

describe('a Trimline edit breaks the cache too, and says so', () => {
  it('a user trim under observe-only: the next call misses with messages_changed from a trimline_edit', async () => {
    const server = await startTestServer({ fallback: 'fail' });
    const proxy = await startProxy({ upstream: server.url, strategy: 'none' });
    try {
      server.script(...Array.from({ length: 8 }, (_, k) => () => ccTurn(k, 4)));
      const client = ccClient(proxy.url, 'sess-trim-1');
      await client.prompt('Read the modules.');
      const st = proxy.engine.active()!;
      const target = st.inspector.snapshot()!.rows.find((r) => r.kind === 'tool_result' && r.cached)!;
      st.inspector.handle({ op: 'trim', blockId: target.blockId, text: 'trimmed by the test' });
      await client.prompt('Now the tests.');
      const calls = st.inspector.snapshot()!.calls;
      expect(calls[4].verdict!.miss).toMatchObject({
        reason: 'messages_changed',
        source: 'local',
        changeSource: 'trimline_edit',
      });
      expect(calls[4].verdict!.miss!.missedTokens).toBeGreaterThan(0);
      for (const i of [1, 2, 3, 5, 6, 7]) expect(calls[i].verdict!.miss).toBeNull();
    } finally {
      await proxy.close();
      await server.close();
    }
  }, 60_000);
});

describe('an idle client: the cache expires', () => {
  it('idle past the 5-minute TTL: ttl_expired with the idle minutes; the API sees no divergence, and that is no disagreement', async () => {
    let clock = Date.UTC(2026, 10, 26, 9);
    const now = (): number => clock;
    const server = await startTestServer({ fallback: 'echo', now });
    const proxy = await startProxy({ upstream: server.url, strategy: 'none', cacheDiagnostics: true, now });
    try {
      // Seven idle minutes before call 1 (a clean append), twenty seconds before the others.
      await breakerClient(proxy.url).run((i) => (clock += i === 1 ? 7 * 60_000 : 20_000));
      const verdicts = proxy.engine.sessions.all().flatMap((e) =>
        proxy.engine
          .state(e.id)!
          .inspector.snapshot()!
          .calls.map((p) => p.verdict!),
      );
      expect(verdicts.map((v) => v.miss?.reason ?? null)).toEqual(
        SCRIPT.map((s, i) => (i === 1 ? 'ttl_expired' : s.expected)),
      );
      const idle = verdicts[1];
      expect(idle.miss).toMatchObject({ reason: 'ttl_expired', source: 'local', idleMinutes: 7 });
      expect(idle.miss!.missedTokens).toBeGreaterThan(0);
      expect(idle.miss!.missedTokens).toBe(verdicts[0].usage!.written + verdicts[0].usage!.read - idle.usage!.read);
      expect(idle.api).toBeNull();
      expect(idle.disagreement).toBeUndefined();
      expect(idle.beyondRules).toBe(false);
    } finally {
      await proxy.close();
      await server.close();
    }
  }, 60_000);
});
