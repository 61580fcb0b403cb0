/**
 * Types of the local Anthropic-compatible test server (src/dev). Nothing here
 * is shared with the engine: the server is the stand-in for the real API and
 * keeps its own view of the wire format so the two cannot hide each other's bugs.
 */

import type { CacheTrace } from '../core/cache/simulator';

export type StopReason =
  'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal' | 'model_context_window_exceeded';

/** One content block of a scripted assistant turn. */
export type ScriptedBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'tool_use'; readonly name: string; readonly input: unknown; readonly id?: string }
  | { readonly type: 'thinking'; readonly thinking: string; readonly signature?: string }
  | { readonly type: 'redacted_thinking'; readonly data: string };

export interface ScriptedTurn {
  readonly content: readonly ScriptedBlock[];
  /** Default: `tool_use` when the turn has a tool_use block, else `end_turn`. */
  readonly stop_reason?: StopReason;
  /** Default: the estimator's count of the content. */
  readonly output_tokens?: number;
}

/** A wire content block as received (validated loosely: an object with a string `type`). */
export interface WireBlock {
  readonly type: string;
  readonly [key: string]: unknown;
}
export interface WireMessage {
  readonly role: string;
  readonly content: string | readonly WireBlock[];
}
export interface WireTool {
  readonly name?: unknown;
  readonly type?: unknown;
  readonly input_schema?: unknown;
  readonly cache_control?: unknown;
  readonly [key: string]: unknown;
}
/** A request body that passed the server's checks. */
export interface MessagesBody {
  readonly model: string;
  readonly max_tokens?: number;
  readonly messages: readonly WireMessage[];
  readonly system?: string | readonly WireBlock[];
  readonly tools?: readonly WireTool[];
  readonly stream?: boolean;
  readonly thinking?: { readonly type?: string; readonly budget_tokens?: number };
  readonly tool_choice?: unknown;
  readonly cache_control?: { readonly type: string; readonly ttl?: string } | null;
  readonly [key: string]: unknown;
}

/** What a scripted-turn function sees of the request it answers. */
export interface IncomingCall {
  readonly seq: number;
  readonly body: MessagesBody;
  readonly headers: Readonly<Record<string, string>>;
}

/** A queued response: a fixed turn, or a function of the request (called when that request is answered). */
export type ScriptEntry = ScriptedTurn | ((call: IncomingCall) => ScriptedTurn);

export type Fault =
  /** An HTTP error before any body is sent (429, 500, 529, ...). */
  | {
      readonly kind: 'http';
      readonly status: number;
      readonly errorType: string;
      readonly message: string;
      /** Sent as `retry-after` (seconds, as the API does). */
      readonly retryAfterSec?: number;
      /** Sent as `retry-after-ms` (the SDK prefers it over `retry-after`). */
      readonly retryAfterMs?: number;
      /** Sent as `x-should-retry`, which overrides the SDK's own retry decision. */
      readonly shouldRetry?: boolean;
    }
  /** HTTP 200, then the socket is destroyed after `afterEvents` SSE events. */
  | { readonly kind: 'reset'; readonly afterEvents: number }
  /** HTTP 200, then an `error` SSE event after `afterEvents` events, then the stream ends. */
  | { readonly kind: 'sse-error'; readonly afterEvents: number; readonly errorType: string; readonly message: string }
  /** A normal response with `delayMs` between SSE events. */
  | { readonly kind: 'slow'; readonly delayMs: number }
  /** Wait `ms` before answering at all (client timeouts). */
  | { readonly kind: 'stall'; readonly ms: number };

export type FaultPredicate = (call: {
  readonly seq: number;
  readonly path: string;
  readonly body: unknown;
}) => Fault | undefined;

export interface ValidationResult {
  readonly ok: boolean;
  /** HTTP status of the rejection (400, 401, 404, 413), or 200. */
  readonly status: number;
  readonly errorType?: string;
  /** The API's own wording of the rejection. */
  readonly message?: string;
  /** Accepted but worth knowing (e.g. consecutive same-role messages the API merges). */
  readonly warnings: readonly string[];
}

export interface ReportedUsage {
  readonly input_tokens: number;
  readonly cache_creation_input_tokens: number;
  readonly cache_read_input_tokens: number;
  readonly output_tokens: number;
}

export interface RecordedResponse {
  readonly status: number;
  readonly requestId: string;
  readonly kind: 'stream' | 'json' | 'error' | 'reset';
  readonly fault?: Fault;
  readonly usage?: ReportedUsage;
  readonly stopReason?: StopReason;
  /** The assistant content that was (or was being) sent. */
  readonly content?: readonly unknown[];
  /** The stream was cut by an injected fault or by the client. */
  readonly interrupted?: boolean;
  /** How the cache simulator arrived at the usage (breakpoints, read and write positions). */
  readonly cache?: CacheTrace;
  /** The cache diagnostics beta's answer, when the request asked (null: nothing diverged). */
  readonly cacheMissReason?: { readonly type: string; readonly cache_missed_input_tokens: number } | null;
}

export interface RecordedRequest {
  readonly seq: number;
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  /** Lower-cased request headers, without `x-api-key` and `authorization`. */
  readonly headers: Readonly<Record<string, string>>;
  /** Parsed JSON body, or the raw text when it did not parse (undefined for GET). */
  readonly body: unknown;
  readonly bytes: number;
  /** SHA-256 (hex) of the body's bytes as received: byte-for-byte comparisons (proxy pass-through). */
  readonly sha256: string;
  readonly receivedAt: number;
  validation: ValidationResult;
  response?: RecordedResponse;
}
