/**
 * The standalone inspector's model: a recorded transcript replayed through a strategy.
 * The engine stays positioned after the last recorded call; the user's pins, trims,
 * restores and compactions apply there, and the next request is re-prepared and
 * re-priced after each. Switching the strategy replays the transcript again and
 * re-applies the user's actions in order.
 */
import { basename } from 'node:path';
import { replay, type ContextEngine, type PreparedCall } from '../../core/engine';
import { inferClientPrefix } from '../../core/report';
import {
  answerInspectorRequest,
  applyUserAction,
  buildSnapshot,
  CallHistory,
  InspectorActionError,
  isInspectorRequest,
  type UserAction,
} from '../../core/inspect';
import { INFERRED_NOTE, inferredHeadRows, transcriptBill, type TranscriptBill } from '../../core/report';
import type { ImportedSession } from '../../core/session/types';
import { createPipeline, strategyNames, type PipelineConfig } from '../../core/trimming';
import type { InspectorSnapshot, RequestResults, WebviewRequest } from '../../protocol';
import type { HeadResult } from '../../protocol/head';

export interface ReplayInspectorOptions {
  strategy: string;
  config?: PipelineConfig;
  title?: string;
  /** The number a recorded call is shown with (a journal's, across a proxied session's epochs); default its index. */
  callNumber?: (callIndex: number) => number | undefined;
}

/** Gap between the last recorded call and the next request (inside the cache TTL). */
const NEXT_CALL_GAP_MS = 1000;

type Handled = RequestResults[keyof RequestResults];

export class ReplayInspector {
  private engine!: ContextEngine;
  private history!: CallHistory;
  private next!: PreparedCall;
  private now = 0;
  private epochStart = 0;
  private strategy: string;
  private readonly actions: UserAction[] = [];
  private cached?: InspectorSnapshot;
  /** The report's bill of the transcript (its inferred system prompt and tools), per strategy. */
  private bill?: TranscriptBill;

  constructor(
    readonly imp: ImportedSession,
    private readonly o: ReplayInspectorOptions,
  ) {
    this.strategy = o.strategy;
    this.load();
  }

  /** Replay every recorded call through the current strategy, then re-apply the user's actions. */
  private load(): void {
    // A Trimline journal holds its system prompt and tools: nothing to infer.
    const journal = this.imp.format === 'trimline-journal';
    const clientPrefix = journal ? undefined : inferClientPrefix(this.imp);
    const it = replay(this.imp, { strategy: this.strategy, config: this.o.config, clientPrefix });
    this.bill = journal ? undefined : transcriptBill(this.imp, this.strategy, this.o.config ?? {});
    let history: CallHistory | undefined;
    let last = 0;
    for (;;) {
      const r = it.next();
      if (r.done) {
        this.engine = r.value;
        break;
      }
      history ??= new CallHistory(
        r.value.engine.session,
        r.value.prepared.body.model,
        r.value.engine.tokens,
        r.value.engine.ttl,
      );
      history.record(r.value.prepared, r.value.now, undefined, this.o.callNumber?.(r.value.call.index));
      last = r.value.now;
    }
    this.history =
      history ?? new CallHistory(this.engine.session, this.engine.model, this.engine.tokens, this.engine.ttl);
    this.now = (last || Date.now()) + NEXT_CALL_GAP_MS;
    for (const a of this.actions) {
      try {
        applyUserAction(this.engine, a, this.history.length);
      } catch {
        // An action the new replay cannot take (e.g. its block is now summarized) is dropped.
      }
    }
    this.prepareNext();
  }

  private prepareNext(): void {
    const n = this.engine.session.messages.length;
    this.epochStart = this.engine.builder.epochStart(this.engine.session, n);
    this.next = this.engine.prepare({
      callIndex: this.history.length,
      upTo: n,
      epochStart: this.epochStart,
      now: this.now,
    });
    this.cached = undefined;
  }

  /** The request that would be sent next (tests assert on it). */
  get nextRequest(): PreparedCall {
    return this.next;
  }

  snapshot(): InspectorSnapshot {
    this.cached ??= buildSnapshot(this.engine, this.next, {
      sessionId: this.imp.file,
      title: this.o.title ?? basename(this.imp.file),
      strategy: this.strategy,
      live: false,
      cachedUpTo: this.imp.calls.at(-1)?.at ?? 0,
      callHistory: this.history,
      strategies: ['default', 'none', ...strategyNames()],
      epochStart: this.epochStart,
      now: this.now,
      ...(this.bill ? { inferred: this.inferred(this.bill) } : {}),
    });
    return this.cached;
  }

  /** The inferred system prompt and tools, and the session's cost as the report prices it. */
  private inferred(b: TranscriptBill): { tokens: number; sessionCost: number } {
    return { tokens: b.prefix.shared + b.prefix.session, sessionCost: b.strategyCost };
  }

  /** The "System & tools" tab: the system prompt and tools the transcript lacks, as inferred rows. */
  private head(): HeadResult {
    const rows = this.bill ? inferredHeadRows(this.bill.prefix) : [];
    return {
      rows: rows.map((r) => ({
        ref: r.ref,
        section: 'system' as const,
        text: `${r.what} (${Math.round(r.tokens)} tokens): ${INFERRED_NOTE}.`,
        truncated: false,
        tokens: r.tokens,
        cached: true,
        breakpoint: true,
      })),
      calls: this.history.length,
    };
  }

  /** Whether a request changes the snapshot (the server then pushes a new one). */
  static mutates(req: WebviewRequest): boolean {
    return (
      req.op === 'pin' ||
      req.op === 'unpin' ||
      req.op === 'trim' ||
      req.op === 'restore' ||
      req.op === 'compact' ||
      req.op === 'setStrategy'
    );
  }

  /** Handle one request; throws InspectorActionError with a message for the user. */
  handle(req: WebviewRequest): Handled {
    if (isInspectorRequest(req)) {
      const applied = (action: UserAction): void => {
        this.actions.push(action);
        this.prepareNext();
      };
      return answerInspectorRequest(
        { engine: this.engine, history: this.history, callIndex: this.history.length, next: () => this.next, applied },
        req,
      );
    }
    switch (req.op) {
      case 'head':
        return this.head();
      case 'setStrategy': {
        try {
          createPipeline(req.spec, this.o.config);
        } catch (e) {
          throw new InspectorActionError((e as Error).message);
        }
        this.strategy = req.spec;
        this.load();
        return { message: `Replayed ${this.history.length} calls with strategy ${req.spec}` };
      }
      default:
        throw new InspectorActionError(
          `"${req.op}" is not available in the standalone inspector (it replays a recorded transcript)`,
        );
    }
  }
}
