/**
 * Error responses in the API's shape (confirmed against docs.claude.com/en/api/errors
 * and the error bodies quoted in public issue threads):
 *
 *   {"type":"error","error":{"type":"invalid_request_error","message":"…"},"request_id":"req_…"}
 *
 * Every response also carries a `request-id` header, which the SDK exposes as
 * `APIError.requestID`.
 */
import { randomBytes } from 'node:crypto';
import type { Fault } from './types';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Real ids look like `req_011CXqXVfVqMJd8rzkVKPZDM`: a prefix and 24 base62 characters. */
const ID_LENGTH = 24;

export function randomId(prefix: string): string {
  const bytes = randomBytes(ID_LENGTH);
  let out = prefix;
  for (const b of bytes) out += BASE62[b % BASE62.length];
  return out;
}

/** Deterministic id from a seed (message and tool_use ids, so scripted runs are reproducible). */
export function seededId(prefix: string, seed: number): string {
  let x = seed >>> 0 || 1;
  let out = prefix;
  for (let i = 0; i < ID_LENGTH; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out += BASE62[x % BASE62.length];
  }
  return out;
}

export interface ErrorBody {
  readonly type: 'error';
  readonly error: { readonly type: string; readonly message: string };
  readonly request_id: string;
}

export function errorBody(type: string, message: string, requestId: string): ErrorBody {
  return { type: 'error', error: { type, message }, request_id: requestId };
}

/** The error `type` the API uses for a status. */
export function errorTypeFor(status: number): string {
  switch (status) {
    case 400:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 529:
      return 'overloaded_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

/** Ready-made faults with the API's wording. */
export const faults = {
  rateLimit(retryAfterSec = 1, message = 'Number of request tokens has exceeded your per-minute rate limit'): Fault {
    return { kind: 'http', status: 429, errorType: 'rate_limit_error', message, retryAfterSec };
  },
  overloaded(): Fault {
    return { kind: 'http', status: 529, errorType: 'overloaded_error', message: 'Overloaded' };
  },
  serverError(): Fault {
    return { kind: 'http', status: 500, errorType: 'api_error', message: 'Internal server error' };
  },
  http(
    status: number,
    message: string,
    extra: { retryAfterSec?: number; retryAfterMs?: number; shouldRetry?: boolean } = {},
  ): Fault {
    return { kind: 'http', status, errorType: errorTypeFor(status), message, ...extra };
  },
  /** Destroy the connection after `afterEvents` SSE events (0: right after the 200 headers). */
  reset(afterEvents = 3): Fault {
    return { kind: 'reset', afterEvents };
  },
  /** An `error` event (default `overloaded_error`) after `afterEvents` SSE events of an HTTP 200 stream. */
  errorEvent(afterEvents = 3, errorType = 'overloaded_error', message = 'Overloaded'): Fault {
    return { kind: 'sse-error', afterEvents, errorType, message };
  },
  slow(delayMs: number): Fault {
    return { kind: 'slow', delayMs };
  },
  stall(ms: number): Fault {
    return { kind: 'stall', ms };
  },
};

/** HTTP status for an error type raised mid-stream when the request was not streaming. */
export function statusForErrorType(type: string): number {
  switch (type) {
    case 'overloaded_error':
      return 529;
    case 'rate_limit_error':
      return 429;
    case 'invalid_request_error':
      return 400;
    default:
      return 500;
  }
}
