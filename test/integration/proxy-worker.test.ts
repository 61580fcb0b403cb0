/**
 * The proxy's worker thread (dist/proxy-worker.js, built): a big request's parsing, digests and
 * bytes are made there, not on the event loop, and what goes upstream is what the one-go path
 * sends, byte for byte (issue 27).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { workerOffload } from '../../src/core/proxy/offload';
import { ProxyEngine } from '../../src/core/proxy/proxy-engine';
import { bigLog, ccBody, ccMessages, roundAssistant, roundResults } from '../bench/proxy-session';

const WORKER = path.resolve(__dirname, '../../dist/proxy-worker.js');

function body(rounds: number, text: string): Buffer {
  const messages = ccMessages(20);
  for (let k = 0; k < rounds; k++) {
    messages.push(roundAssistant(900 + k));
    const results = roundResults(900 + k);
    if (k === 0) {
      const content = results.content as { type: 'tool_result'; tool_use_id: string; content: string }[];
      content[0] = { ...content[0], content: text };
    }
    messages.push(results);
  }
  return Buffer.from(JSON.stringify(ccBody(messages, 'worker-session')));
}

describe('the proxy worker thread', () => {
  it("does a big request's text-bound work off the event loop, to the same bytes", async () => {
    const failures: unknown[] = [];
    const offload = workerOffload(WORKER, (e) => failures.push(e));
    const steps = new ProxyEngine({ strategy: 'default', offload, bigBodyBytes: 256 * 1024 });
    const oneGo = new ProxyEngine({ strategy: 'default' });
    const text = bigLog(0.6);
    for (let n = 0; n <= 4; n++) {
      const raw = body(n, text);
      const a = oneGo.onRequest(raw, {}, 1_000 * (n + 1));
      const b = await steps.handle(raw, {}, 1_000 * (n + 1));
      expect(b.transformed).toBe(a.transformed);
      expect(b.body.equals(a.body)).toBe(true);
    }
    expect(failures).toEqual([]);
    // Parsing, then the bytes and the digests of what went upstream: two jobs, both in the worker.
    expect(offload.ran.worker).toBeGreaterThanOrEqual(2);
    expect(offload.ran.here).toBe(0);
    steps.close();
    oneGo.close();
  });

  it('a worker that cannot start is reported once, and the work is done on the event loop instead', async () => {
    const failures: unknown[] = [];
    const offload = workerOffload(path.join(path.dirname(WORKER), 'no-such-worker.js'), (e) => failures.push(e));
    const steps = new ProxyEngine({ strategy: 'default', offload, bigBodyBytes: 256 * 1024 });
    const f = await steps.handle(body(1, bigLog(0.6)), {}, 1_000);
    expect(f.transformed).toBe(true);
    expect(failures).toHaveLength(1);
    expect(offload.ran.here).toBeGreaterThanOrEqual(2);
    steps.close();
  });
});
