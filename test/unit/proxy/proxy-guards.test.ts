/**
 * Issue 27, finding 1: the proxy's own work never ends the process. A background step that
 * throws (the inspector's view of a call, a refinement step) is reported on the warn channel
 * (stderr in the CLI) and in the inspector's findings; the session's next call works.
 * The failures are injected into the real proxy (in process) against the local test server.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../../../src/dev/server';
import { ProxyEngine } from '../../../src/core/proxy/proxy-engine';
import { startProxy, type ProxyHandle } from '../../../src/host/proxy/server';

const MODEL = 'claude-sonnet-4-6';
let server: TestServer;
let proxy: ProxyHandle;
const warned: string[] = [];

beforeAll(async () => {
  server = await startTestServer({ fallback: 'echo' });
  proxy = await startProxy({ upstream: server.url, strategy: 'default', warn: (l) => warned.push(l) });
});
afterAll(async () => {
  await proxy.close();
  await server.close();
});

async function call(key: string, text: string): Promise<number> {
  const res = await fetch(`${proxy.url}/v1/messages`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': 'k',
      'anthropic-version': '2023-06-01',
      'x-claude-code-session-id': key,
    },
    body: JSON.stringify({ model: MODEL, max_tokens: 20, messages: [{ role: 'user', content: text }] }),
  });
  await res.text();
  return res.status;
}

/** Let the proxy's background steps (setImmediate) run. */
const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 50));

function findingsOf(key: string): string[] {
  const entry = proxy.engine.sessions.all().find((e) => e.key === key);
  const st = entry && proxy.engine.state(entry.id);
  return (st?.inspector.snapshot()?.findings ?? []).map((f) => f.message);
}

describe('the proxy goes on when its own work fails (issue 27)', () => {
  it('a failing background step after forwarding is reported (warn, findings), and the next call works', async () => {
    const spy = vi.spyOn(proxy.engine, 'afterForward').mockImplementationOnce(() => {
      throw new RangeError('Maximum call stack size exceeded');
    });
    expect(await call('guard-a', 'first call')).toBe(200);
    await settle();
    expect(spy).toHaveBeenCalled();
    expect(warned.some((l) => l.includes('recording the call failed') && l.includes('RangeError'))).toBe(true);
    expect(findingsOf('guard-a').some((m) => m.includes('RangeError: Maximum call stack size exceeded'))).toBe(true);
    expect(await call('guard-a', 'first call')).toBe(200);
    expect(await call('guard-b', 'another session')).toBe(200);
  });

  it('a refinement step whose counting throws is reported and does not throw; counting goes on', () => {
    const lines: string[] = [];
    const engine = new ProxyEngine({ strategy: 'default', warn: (l) => lines.push(l) });
    const content = `a big file\n${'line of a file\n'.repeat(2_000)}`;
    const raw = Buffer.from(JSON.stringify({ model: MODEL, max_tokens: 20, messages: [{ role: 'user', content }] }));
    const f = engine.onRequest(raw, { 'x-claude-code-session-id': 'guard-c' });
    const st = engine.state(f.sessionId!)!;
    expect(st.engine.tokens.pending()).toBeGreaterThan(0);
    vi.spyOn(st.engine.tokens, 'refine').mockImplementationOnce(() => {
      throw new RangeError('Maximum call stack size exceeded');
    });
    expect(() => engine.refineStep()).not.toThrow();
    expect(lines.some((l) => l.includes('counting tokens failed'))).toBe(true);
    expect(st.inspector.snapshot()?.findings.some((x) => x.message.includes('counting tokens failed'))).toBe(true);
    while (engine.refineStep());
    expect(st.engine.tokens.pending()).toBe(0);
    expect(engine.onRequest(raw, { 'x-claude-code-session-id': 'guard-c' }).sessionId).toBe(f.sessionId);
    engine.close();
  });

  it('a request handler that throws answers 502 and reports it; the proxy serves the next request', async () => {
    vi.spyOn(proxy.engine, 'handle').mockImplementationOnce(() => {
      throw new TypeError('engine broke');
    });
    expect(await call('guard-d', 'hello')).toBe(502);
    expect(warned.some((l) => l.includes('handling a request failed') && l.includes('engine broke'))).toBe(true);
    expect(await call('guard-d', 'hello')).toBe(200);
  });
});
