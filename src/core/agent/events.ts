/**
 * Typed events of the agent loop, for the UI (chat view, inspector) and the CLI.
 *
 * One `run()` is a *turn*: the user's prompt (or a resumed, unfinished turn)
 * followed by model calls and tool batches until the model stops. It starts with
 * `turn-start` and `message` (the prompt as recorded). Each model call emits
 * `call-start` (again for every retry), then deltas, then `message` (the assistant
 * message as recorded) and `usage`; a tool batch emits `tool-start`/`tool-result`
 * per call and one `message` for the user message with every result. `turn-end`
 * always comes last (alone when there was nothing to do: reason `idle`).
 *
 * Deltas are provisional: after a `retry` event, everything streamed since the
 * last `call-start` is void (the retried response streams again from the start).
 */
import type { Cost } from '../cache/cost';
import type { Breakpoint } from '../api/wire';
import type { CallStats } from '../engine/context-engine';
import type { CallUsage, LogMessage } from '../session/types';
import type { Decision } from '../trimming/types';
import type { ToolResult } from './tools/types';
import type { LedgerTotals } from './ledger';

/** Why a turn ended. */
export type TurnEndReason =
  /** The model finished (end_turn, stop_sequence, refusal, pause_turn). */
  | 'end_turn'
  | 'max_tokens'
  /** The model stopped without asking for tools for another reason (e.g. stop_sequence). */
  | 'stop'
  | 'cancelled'
  | 'error'
  /** Safety limit of model calls per turn reached (AgentConfig.maxCallsPerTurn). */
  | 'call-limit'
  /** Nothing to do: no prompt and no unfinished turn to continue. */
  | 'idle';

/** What went wrong, for a one-line message to the user. */
export type AgentErrorKind =
  /** 401, or no credentials at all. */
  | 'auth'
  /** Still over the context window after the emergency trim. */
  | 'prompt-too-long'
  /** 429/529/5xx/connection problems that outlasted every retry. */
  | 'retries-exhausted'
  /** Any other 4xx: a request the API refused (never expected; carries the request id). */
  | 'api'
  /** The request builder refused to send an invalid request. */
  | 'refused'
  /** A bug or an environment problem (journal not writable…). */
  | 'internal';

export interface AgentErrorInfo {
  readonly kind: AgentErrorKind;
  /** One or two plain sentences for the user. */
  readonly message: string;
  readonly status?: number;
  readonly requestId?: string;
  /** For `prompt-too-long`: the numbers from the API's message. */
  readonly tokens?: number;
  readonly maximum?: number;
}

export interface AgentEventMap {
  'turn-start': { readonly prompt?: string; readonly resumed: boolean };
  'call-start': {
    readonly callIndex: number;
    readonly stats: CallStats;
    readonly breakpoints: readonly Breakpoint[];
    /** Messages in the request (after trimming). */
    readonly requestMessages: number;
  };
  'text-delta': { readonly callIndex: number; readonly index: number; readonly text: string };
  'thinking-delta': { readonly callIndex: number; readonly index: number; readonly text: string };
  'tool-input-delta': {
    readonly callIndex: number;
    readonly index: number;
    readonly toolUseId: string;
    readonly name: string;
    readonly partialJson: string;
  };
  /** A message appended to the session log (assistant response, tool results, prompt). */
  message: { readonly message: LogMessage };
  'tool-start': {
    readonly callIndex: number;
    readonly toolUseId: string;
    readonly name: string;
    readonly input: unknown;
  };
  'tool-result': {
    readonly callIndex: number;
    readonly toolUseId: string;
    readonly name: string;
    readonly result: ToolResult;
    readonly durationMs: number;
  };
  /** Usage of a conversation call, or of a history-compression summary (billed, not part of the conversation). */
  usage: {
    readonly kind: 'call' | 'summary';
    readonly callIndex: number;
    readonly usage: CallUsage;
    readonly cost: Cost;
    readonly run: LedgerTotals;
    readonly session: LedgerTotals;
  };
  retry: {
    readonly callIndex: number;
    /** 1-based number of the retry about to happen. */
    readonly attempt: number;
    readonly maxRetries: number;
    readonly delayMs: number;
    /** e.g. `429 rate_limit_error`, `stream cut mid-message`. */
    readonly reason: string;
    readonly status?: number;
  };
  /** The context was over the model's window: an emergency trim was applied before one more try. */
  'context-recovery': {
    readonly callIndex: number;
    readonly tokens: number;
    readonly maximum: number;
    readonly budget: number;
    readonly overlaysAdded: number;
  };
  error: { readonly error: AgentErrorInfo };
  decision: { readonly decision: Decision };
  'turn-end': { readonly reason: TurnEndReason; readonly calls: number; readonly error?: AgentErrorInfo };
}

export type AgentEventType = keyof AgentEventMap;
/** Any event, discriminated by `type`. */
export type AgentEvent = { [K in AgentEventType]: { readonly type: K } & AgentEventMap[K] }[AgentEventType];
export type AgentEventOf<K extends AgentEventType> = Extract<AgentEvent, { type: K }>;

type Listener = (e: AgentEvent) => void;

/**
 * A small synchronous emitter. A listener that throws is isolated (reported to
 * `onListenerError`) so a UI bug can never break the loop or the session.
 */
export class AgentEmitter {
  private readonly listeners = new Set<Listener>();

  constructor(private readonly onListenerError: (e: unknown) => void = () => {}) {}

  /** Listen to one event type. Returns a function that unsubscribes. */
  on<K extends AgentEventType>(type: K, listener: (e: AgentEventOf<K>) => void): () => void {
    return this.onAny((e) => {
      if (e.type === type) listener(e as AgentEventOf<K>);
    });
  }

  /** Listen to every event. Returns a function that unsubscribes. */
  onAny(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit<K extends AgentEventType>(type: K, payload: AgentEventMap[K]): void {
    const event = { type, ...payload } as AgentEvent;
    for (const l of [...this.listeners]) {
      try {
        l(event);
      } catch (e) {
        this.onListenerError(e);
      }
    }
  }
}
