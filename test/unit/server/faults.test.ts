import Anthropic, { APIConnectionError, APIConnectionTimeoutError, APIError } from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { faults, startTestServer, type TestServer } from '../../../src/dev/server';

const MODEL = 'claude-sonnet-4-6';
const params = { model: MODEL, max_tokens: 64, messages: [{ role: 'user' as const, content: 'hello' }] };
const reply = {
  content: [{ type: 'text' as const, text: 'A reply long enough to be cut into several text deltas by the server.' }],
};
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ fallback: 'fail' });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const client = (maxRetries: number, timeout?: number): Anthropic =>
  new Anthropic({ apiKey: 'test', baseURL: server.url, maxRetries, ...(timeout ? { timeout } : {}) });

describe('test server: injected faults seen through the real SDK', () => {
  it('429 with retry-after is retried by the SDK after the advertised delay, then succeeds', async () => {
    server.fault(faults.rateLimit(1));
    server.script(reply);
    const msg = await client(2).messages.stream(params).finalMessage();
    expect(msg.content[0]).toMatchObject({ type: 'text' });
    expect(server.requests.map((r) => r.response?.status)).toEqual([429, 200]);
    expect(server.requests[1].headers['x-stainless-retry-count']).toBe('1');
  });

  it('retry-after-ms takes precedence, and 500s are retried too', async () => {
    server.fault(
      faults.http(429, 'slow down', { retryAfterMs: 20 }),
      faults.http(500, 'Internal server error', { retryAfterMs: 20 }),
    );
    server.script(reply);
    const msg = await client(2).messages.create(params);
    expect(msg.stop_reason).toBe('end_turn');
    expect(server.requests.map((r) => r.response?.status)).toEqual([429, 500, 200]);
  });

  it('gives up after maxRetries with the error class, type and request id', async () => {
    server.fault(faults.overloaded());
    const err = await client(0)
      .messages.create(params)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.InternalServerError);
    const apiErr = err as APIError;
    expect(apiErr.status).toBe(529);
    expect(apiErr.type).toBe('overloaded_error');
    expect(apiErr.requestID).toBe(server.requests[0].response?.requestId);
    expect(apiErr.error).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
      request_id: apiErr.requestID,
    });
  });

  it('x-should-retry: false stops the SDK from retrying a 429', async () => {
    server.fault(faults.http(429, 'no retry', { retryAfterMs: 1, shouldRetry: false }));
    await expect(client(2).messages.create(params)).rejects.toBeInstanceOf(Anthropic.RateLimitError);
    expect(server.requests).toHaveLength(1);
  });

  it('an error event after HTTP 200 surfaces as an APIError and keeps the scripted turn', async () => {
    server.fault(faults.errorEvent(4));
    server.script(reply);
    const stream = client(2).messages.stream(params);
    const err = await stream.finalMessage().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIError);
    expect((err as APIError).type).toBe('overloaded_error');
    expect((err as APIError).message).toContain('Overloaded');
    expect(server.requests).toHaveLength(1); // the SDK does not retry a stream that already started
    expect(server.requests[0].response).toMatchObject({ status: 200, interrupted: true });
    expect(server.pending()).toBe(1);
    // The retry (the engine's job) gets the same turn.
    const again = await client(0).messages.stream(params).finalMessage();
    expect(again.content[0]).toMatchObject({ text: reply.content[0].text });
  });

  it('a connection reset mid-stream surfaces as an error after some text arrived', async () => {
    server.fault(faults.reset(5));
    server.script(reply);
    const stream = client(0).messages.stream(params);
    const seen: string[] = [];
    stream.on('text', (t) => seen.push(t));
    const err = await stream.finalMessage().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(seen.length).toBeGreaterThan(0);
    expect(server.requests[0].response).toMatchObject({ kind: 'reset', interrupted: true });
    expect(server.pending()).toBe(1);
  });

  it('a reset before any body byte of a non-streaming request is a retried connection error', async () => {
    server.fault(faults.reset(0), faults.reset(0), faults.reset(0));
    await expect(client(2).messages.create(params)).rejects.toBeInstanceOf(APIConnectionError);
    expect(server.requests).toHaveLength(3);
  });

  it('slow streams pace their events: each arrives on its own', async () => {
    server.fault(faults.slow(25));
    server.script({ content: [{ type: 'text', text: 'ab' }] });
    const res = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'test', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ ...params, stream: true }),
    });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    const perChunk: number[] = [];
    for (let r = await reader.read(); !r.done; r = await reader.read())
      perChunk.push((decoder.decode(r.value).match(/^event: /gm) ?? []).length);
    // 7 events (start, block start, ping, 1 delta, block stop, delta, stop), paused between: never two in one read.
    expect(perChunk.reduce((a, b) => a + b, 0)).toBe(7);
    expect(Math.max(...perChunk)).toBe(1);
  });

  it('a stalled server trips the client timeout', async () => {
    server.fault(faults.stall(1000));
    server.script(reply);
    await expect(client(0, 200).messages.create(params)).rejects.toBeInstanceOf(APIConnectionTimeoutError);
    await vi.waitFor(() => expect(server.requests[0].response).toMatchObject({ status: 499, interrupted: true }), {
      timeout: 2000,
    });
    expect(server.pending()).toBe(1);
  });

  it('faultWhen decides per request', async () => {
    server.faultWhen(({ seq }) => (seq % 2 === 1 ? faults.http(529, 'Overloaded', { retryAfterMs: 1 }) : undefined));
    server.script(reply, reply);
    await client(1).messages.create(params);
    await client(1).messages.create(params);
    expect(server.requests.map((r) => r.response?.status)).toEqual([529, 200, 529, 200]);
  });
});

describe('test server: authentication and size limits', () => {
  it('requires the configured key', async () => {
    const keyed = await startTestServer({ apiKey: 'sk-right', fallback: 'echo' });
    try {
      const wrong = new Anthropic({ apiKey: 'sk-wrong', baseURL: keyed.url, maxRetries: 0 });
      const err = await wrong.messages.create(params).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Anthropic.AuthenticationError);
      expect((err as APIError).message).toContain('invalid x-api-key');
      const missing = await fetch(`${keyed.url}/v1/messages`, {
        method: 'POST',
        headers: { 'anthropic-version': '2023-06-01' },
        body: '{}',
      });
      expect(missing.status).toBe(401);
      expect(await missing.json()).toMatchObject({
        type: 'error',
        error: { type: 'authentication_error', message: 'x-api-key header is required' },
      });
      const right = new Anthropic({ apiKey: 'sk-right', baseURL: keyed.url, maxRetries: 0 });
      expect((await right.messages.create(params)).content[0]).toMatchObject({ text: 'echo: hello' });
      expect(keyed.requests.every((r) => r.headers['x-api-key'] === undefined)).toBe(true);
    } finally {
      await keyed.close();
    }
  });

  it('answers 413 request_too_large for bodies over 32 MB', async () => {
    const huge = 'x'.repeat(33 * 1024 * 1024);
    const err = await client(0)
      .messages.create({ ...params, messages: [{ role: 'user', content: huge }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.ContentTooLargeError);
    expect((err as APIError).type).toBe('request_too_large');
  });
});
