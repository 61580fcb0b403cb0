/**
 * What to do about a failed model call: retry (with how long to wait), recover
 * from "prompt is too long", or stop with a clear message. Pure functions over
 * the SDK's error classes, so the policy is testable without a network.
 */
import { AnthropicError, APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import { CREDENTIALS_HINT, type RetryPolicy } from './config';

/** HTTP statuses worth retrying: timeout, conflict, rate limit, server errors and 529 overloaded (SDK's own rule). */
const RETRY_STATUSES: ReadonlySet<number> = new Set([408, 409, 429]);
const FIRST_SERVER_ERROR = 500;
/** Error types of an `error` SSE event (after HTTP 200) that are transient. */
const RETRY_ERROR_TYPES: ReadonlySet<string> = new Set([
  'overloaded_error',
  'api_error',
  'rate_limit_error',
  'timeout_error',
]);
/** The API's wording: `prompt is too long: 208745 tokens > 200000 maximum`. */
const PROMPT_TOO_LONG = /prompt is too long:\s*([\d,]+)\s*tokens\s*>\s*([\d,]+)\s*maximum/i;
/** Messages of SDK errors raised when a stream is cut or ends before `message_stop`. */
const CUT_STREAM =
  /terminated|socket|ECONNRESET|EPIPE|premature|stream ended|request ended|Unexpected event order|network/i;
const MS_PER_SECOND = 1000;

export type Failure =
  | { readonly kind: 'abort' }
  | {
      readonly kind: 'retryable';
      readonly reason: string;
      readonly status?: number;
      readonly retryAfterMs?: number;
      readonly requestId?: string;
    }
  | {
      readonly kind: 'prompt-too-long';
      readonly tokens: number;
      readonly maximum: number;
      readonly message: string;
      readonly requestId?: string;
    }
  | { readonly kind: 'auth'; readonly message: string; readonly status?: number; readonly requestId?: string }
  | { readonly kind: 'fatal'; readonly message: string; readonly status?: number; readonly requestId?: string };

function header(headers: Headers | undefined, name: string): string | undefined {
  const v = headers?.get(name);
  return v === null || v === undefined ? undefined : v;
}

/**
 * The wait the server asked for, in ms: `retry-after-ms` first (what the SDK
 * prefers), then `retry-after` as seconds or as an HTTP date.
 */
export function retryAfterMs(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  const ms = Number(header(headers, 'retry-after-ms'));
  if (Number.isFinite(ms) && ms >= 0 && header(headers, 'retry-after-ms') !== undefined) return ms;
  const raw = header(headers, 'retry-after');
  if (raw === undefined) return undefined;
  const secs = Number(raw);
  if (Number.isFinite(secs) && secs >= 0) return secs * MS_PER_SECOND;
  const date = Date.parse(raw);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** `429 rate_limit_error`, or the error type/message when there is no status. */
function describe(e: APIError): string {
  const parts = [e.status !== undefined ? String(e.status) : '', e.type ?? ''].filter(Boolean);
  return parts.length ? parts.join(' ') : (e.apiMessage ?? e.message);
}

/** Parse the numbers of a "prompt is too long" message. */
export function parsePromptTooLong(
  message: string | null | undefined,
): { tokens: number; maximum: number } | undefined {
  const m = PROMPT_TOO_LONG.exec(message ?? '');
  if (!m) return undefined;
  return { tokens: Number(m[1].replace(/,/g, '')), maximum: Number(m[2].replace(/,/g, '')) };
}

function classifyApiError(e: APIError): Failure {
  const requestId = e.requestID ?? undefined;
  const status = e.status;
  if (status === undefined) {
    // An `error` event after HTTP 200 (the stream carried it): transient unless it says the request is bad.
    if (e.type && RETRY_ERROR_TYPES.has(e.type))
      return { kind: 'retryable', reason: `${e.type} during the stream`, requestId };
    return {
      kind: 'fatal',
      message: `the API reported an error during the stream: ${e.apiMessage ?? e.message}`,
      requestId,
    };
  }
  if (status === 401) {
    return {
      kind: 'auth',
      status,
      requestId,
      message: `API key missing or invalid (${e.apiMessage ?? 'authentication_error'}): ${CREDENTIALS_HINT}.`,
    };
  }
  const tooLong = status === 400 ? parsePromptTooLong(e.apiMessage) : undefined;
  if (tooLong) return { kind: 'prompt-too-long', ...tooLong, message: e.apiMessage ?? '', requestId };
  const shouldRetry = header(e.headers, 'x-should-retry');
  const retry =
    shouldRetry === 'true' || (shouldRetry !== 'false' && (RETRY_STATUSES.has(status) || status >= FIRST_SERVER_ERROR));
  if (retry)
    return { kind: 'retryable', reason: describe(e), status, retryAfterMs: retryAfterMs(e.headers), requestId };
  const rid = requestId ? ` (request id ${requestId})` : '';
  return {
    kind: 'fatal',
    status,
    requestId,
    message: `the API refused the request: ${status} ${e.type ?? ''}: ${e.apiMessage ?? e.message}${rid}`,
  };
}

/** Decide what a thrown error from one streamed call means. */
export function classifyFailure(e: unknown): Failure {
  if (e instanceof APIUserAbortError) return { kind: 'abort' };
  if (e instanceof APIConnectionError) return { kind: 'retryable', reason: `connection error: ${e.message}` };
  if (e instanceof APIError) return classifyApiError(e);
  if (e instanceof AnthropicError) {
    if (/Could not resolve authentication method/i.test(e.message))
      return { kind: 'auth', message: `API key missing: ${CREDENTIALS_HINT}.` };
    const cause = (e as { cause?: unknown }).cause;
    if (CUT_STREAM.test(e.message) || cause instanceof TypeError)
      return { kind: 'retryable', reason: `stream cut mid-message (${e.message})` };
    return { kind: 'fatal', message: e.message };
  }
  const msg = e instanceof Error ? e.message : String(e);
  if (CUT_STREAM.test(msg)) return { kind: 'retryable', reason: `connection problem (${msg})` };
  return { kind: 'fatal', message: msg };
}

/**
 * Wait before retry number `retry` (1-based): exponential backoff with jitter,
 * or the server's retry-after when it asked for one (capped at maxRetryAfterMs).
 */
export function backoffDelay(
  retry: number,
  policy: RetryPolicy,
  retryAfter?: number,
  random: () => number = Math.random,
): number {
  if (retryAfter !== undefined) return Math.min(retryAfter, policy.maxRetryAfterMs);
  const base = Math.min(policy.baseDelayMs * 2 ** (retry - 1), policy.maxDelayMs);
  const spread = base * policy.jitter * (2 * random() - 1);
  return Math.max(0, Math.min(policy.maxDelayMs, Math.round(base + spread)));
}

/** Resolves after `ms`, or false at once when `signal` aborts (true when the wait completed). */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(ok);
    };
    const onAbort = (): void => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
