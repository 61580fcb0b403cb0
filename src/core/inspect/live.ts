/**
 * The inspector's view of the live chat session: every request the agent sent is
 * recorded in a CallHistory (with the API's real usage), and "the next request" is
 * rebuilt from the session as it is now (overlays included) without running the
 * trimming pipeline, so looking never changes what the agent will do. User actions
 * (pin, trim, restore, compact) are overlays on the session: the journal records
 * them and the next model call sends them.
 */
import type { AgentEventOf } from '../agent/events';
import type { ContextEngine, PreparedCall } from '../engine/context-engine';
import { buildSnapshot, CallHistory } from './index';
import { answerInspectorRequest, isInspectorRequest } from './requests';
import { applyUserAction } from './actions';
import type { Breakpoint } from '../api/wire';
import type { CallUsage } from '../session/types';
import type { CallPoint, Finding, InspectorSnapshot, WebviewRequest } from '../../protocol';
import type { CallVerdict } from '../../protocol/verdicts';
import { OwnVerdicts } from './own-verdicts';
import { DeferredActions, priceOfAction, withPrices } from './action-pricing';
import { headRows } from './head-rows';

export interface LiveMeta {
  sessionId: string;
  title(): string;
  strategy: string;
  strategies: string[];
  /** Findings of the host's own (e.g. a journal that cannot be written), listed first. */
  findings?: () => Finding[];
  /** Verdicts come from outside (the proxy, which sees the client's own bytes): none computed here. */
  externalVerdicts?: boolean;
  /** A verdict computed here (the host journals it). */
  onVerdict?: (verdict: CallVerdict) => void;
  /**
   * The number a call of this log is shown with, as the journal and the verdicts number it (a
   * proxied client session's calls across its epochs); default the log's own call index.
   */
  callNumber?: (callIndex: number) => number | undefined;
}

export class LiveInspector {
  private readonly history: CallHistory;
  /** Breakpoints of each call as sent (the planner keeps the next call's prefix stable against them). */
  private readonly breakpoints = new Map<number, readonly Breakpoint[]>();
  private sending?: { callIndex: number; prepared: PreparedCall; at: number };
  private next?: { prepared: PreparedCall; epochStart: number } | { error: string };
  private cached?: InspectorSnapshot;
  /** Cache verdicts by call index (proxied sessions): shown on the chart and in the Diff tab. */
  private readonly verdicts = new Map<number, CallVerdict>();
  private readonly own?: OwnVerdicts;
  /** Actions the user deferred to the next cold cache. */
  readonly deferred = new DeferredActions();

  constructor(
    private engine: ContextEngine,
    private readonly meta: LiveMeta,
  ) {
    this.history = new CallHistory(engine.session, engine.model, engine.tokens, engine.ttl);
    if (!meta.externalVerdicts) this.own = new OwnVerdicts();
    this.seed();
  }

  /**
   * A resumed session's earlier calls, for the chart, the cost and the hit ratio: each
   * request is rebuilt from the log (with today's overlays, so past diffs are
   * approximate) and charted with the usage the API reported for it.
   */
  private seed(): void {
    let previous: readonly Breakpoint[] = [];
    for (const call of this.engine.session.calls) {
      const built = this.build(previous, call.at, call.epochStart);
      if ('error' in built) continue;
      previous = built.prepared.breakpoints;
      this.breakpoints.set(call.index, previous);
      const at = call.timestamp ? Date.parse(call.timestamp) : Number.NaN;
      this.history.record(built.prepared, Number.isFinite(at) ? at : Date.now(), call.usage, this.numberOf(call.index));
    }
  }

  /** After the loop was rebuilt (new key or settings) the engine is a new one on the same session. */
  setEngine(engine: ContextEngine): void {
    this.engine = engine;
    this.invalidate();
  }

  invalidate(): void {
    this.next = undefined;
    this.cached = undefined;
  }

  /** Rebuild the request exactly as the loop just prepared it (same session state, same previous breakpoints). */
  onCallStart(e: AgentEventOf<'call-start'>): void {
    // A retry or a recovery re-prepares the same call: rebuild it (after a recovery trim it differs).
    const prepared = this.build(this.breakpoints.get(e.callIndex - 1) ?? []);
    this.breakpoints.set(e.callIndex, e.breakpoints);
    if ('error' in prepared) return;
    this.sending = {
      callIndex: e.callIndex,
      prepared: { ...prepared.prepared, stats: e.stats, breakpoints: [...e.breakpoints] },
      at: Date.now(),
    };
    this.own?.onSend(e.callIndex, prepared.prepared.body, this.sending.at);
    this.invalidate();
  }

  /**
   * A call whose request the host did not prepare (a proxied client's own request, forwarded
   * as sent): built once here, its stats and breakpoints are the view's own.
   */
  onObservedCall(callIndex: number): void {
    const prepared = this.build(this.breakpoints.get(callIndex - 1) ?? []);
    if ('error' in prepared) return;
    this.breakpoints.set(callIndex, prepared.prepared.breakpoints);
    this.sending = { callIndex, prepared: prepared.prepared, at: Date.now() };
    this.invalidate();
  }

  /** The API's usage for the call in flight: it is charted and the next request is priced after it. */
  onUsage(callIndex: number, usage: CallUsage): void {
    const s = this.sending;
    if (s?.callIndex === callIndex) this.history.record(s.prepared, s.at, usage, this.numberOf(callIndex));
    this.sending = undefined;
    const verdict = this.own?.onUsage(callIndex, usage);
    if (verdict) {
      this.verdicts.set(verdict.call, verdict);
      this.meta.onVerdict?.(verdict);
    }
    this.invalidate();
  }

  /** Milliseconds since the last recorded call (undefined before the first). */
  private idleMs(now: number): number | undefined {
    const last = this.history.lastCallAt();
    return last === undefined ? undefined : now - last;
  }

  /** Apply the deferred actions if the cache is cold now (before the next call is prepared); their messages. */
  applyDeferredIfCold(now: number): string[] {
    const due = this.deferred.takeIfCold(this.idleMs(now), this.engine.ttl);
    const done = due.map((a) => applyUserAction(this.engine, a, this.engine.session.calls.length).message);
    if (done.length) this.invalidate();
    return done;
  }

  /** A call's cache verdict (it arrives with the response's usage); charted at the call's number. */
  setVerdict(verdict: CallVerdict): void {
    this.verdicts.set(verdict.call, verdict);
    this.invalidate();
  }

  /** The number a call of the log is shown with (see LiveMeta.callNumber). */
  private numberOf(callIndex: number): number {
    return this.meta.callNumber?.(callIndex) ?? callIndex;
  }

  /**
   * This log continues an earlier epoch of the same client session (the client rewrote its
   * history): its first call is compared with that epoch's last request, block by content.
   */
  continues(earlier: LiveInspector): void {
    this.history.continues(earlier.history.lastRequest());
    this.invalidate();
  }

  private build(
    previous: readonly Breakpoint[],
    at?: number,
    from?: number,
  ): { prepared: PreparedCall; epochStart: number } | { error: string } {
    const session = this.engine.session;
    const upTo = at ?? session.messages.length;
    if (upTo === 0) return { error: 'empty' };
    const epochStart = from ?? this.engine.builder.epochStart(session, upTo);
    try {
      return { prepared: this.engine.preview({ upTo, epochStart, previousBreakpoints: previous }), epochStart };
    } catch (e) {
      return { error: e instanceof Error ? e.message : String(e) };
    }
  }

  private nextRequest(): { prepared: PreparedCall; epochStart: number } | { error: string } {
    this.next ??= this.build(this.breakpoints.get(this.engine.session.calls.length - 1) ?? []);
    return this.next;
  }

  /** The next request's body as it would be sent now (Export Session), or undefined while the session is empty. */
  nextBody(): PreparedCall['body'] | undefined {
    const next = this.nextRequest();
    return 'error' in next ? undefined : next.prepared.body;
  }

  /** The recorded calls with their cache verdicts, without building a snapshot (the status line's poll). */
  calls(): CallPoint[] {
    return this.history.points.map((p) => withVerdict(p, this.verdicts.get(p.call)));
  }

  /** The snapshot of the next request, or undefined while the session is empty. */
  snapshot(): InspectorSnapshot | undefined {
    if (this.cached) return this.cached;
    const next = this.nextRequest();
    if ('error' in next) return undefined;
    const last = this.engine.session.calls.at(-1);
    this.cached = buildSnapshot(this.engine, next.prepared, {
      sessionId: this.meta.sessionId,
      title: this.meta.title(),
      strategy: this.meta.strategy,
      live: true,
      cachedUpTo: last?.at ?? 0,
      callHistory: this.history,
      strategies: this.meta.strategies,
      epochStart: next.epochStart,
      now: Date.now(),
    });
    if (this.verdicts.size > 0)
      this.cached.calls = this.cached.calls.map((p) => withVerdict(p, this.verdicts.get(p.call)));
    this.cached.findings = withPrices(this.cached, {
      model: this.engine.model,
      ttl: this.engine.ttl,
      callsSoFar: this.history.length,
      expectedCalls: this.engine.expectedWarmCalls(),
      idleMs: this.idleMs(Date.now()),
    });
    const own = this.meta.findings?.() ?? [];
    if (own.length) this.cached = { ...this.cached, findings: [...own, ...this.cached.findings] };
    return this.cached;
  }

  /** A request from an inspector panel; returns the response's result. */
  handle(req: WebviewRequest): unknown {
    switch (req.op) {
      case 'price': {
        const snapshot = this.snapshot();
        if (!snapshot) throw new Error('no request yet: send a prompt first');
        return priceOfAction(
          {
            snapshot,
            model: this.engine.model,
            ttl: this.engine.ttl,
            callsSoFar: this.history.length,
            expectedCalls: this.engine.expectedWarmCalls(),
            idleMs: this.idleMs(Date.now()),
          },
          req.action,
        );
      }
      case 'defer':
        return this.deferred.add(req.action, this.engine.ttl);
      case 'head': {
        const next = this.nextRequest();
        if ('error' in next) throw new Error('no request yet: send a prompt first');
        return headRows(this.engine.session, next.prepared, this.history, this.engine.model, Date.now());
      }
    }
    if (!isInspectorRequest(req)) throw new Error(`${req.op} is not an inspector request`);
    return answerInspectorRequest(
      {
        engine: this.engine,
        history: this.history,
        callIndex: this.engine.session.calls.length,
        next: () => {
          const next = this.nextRequest();
          return 'error' in next ? 'no request yet: send a prompt first' : next.prepared;
        },
        applied: () => this.invalidate(),
      },
      req,
    );
  }
}

function withVerdict(p: CallPoint, verdict: CallVerdict | undefined): CallPoint {
  return verdict ? { ...p, verdict } : p;
}
