/**
 * One model call with everything that can go wrong around it: retries with
 * backoff (honoring retry-after), the prompt-too-long recovery, cancellation.
 *
 * Nothing is written to the session here. The caller records the complete
 * message on success; on cancel it gets the partial snapshot to record as
 * interrupted. A retried response is simply discarded: half a message is
 * never recorded.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { PreparedCall } from '../engine/context-engine';
import type { AgentConfig } from './config';
import type { AgentEmitter, AgentErrorInfo } from './events';
import { backoffDelay, classifyFailure, sleep, type Failure } from './retry';
import { startStreamCall } from './stream-call';

/** A request ready to send: the engine's output and the log window it covers. */
export interface PreparedRequest {
  readonly prepared: PreparedCall;
  readonly callIndex: number;
  readonly upTo: number;
  readonly epochStart: number;
}

export type CallOutcome =
  | { readonly kind: 'ok'; readonly message: Anthropic.Message; readonly request: PreparedRequest }
  | { readonly kind: 'cancelled'; readonly partial?: Anthropic.Message; readonly request: PreparedRequest }
  | { readonly kind: 'failed'; readonly error: AgentErrorInfo };

export interface ModelCallDeps {
  readonly client: Anthropic;
  readonly config: AgentConfig;
  readonly emitter: AgentEmitter;
  readonly random: () => number;
  /**
   * Rebuild the request after "prompt is too long" (emergency trim); returns the
   * new request, or an error when it cannot be rebuilt.
   */
  recover(request: PreparedRequest, tokens: number, maximum: number): PreparedRequest | AgentErrorInfo;
}

function isError(v: PreparedRequest | AgentErrorInfo): v is AgentErrorInfo {
  return 'kind' in v;
}

function failedOf(f: Exclude<Failure, { kind: 'abort' | 'retryable' }>): AgentErrorInfo {
  switch (f.kind) {
    case 'auth':
      return { kind: 'auth', message: f.message, status: f.status, requestId: f.requestId };
    case 'prompt-too-long':
      return {
        kind: 'prompt-too-long',
        message: f.message,
        tokens: f.tokens,
        maximum: f.maximum,
        requestId: f.requestId,
      };
    case 'fatal':
      return {
        kind: f.status === undefined && !f.requestId ? 'internal' : 'api',
        message: f.message,
        status: f.status,
        requestId: f.requestId,
      };
  }
}

/** Stream one call, retrying and recovering as the failure allows. */
export async function callModel(
  deps: ModelCallDeps,
  first: PreparedRequest,
  signal: AbortSignal,
): Promise<CallOutcome> {
  const { client, config, emitter } = deps;
  const policy = config.retry;
  let request = first;
  let retries = 0;
  let tooLong: { tokens: number; maximum: number } | undefined;
  for (;;) {
    const { prepared, callIndex } = request;
    emitter.emit('call-start', {
      callIndex,
      stats: prepared.stats,
      breakpoints: prepared.breakpoints,
      requestMessages: prepared.body.messages.length,
    });
    const call = startStreamCall(client, prepared.body, signal, {
      text: (index, text) => emitter.emit('text-delta', { callIndex, index, text }),
      thinking: (index, text) => emitter.emit('thinking-delta', { callIndex, index, text }),
      toolInput: (index, toolUseId, name, partialJson) =>
        emitter.emit('tool-input-delta', { callIndex, index, toolUseId, name, partialJson }),
    });
    let failure: Failure;
    try {
      const { message } = await call.done;
      return { kind: 'ok', message, request };
    } catch (e) {
      failure = signal.aborted ? { kind: 'abort' } : classifyFailure(e);
    }
    switch (failure.kind) {
      case 'abort':
        return { kind: 'cancelled', partial: call.partial(), request };
      case 'retryable': {
        if (retries >= policy.maxRetries) {
          const message =
            `the API did not answer after ${retries + 1} attempts (last: ${failure.reason}); the session is saved, ` +
            'try again later.';
          return {
            kind: 'failed',
            error: { kind: 'retries-exhausted', message, status: failure.status, requestId: failure.requestId },
          };
        }
        retries++;
        const delayMs = backoffDelay(retries, policy, failure.retryAfterMs, deps.random);
        emitter.emit('retry', {
          callIndex,
          attempt: retries,
          maxRetries: policy.maxRetries,
          delayMs,
          reason: failure.reason,
          status: failure.status,
        });
        if (!(await sleep(delayMs, signal))) return { kind: 'cancelled', request };
        continue;
      }
      case 'prompt-too-long': {
        if (tooLong) {
          const message =
            `the conversation is too long for ${config.model} even after trimming: ${failure.tokens} tokens > ` +
            `${failure.maximum} maximum ` +
            `(before trimming: ${tooLong.tokens} tokens). Start a new session, or restore and pin less of this one.`;
          return {
            kind: 'failed',
            error: {
              kind: 'prompt-too-long',
              message,
              tokens: failure.tokens,
              maximum: failure.maximum,
              requestId: failure.requestId,
            },
          };
        }
        tooLong = { tokens: failure.tokens, maximum: failure.maximum };
        const next = deps.recover(request, failure.tokens, failure.maximum);
        if (isError(next)) return { kind: 'failed', error: next };
        request = next;
        continue;
      }
      default:
        return { kind: 'failed', error: failedOf(failure) };
    }
  }
}
