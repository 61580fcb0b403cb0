/** Failures through the real SDK client: retries, prompt too long, 401, other 400s. */
import { afterEach, describe, expect, it } from 'vitest';
import { faults } from '../../../src/dev/server';
import { eventsOf, expectAllValid, expectPaired, harness, textOf, type Harness } from './helpers';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const ANSWER = 'All good now, after the fault. '.repeat(5);

describe('retries', () => {
  it('honors retry-after on 429 (seconds), then succeeds', async () => {
    h = await harness();
    h.server.fault(faults.rateLimit(1));
    h.server.script({ content: [{ type: 'text', text: ANSWER }] });
    const result = await h.loop.run('Hi');
    expect(result).toEqual({ reason: 'end_turn', calls: 1 });
    const [retry] = eventsOf(h.events, 'retry');
    expect(retry).toMatchObject({ attempt: 1, delayMs: 1000, status: 429, reason: '429 rate_limit_error' });
  });

  it('prefers retry-after-ms and caps a long retry-after', async () => {
    h = await harness({
      config: { retry: { maxRetries: 3, baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 50, jitter: 0 } },
    });
    h.server.fault(
      faults.http(429, 'slow down', { retryAfterMs: 30, retryAfterSec: 9 }),
      faults.http(429, 'slow down', { retryAfterSec: 120 }),
    );
    h.server.script({ content: [{ type: 'text', text: ANSWER }] });
    await h.loop.run('Hi');
    expect(eventsOf(h.events, 'retry').map((r) => r.delayMs)).toEqual([30, 50]);
  });

  it('backs off exponentially on 529 and 500', async () => {
    h = await harness();
    h.server.fault(faults.overloaded(), faults.serverError());
    h.server.script({ content: [{ type: 'text', text: ANSWER }] });
    await h.loop.run('Hi');
    expect(eventsOf(h.events, 'retry').map((r) => [r.status, r.delayMs])).toEqual([
      [529, 5],
      [500, 10],
    ]);
  });

  it('retries a stream cut mid-message and an error event after 200, recording only the complete message', async () => {
    h = await harness();
    h.server.fault(faults.reset(6), faults.errorEvent(8));
    h.server.script({ content: [{ type: 'text', text: ANSWER }] });
    const result = await h.loop.run('Hi');
    expect(result.reason).toBe('end_turn');
    const retries = eventsOf(h.events, 'retry');
    expect(retries.map((r) => r.reason)).toEqual([
      expect.stringMatching(/stream cut mid-message/),
      expect.stringMatching(/overloaded_error during the stream/),
    ]);
    // Deltas of the cut attempts were streamed, but the session holds one complete message.
    expect(
      eventsOf(h.events, 'text-delta')
        .map((d) => d.text)
        .join('').length,
    ).toBeGreaterThan(ANSWER.length);
    expect(h.session.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(textOf([h.session.messages[1].blocks[0].param])).toBe(ANSWER);
    expect(h.session.calls).toHaveLength(1);
    expect(h.messagesRequests()).toHaveLength(3);
  });

  it('gives up with a clear error after the last retry; the session stays intact', async () => {
    h = await harness();
    h.server.faultWhen(() => faults.overloaded());
    const result = await h.loop.run('Hi');
    expect(result.reason).toBe('error');
    expect(result.error).toMatchObject({ kind: 'retries-exhausted', status: 529 });
    expect(result.error?.message).toMatch(/did not answer after 4 attempts .*529 overloaded_error.*session is saved/);
    expect(eventsOf(h.events, 'error')).toHaveLength(1);
    expect(h.session.messages.map((m) => m.role)).toEqual(['user']);
    expect(h.messagesRequests()).toHaveLength(4);
    // The session goes on once the API is back.
    h.server.faultWhen(undefined);
    h.server.script({ content: [{ type: 'text', text: ANSWER }] });
    expect((await h.loop.run()).reason).toBe('end_turn');
    expectAllValid(h.server);
  });
});

describe('prompt is too long', () => {
  /** A session of `rounds` read_file rounds over a big file. */
  function scriptReads(rounds: number): void {
    for (let i = 0; i < rounds; i++)
      h!.server.script({
        content: [
          { type: 'text', text: `Reading part ${i}.` },
          { type: 'tool_use', name: 'read_file', input: { path: `big${i}.txt` } },
        ],
      });
    h!.server.script({ content: [{ type: 'text', text: 'Read everything.' }] });
  }
  const bigFiles = (n: number): Record<string, string> =>
    Object.fromEntries(
      Array.from({ length: n }, (_, i) => [`big${i}.txt`, `line ${i} of a long file with words\n`.repeat(150)]),
    );

  it('trims with an emergency window at 60% of the reported maximum and retries once', async () => {
    h = await harness({ files: bigFiles(6), config: { strategy: 'none' } });
    scriptReads(6);
    await h.loop.run('Read all the big files.');
    expect(h.session.allOverlays()).toHaveLength(0);
    // The window shrinks under the running session (as if the model changed): the next request overflows.
    const last = h.messagesRequests().at(-1)!;
    const maximum = 9_000;
    expect(last.validation.ok).toBe(true);
    await h.server.close();
    const { startTestServer } = await import('../../../src/dev/server');
    const small = await startTestServer({ fallback: 'fail', contextWindow: maximum, port: h.server.port });
    small.script({ content: [{ type: 'text', text: 'Fits now.' }] });
    try {
      const result = await h.loop.run('And now?');
      expect(result).toEqual({ reason: 'end_turn', calls: 1 });
      const [tooLong, retried] = small.requests;
      expect(tooLong.validation.message).toMatch(/^prompt is too long: \d+ tokens > 9000 maximum$/);
      expect(retried.validation.ok).toBe(true);
      const [recovery] = eventsOf(h.events, 'context-recovery');
      expect(recovery).toMatchObject({ maximum });
      expect(recovery.budget).toBeLessThan(maximum * 0.6);
      // The window removes whole tool rounds, one prune per message or tool result.
      const windows = h.session.allOverlays().filter((o) => o.author === 'strategy:atomic-window');
      expect(windows.length).toBeGreaterThan(0);
      expect(recovery.overlaysAdded).toBe(windows.length);
      expect(windows.every((o) => o.kind === 'prune')).toBe(true);
      expectPaired(h.session);
    } finally {
      await small.close();
    }
  });

  it('says so plainly, with the numbers, when even the trimmed request is too long', async () => {
    h = await harness({ server: { contextWindow: 3_000 } });
    const result = await h.loop.run(`Please consider this: ${'a very long prompt '.repeat(2_000)}`);
    expect(result.reason).toBe('error');
    expect(result.error?.kind).toBe('prompt-too-long');
    expect(result.error?.message).toMatch(
      /too long for claude-sonnet-4-6 even after trimming: \d+ tokens > 3000 maximum \(before trimming: \d+ tokens\)/,
    );
    expect(result.error?.maximum).toBe(3_000);
    expect(h.messagesRequests()).toHaveLength(2);
    expect(h.session.messages).toHaveLength(1);
  });
});

describe('errors that are not retried', () => {
  it('401: API key missing or invalid, and how to set it', async () => {
    h = await harness({ server: { apiKey: 'the-right-key' }, apiKey: 'a-wrong-key' });
    const result = await h.loop.run('Hi');
    expect(result.error).toMatchObject({ kind: 'auth', status: 401 });
    expect(result.error?.message).toMatch(/^API key missing or invalid \(invalid x-api-key\): set ANTHROPIC_API_KEY/);
    expect(h.messagesRequests()).toHaveLength(1);
    expect(eventsOf(h.events, 'retry')).toHaveLength(0);
  });

  it('other 400s: the API message and the request id', async () => {
    h = await harness({ config: { maxTokens: 0 } });
    const result = await h.loop.run('Hi');
    expect(result.error?.kind).toBe('api');
    expect(result.error?.status).toBe(400);
    expect(result.error?.requestId).toMatch(/^req_/);
    expect(result.error?.message).toContain('max_tokens: Input should be greater than or equal to 1');
    expect(result.error?.message).toContain(result.error!.requestId!);
  });

  it('an error event that is not transient is reported, not retried', async () => {
    h = await harness();
    h.server.fault(faults.errorEvent(2, 'invalid_request_error', 'something is off'));
    h.server.script({ content: [{ type: 'text', text: ANSWER }] });
    const result = await h.loop.run('Hi');
    expect(result.error?.message).toMatch(/something is off/);
    expect(h.session.messages).toHaveLength(1);
  });
});
