/** The retry policy as pure functions: what is retried, how long to wait. */
import { APIConnectionError, APIError, APIUserAbortError, AnthropicError } from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  classifyFailure,
  DEFAULT_RETRY,
  parsePromptTooLong,
  retryAfterMs,
} from '../../../src/core/agent';

const headers = (h: Record<string, string>): Headers => new Headers(h);
const apiError = (
  status: number | undefined,
  type: string,
  message: string,
  h: Record<string, string> = {},
): APIError => APIError.generate(status, { type: 'error', error: { type, message } }, undefined, headers(h));

describe('retry-after', () => {
  it('reads retry-after-ms first, then seconds, then an HTTP date', () => {
    expect(retryAfterMs(headers({ 'retry-after-ms': '250', 'retry-after': '3' }))).toBe(250);
    expect(retryAfterMs(headers({ 'retry-after': '3' }))).toBe(3000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs(headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }), now)).toBe(5000);
    expect(retryAfterMs(headers({}))).toBeUndefined();
  });

  it('backoff doubles, stays within the cap with jitter, and caps retry-after', () => {
    const p = { ...DEFAULT_RETRY, jitter: 0 };
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => backoffDelay(n, p))).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    for (const r of [0, 0.5, 0.999])
      expect(backoffDelay(10, DEFAULT_RETRY, undefined, () => r)).toBeLessThanOrEqual(DEFAULT_RETRY.maxDelayMs);
    expect(backoffDelay(1, DEFAULT_RETRY, 10 * 60_000)).toBe(DEFAULT_RETRY.maxRetryAfterMs);
    expect(backoffDelay(1, DEFAULT_RETRY, 1500)).toBe(1500);
  });
});

describe('classifyFailure', () => {
  it('retries 429, 529, 5xx, 408, 409, connection errors and cut streams', () => {
    for (const s of [408, 409, 429, 500, 502, 529])
      expect(classifyFailure(apiError(s, 'x', 'm')).kind).toBe('retryable');
    expect(classifyFailure(new APIConnectionError({ message: 'Connection error.' })).kind).toBe('retryable');
    const cut = new AnthropicError('terminated');
    (cut as { cause?: unknown }).cause = new TypeError('terminated');
    expect(classifyFailure(cut)).toMatchObject({ kind: 'retryable', reason: expect.stringMatching(/stream cut/) });
    expect(
      classifyFailure(new AnthropicError('stream ended without producing a Message with role=assistant')).kind,
    ).toBe('retryable');
    expect(classifyFailure(apiError(undefined, 'overloaded_error', 'Overloaded')).kind).toBe('retryable');
  });

  it('honors x-should-retry both ways', () => {
    expect(classifyFailure(apiError(429, 'rate_limit_error', 'm', { 'x-should-retry': 'false' })).kind).toBe('fatal');
    expect(classifyFailure(apiError(400, 'invalid_request_error', 'm', { 'x-should-retry': 'true' })).kind).toBe(
      'retryable',
    );
  });

  it('recognizes prompt too long, 401 and aborts; other 4xx are fatal', () => {
    expect(
      classifyFailure(apiError(400, 'invalid_request_error', 'prompt is too long: 208,745 tokens > 200000 maximum')),
    ).toMatchObject({
      kind: 'prompt-too-long',
      tokens: 208745,
      maximum: 200000,
    });
    expect(classifyFailure(apiError(401, 'authentication_error', 'invalid x-api-key'))).toMatchObject({
      kind: 'auth',
      message: expect.stringMatching(/API key missing or invalid/),
    });
    expect(classifyFailure(new APIUserAbortError()).kind).toBe('abort');
    expect(classifyFailure(apiError(404, 'not_found_error', 'model: x')).kind).toBe('fatal');
    expect(classifyFailure(apiError(413, 'request_too_large', 'too big')).kind).toBe('fatal');
    expect(classifyFailure(new AnthropicError('Could not resolve authentication method.')).kind).toBe('auth');
    expect(parsePromptTooLong('nothing')).toBeUndefined();
  });
});
