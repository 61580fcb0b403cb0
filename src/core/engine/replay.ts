/**
 * Replay a recorded transcript through a strategy: for every recorded model call,
 * in order, the exact request the engine would have sent at that point, with the
 * strategy's state carried from call to call. The session grows as it did live.
 */
import { Session } from '../session/session';
import type { CacheTtl } from '../api/wire';
import type { CallRecord, ImportedSession } from '../session/types';
import { ContextEngine, type EngineOptions, type PreparedCall } from './context-engine';

/** Why the cache is cold from the first message when the client changed its head (the proxy's word for it too). */
export const HEAD_CHANGED = 'the client changed its system prompt or tools: its cached prefix is gone';

export interface ReplayOptions extends EngineOptions {
  /** Learn token calibration from the recorded usage while replaying (default true). */
  calibrate?: boolean;
  /**
   * Per call: whether the client changed its system prompt or tools since its previous request (the proxy then
   * finds the cache cold from the first message: a free moment, proxy/request-steps.ts).
   */
  headChanged?: (callIndex: number) => boolean;
}

export interface ReplayStep {
  call: CallRecord;
  prepared: PreparedCall;
  /** Time of the call in ms (recorded timestamp, or previous + 1s when missing). */
  now: number;
  engine: ContextEngine;
}

/** A fresh session with the transcript's system prompt, tools and model. */
export function emptySessionFor(imp: ImportedSession): Session {
  return new Session({ system: imp.system, tools: imp.tools, model: imp.model });
}

/**
 * The TTL a recorded call's cache writes used: 1h when any write was a 1-hour one, 5m when only 5-minute ones; else
 * unknown.
 */
export function recordedTtl(call: CallRecord): CacheTtl | undefined {
  const split = call.usage?.cache_creation;
  if (!split) return undefined;
  if ((split.ephemeral_1h_input_tokens ?? 0) > 0) return '1h';
  if ((split.ephemeral_5m_input_tokens ?? 0) > 0) return '5m';
  return undefined;
}

export function* replay(imp: ImportedSession, opts: ReplayOptions = {}): Generator<ReplayStep, ContextEngine> {
  const session = emptySessionFor(imp);
  const engine = new ContextEngine(session, { model: imp.model ?? imp.calls.find((c) => c.model)?.model, ...opts });
  // The client's system breakpoint carries the client's TTL: a 1-hour message marker after a 5-minute one is refused.
  if (opts.clientPrefix) engine.longTtlAllowed = false;
  let appended = 0;
  let now = 0;
  for (const call of imp.calls) {
    for (; appended < call.at; appended++) session.appendMessage(imp.messages[appended]);
    const t = call.timestamp ? Date.parse(call.timestamp) : NaN;
    now = Number.isFinite(t) ? t : now + 1000;
    session.recordCall({
      at: call.at,
      epochStart: call.epochStart,
      apiMessageId: call.apiMessageId,
      model: call.model,
      timestamp: call.timestamp,
      usage: call.usage,
    });
    // The client's breakpoints are not in the transcript, but their TTL shows in the usage: follow it.
    const ttl = recordedTtl(call);
    if (ttl && opts.ttl === undefined) engine.ttl = ttl;
    const coldFrom = opts.headChanged?.(call.index) ? { position: call.epochStart, why: HEAD_CHANGED } : undefined;
    const prepared = engine.prepare({
      callIndex: call.index,
      upTo: call.at,
      epochStart: call.epochStart,
      now,
      coldFrom,
    });
    // The recorded usage is the client's request's, written at the client's TTL.
    if (call.usage && opts.calibrate !== false)
      engine.observeUsage(call.usage, call.at, call.epochStart, true, engine.ttl);
    yield { call, prepared, now, engine };
  }
  for (; appended < imp.messages.length; appended++) session.appendMessage(imp.messages[appended]);
  return engine;
}

/** Replay every call and return the engine, positioned after the whole transcript. */
export function replayAll(
  imp: ImportedSession,
  opts: ReplayOptions = {},
  onStep?: (s: ReplayStep) => void,
): ContextEngine {
  const it = replay(imp, opts);
  for (;;) {
    const r = it.next();
    if (r.done) return r.value;
    onStep?.(r.value);
  }
}
