/**
 * Slow clients of the proxy (and of the inspector server it is built on): headers that do not
 * arrive in time and request bodies that stall get their connection closed; a body that keeps
 * flowing and a response streamed slowly from the upstream are not cut. The timeouts are
 * injected small; nothing here asserts a duration, only what happened to the socket.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faults } from '../../../src/dev/errors';
import { startTestServer, type TestServer } from '../../../src/dev/server';
import { startProxy, type ProxyHandle } from '../../../src/host/proxy/server';
import { startInspectorServer, type InspectorServer } from '../../../src/host/standalone/server';

const TIMEOUTS = { headersMs: 200, bodyStallMs: 200 };

let upstream: TestServer;
let proxy: ProxyHandle;
let inspector: InspectorServer;
beforeAll(async () => {
  upstream = await startTestServer({ fallback: 'echo' });
  proxy = await startProxy({ upstream: upstream.url, timeouts: TIMEOUTS });
  const empty = { snapshot: () => undefined, handle: () => undefined };
  inspector = await startInspectorServer(empty, { root: process.cwd(), timeouts: TIMEOUTS });
});
afterAll(async () => {
  await proxy?.close();
  await inspector?.close();
  await upstream?.close();
});

/** A raw connection: what the server sent until it closed the socket. */
function open(port: number): { socket: Socket; closed: Promise<string> } {
  const socket = connect(port, '127.0.0.1');
  let got = '';
  socket.setEncoding('utf8');
  socket.on('data', (c: string) => (got += c));
  const closed = new Promise<string>((ok) => socket.on('close', () => ok(got)));
  socket.on('error', () => undefined);
  return { socket, closed };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const messages = [{ role: 'user', content: 'hello there' }];
const body = JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 64, messages });
const API = { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' };
const apiHeaders = (port: number, length: number): string => {
  const fields = Object.entries(API).map(([k, v]) => `${k}: ${v}`);
  const lines = [`Host: 127.0.0.1:${port}`, ...fields, `content-length: ${length}`];
  return `POST /v1/messages HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
};

describe('slow clients', () => {
  it('closes a connection whose headers do not arrive in time (408), on the proxy and the inspector', async () => {
    for (const port of [proxy.port, inspector.port]) {
      const c = open(port);
      c.socket.write(`GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nx-slow: `);
      expect(await c.closed).toMatch(/^HTTP\/1\.1 408 /);
    }
  });

  it('drops a request whose body stalls, and answers the next one', async () => {
    upstream.reset();
    const c = open(proxy.port);
    c.socket.write(apiHeaders(proxy.port, body.length) + body.slice(0, 10));
    const sent = await c.closed;
    expect(sent).not.toMatch(/^HTTP\/1\.1 200/);
    const next = await fetch(`${proxy.url}/v1/messages`, { method: 'POST', headers: API, body });
    expect(next.status).toBe(200);
  });

  it('keeps a body that flows slowly but never stalls', async () => {
    const c = open(proxy.port);
    c.socket.write(apiHeaders(proxy.port, body.length));
    // Eight pieces, each well within the stall time; together longer than it.
    const step = Math.ceil(body.length / 8);
    for (let i = 0; i < body.length; i += step) {
      await sleep(TIMEOUTS.bodyStallMs / 4);
      c.socket.write(body.slice(i, i + step));
    }
    const got = await new Promise<string>((ok) => {
      let text = '';
      c.socket.on('data', (d: string) => {
        text += d;
        if (text.includes('"end_turn"')) ok(text);
      });
    });
    expect(got).toMatch(/^HTTP\/1\.1 200 /);
    c.socket.destroy();
  });

  it('never cuts a response the upstream streams slowly (gaps longer than every timeout)', async () => {
    upstream.reset();
    upstream.fault(faults.slow(TIMEOUTS.bodyStallMs * 2));
    const res = await fetch(`${proxy.url}/v1/messages`, {
      method: 'POST',
      headers: API,
      body: JSON.stringify({ ...JSON.parse(body), stream: true }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    const events = text.split('\n').filter((l) => l.startsWith('event: '));
    expect(events.length).toBeGreaterThan(3);
    expect(events.at(-1)).toBe('event: message_stop');
  });
});
