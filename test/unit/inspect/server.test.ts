import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importTranscript } from '../../../src/core/import';
import { ReplayInspector, startInspectorServer, type InspectorServer } from '../../../src/host/standalone';
import type { HostMessage } from '../../../src/protocol';
import { SAMPLES, TRANSCRIPTS } from './helpers';

interface Res {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw HTTP request (so Host and Origin can be forged), without the access token. */
function rawNoToken(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Res> {
  return new Promise((ok, fail) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (data += c));
      res.on('end', () => ok({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
    });
    req.on('error', fail);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

describe('standalone inspector server', () => {
  let server: InspectorServer;
  let inspector: ReplayInspector;
  let host: string;
  /** A raw request with the server's token, as the page sends it. */
  const raw = (port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
    rawNoToken(port, method, path, { 'X-Trimline-Token': server.token, ...headers }, body);
  const post = (msg: unknown, extra: Record<string, string> = {}) =>
    raw(
      server.port,
      'POST',
      '/api/request',
      { Host: host, 'Content-Type': 'application/json', ...extra },
      JSON.stringify(msg),
    );

  /** A package root of its own with stand-in assets: the unit tests need nothing built (no dist/). */
  let root: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'trimline-inspector-root-'));
    mkdirSync(join(root, 'dist', 'webview'), { recursive: true });
    writeFileSync(join(root, 'dist', 'webview', 'inspector.js'), 'void 0;\n');
    writeFileSync(join(root, 'dist', 'webview', 'inspector.css'), 'body {}\n');
    writeFileSync(join(root, 'package.json'), '{}\n');
    writeFileSync(join(root, 'dist', 'cli.js'), 'void 0;\n');
    inspector = new ReplayInspector(importTranscript(`${TRANSCRIPTS}/${SAMPLES[0]}`), { strategy: 'default' });
    server = await startInspectorServer(inspector, { root, mutates: (r) => ReplayInspector.mutates(r) });
    host = `127.0.0.1:${server.port}`;
  });
  afterAll(async () => {
    await server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('listens on 127.0.0.1 only and prints a loopback URL with its access token', () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/`);
    expect(server.token).toMatch(/^[\w-]{43}$/);
    expect(server.pageUrl).toBe(`http://127.0.0.1:${server.port}/?token=${server.token}`);
  });

  it('answers the page and every /api/ path only with the token (403 and no data without it or with a wrong one)', async () => {
    const wrong = `${server.token.slice(0, -1)}${server.token.endsWith('A') ? 'B' : 'A'}`;
    const ready = JSON.stringify({ type: 'ready' });
    const json = { Host: host, 'Content-Type': 'application/json' };
    const tries: Record<string, string>[] = [
      {},
      { 'X-Trimline-Token': wrong },
      { 'X-Trimline-Token': '' },
      { 'X-Trimline-Token': `${server.token}x` },
    ];
    for (const headers of tries) {
      const api = await rawNoToken(server.port, 'POST', '/api/request', { ...json, ...headers }, ready);
      expect(api.status).toBe(403);
      expect(api.body).toMatch(/^forbidden: this inspector needs its access token/);
      expect(api.body).not.toContain('snapshot');
      for (const path of ['/', '/index.html', '/api/events', '/api/other']) {
        expect((await rawNoToken(server.port, 'GET', path, { Host: host, ...headers })).status, path).toBe(403);
      }
    }
    expect((await rawNoToken(server.port, 'POST', `/api/request?token=${wrong}`, json, ready)).status).toBe(403);
    // With it: in the header (the page's fetches) or the query (the printed URL, the event stream).
    const ok = await rawNoToken(
      server.port,
      'POST',
      '/api/request',
      { ...json, 'X-Trimline-Token': server.token },
      ready,
    );
    expect(ok.status).toBe(200);
    expect((JSON.parse(ok.body) as HostMessage[])[0].type).toBe('snapshot');
    expect((await rawNoToken(server.port, 'POST', `/api/request?token=${server.token}`, json, ready)).status).toBe(200);
    expect((await rawNoToken(server.port, 'GET', `/?token=${server.token}`, { Host: host })).status).toBe(200);
    expect(
      (await rawNoToken(server.port, 'GET', '/api/other', { Host: host, 'X-Trimline-Token': server.token })).status,
    ).toBe(404);
    // The bundle holds no data: the page loads it without the token.
    expect((await rawNoToken(server.port, 'GET', '/assets/inspector.css', { Host: host })).status).toBe(200);
  });

  it('a token is per launch', async () => {
    const other = await startInspectorServer(inspector, { root: process.cwd() });
    try {
      expect(other.token).not.toBe(server.token);
      const h = {
        Host: `127.0.0.1:${other.port}`,
        'Content-Type': 'application/json',
        'X-Trimline-Token': server.token,
      };
      expect((await rawNoToken(other.port, 'POST', '/api/request', h, '{"type":"ready"}')).status).toBe(403);
    } finally {
      await other.close();
    }
  });

  it('serves the document with a fresh nonce and a matching CSP header each time', async () => {
    const a = await raw(server.port, 'GET', '/', { Host: host });
    const b = await raw(server.port, 'GET', '/', { Host: host });
    expect(a.status).toBe(200);
    const nonce = /nonce="([^"]+)"/.exec(a.body)![1];
    expect(/nonce="([^"]+)"/.exec(b.body)![1]).not.toBe(nonce);
    expect(a.headers['content-security-policy']).toBe(
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'self' 'nonce-${nonce}'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
    expect(a.headers['x-content-type-options']).toBe('nosniff');
    expect(a.headers['x-frame-options']).toBe('DENY');
  });

  it('serves only the listed assets', async () => {
    const js = await raw(server.port, 'GET', '/assets/inspector.js', { Host: host });
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toMatch(/^text\/javascript/);
    expect((await raw(server.port, 'GET', '/assets/inspector.css', { Host: host })).headers['content-type']).toMatch(
      /^text\/css/,
    );
    for (const p of ['/package.json', '/dist/cli.js'])
      expect((await raw(server.port, 'GET', p, { Host: host })).status).toBe(404);
    // Dot segments are not an origin-form target at all: refused before any lookup, like the proxy's.
    for (const p of ['/assets/../package.json', '/assets/%2e%2e/package.json'])
      expect((await raw(server.port, 'GET', p, { Host: host })).status).toBe(400);
  });

  it('answers only origin-form request targets, on every path (absolute-form, //host, * refused)', async () => {
    for (const target of [`http://${host}/`, `http://${host}/api/events`, '//evil.example/', '*']) {
      expect((await raw(server.port, 'GET', target, { Host: host })).status, target).toBe(400);
    }
    expect(
      (
        await raw(
          server.port,
          'POST',
          `http://${host}/api/request`,
          { Host: host, 'Content-Type': 'application/json' },
          '{"type":"ready"}',
        )
      ).status,
    ).toBe(400);
  });

  it('refuses other hosts and origins (DNS rebinding, cross-site requests)', async () => {
    expect((await raw(server.port, 'GET', '/', { Host: 'evil.example' })).status).toBe(403);
    expect((await raw(server.port, 'GET', '/api/events', { Host: `evil.example:${server.port}` })).status).toBe(403);
    expect((await post({ type: 'ready' }, { Origin: 'https://evil.example' })).status).toBe(403);
    expect((await post({ type: 'ready' }, { Origin: `http://${host}` })).status).toBe(200);
  });

  it('refuses what other web sites send without an Origin (Sec-Fetch-Site), on every path, like the proxy', async () => {
    for (const path of ['/', '/api/events', '/index.js']) {
      expect((await raw(server.port, 'GET', path, { Host: host, 'Sec-Fetch-Site': 'cross-site' })).status, path).toBe(
        403,
      );
      expect((await raw(server.port, 'GET', path, { Host: host, 'Sec-Fetch-Site': 'same-site' })).status, path).toBe(
        403,
      );
    }
    // Typed by the user, or the page's own requests.
    expect((await raw(server.port, 'GET', '/', { Host: host, 'Sec-Fetch-Site': 'none' })).status).toBe(200);
    expect((await post({ type: 'ready' }, { 'Sec-Fetch-Site': 'same-origin' })).status).toBe(200);
  });

  it('validates every message with parseWebviewMessage', async () => {
    expect((await post({ type: 'request', id: 1, request: { op: 'rm -rf' } })).status).toBe(400);
    expect(
      (await raw(server.port, 'POST', '/api/request', { Host: host, 'Content-Type': 'application/json' }, '{not json'))
        .status,
    ).toBe(400);
    expect(
      (await raw(server.port, 'POST', '/api/request', { Host: host, 'Content-Type': 'text/plain' }, '{"type":"ready"}'))
        .status,
    ).toBe(415);
    expect(
      (
        await raw(
          server.port,
          'POST',
          '/api/request',
          { Host: host, 'Content-Type': 'application/json' },
          JSON.stringify({
            type: 'request',
            id: 1,
            request: { op: 'trim', blockId: 'x', text: 'a'.repeat(1_100_000) },
          }),
        )
      ).status,
    ).toBe(413);
    expect((await raw(server.port, 'DELETE', '/api/request', { Host: host })).status).toBe(405);
  });

  it('answers ready with a snapshot and each request with exactly one response', async () => {
    const ready = JSON.parse((await post({ type: 'ready' })).body) as HostMessage[];
    expect(ready).toHaveLength(1);
    expect(ready[0].type).toBe('snapshot');
    const row = inspector.snapshot().rows.find((r) => r.kind === 'tool_result')!;
    const res = JSON.parse(
      (await post({ type: 'request', id: 7, request: { op: 'pin', blockId: row.blockId } })).body,
    ) as HostMessage[];
    expect(res).toEqual([
      { type: 'response', id: 7, ok: true, result: { message: expect.stringMatching(/^Pinned/) as unknown } },
    ]);
    const bad = JSON.parse(
      (await post({ type: 'request', id: 8, request: { op: 'send', text: 'hi' } })).body,
    ) as HostMessage[];
    expect(bad).toEqual([
      {
        type: 'response',
        id: 8,
        ok: false,
        error: expect.stringMatching(/not available in the standalone inspector/) as unknown,
      },
    ]);
    const strat = JSON.parse(
      (await post({ type: 'request', id: 9, request: { op: 'setStrategy', spec: 'no-such-strategy' } })).body,
    ) as HostMessage[];
    expect(strat[0]).toMatchObject({ ok: false, error: expect.stringMatching(/unknown strategy/) as unknown });
  });

  it('switching the strategy replays the transcript and keeps the user pins', async () => {
    const pinned = inspector
      .snapshot()
      .rows.filter((r) => r.state === 'pinned')
      .map((r) => r.blockId);
    expect(pinned.length).toBeGreaterThan(0);
    const res = JSON.parse(
      (await post({ type: 'request', id: 10, request: { op: 'setStrategy', spec: 'none' } })).body,
    ) as HostMessage[];
    expect(res[0]).toMatchObject({ ok: true });
    const s = inspector.snapshot();
    expect(s.strategy).toBe('none');
    expect(s.rows.filter((r) => r.state === 'pinned').map((r) => r.blockId)).toEqual(pinned);
  });
});
