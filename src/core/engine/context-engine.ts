/**
 * The context engine of one session: trimming pipeline → view → request builder →
 * cache planner, with token accounting and the decision log. One `prepare` per model
 * call; work per call grows with what is new (incremental index, cached renders).
 */
import { contextWindow, minCacheableTokens } from '../models';
import { RequestBuilder } from '../request/build';
import type { Breakpoint, CacheTtl } from '../api/wire';
import type { Session } from '../session/session';
import {
  totalInput,
  type CallUsage,
  type ContentBlockParam,
  type MessageParam,
  type TextBlockParam,
} from '../session/types';
import { describeHoldBack, type HoldBackQuote } from '../cache/hold-back';
import { describeLongTtl } from '../cache/long-ttl';
import { ttlMsOf } from '../api/cache-rules';
import { TokenEstimator } from '../tokens';
import { placeholderSystem, type ClientPrefix } from './client-prefix';
import { CacheWrites } from './cache-writes';
import { quoteCallTtl } from './call-ttl';
import { RepairLog } from './repair-log';
import type { CallStats, EngineOptions, PreparedCall, PrepareInput } from './call-types';

export type { CallStats, EngineOptions, PreparedCall, PrepareInput } from './call-types';
import { SavingsGuard, type SavingsSnapshot } from './savings-guard';
import {
  DecisionLog,
  MessageIndex,
  createPipeline,
  type CacheState,
  type Pipeline,
  type PipelineRunResult,
} from '../trimming';

export const DEFAULT_MODEL = 'claude-sonnet-4-5';
export const DEFAULT_MAX_TOKENS = 8192;
/**
 * A call that read less than this share of what the call before it left cached, within the TTL and with no
 * edit of ours, lost the cache for a reason its request does not show (a client change, an eviction).
 */
const LOST_SHARE = 0.5;

export class ContextEngine {
  readonly tokens: TokenEstimator;
  readonly index: MessageIndex;
  readonly decisions = new DecisionLog();
  readonly pipeline: Pipeline;
  readonly builder = new RequestBuilder();
  model: string;
  maxTokens: number;
  ttl: CacheTtl;
  /** The engine may write messages for 1 hour (false when a 5-minute marker of the client's comes before them). */
  longTtlAllowed = true;
  private cache: Pick<CacheState, 'cachedUpTo' | 'lastCallAt'> = { cachedUpTo: 0 };
  /** Model and epoch of the previous call: a switch of either is a free moment for the cache. */
  private lastModel?: string;
  private lastEpoch?: number;
  private previousBreakpoints: Breakpoint[] = [];
  /** Message breakpoints of recent calls, with the time they were last written or read and their TTL. */
  private readonly writes: CacheWrites;
  /** TTL the previous call wrote with (the cache's TTL at this call); tools + system tokens it had. */
  private lastTtl?: CacheTtl;
  private headTokens = 0;
  /**
   * Tokens of the head the first call already found cached (its usage's cache read): the client's
   * other sessions keep them warm, so a pause does not make this session write them again.
   */
  private sharedHead = 0;
  private previousMessages?: readonly MessageParam[];
  private lastObserved?: {
    upTo: number;
    epochStart: number;
    usage: CallUsage;
    overlaysChanged: boolean;
    at?: number;
    ttl: CacheTtl;
    model: string;
  };
  /**
   * Calls whose usage was observed, and those that read little of a cache that was warm and unchanged by us
   * (cache/long-ttl.ts q), apart for calls that open a loop (a new prompt: where a client changes its
   * reminders) and calls that continue one: [opening, continuing].
   */
  private readonly observedCalls = [0, 0];
  private readonly unexplainedLosses = [0, 0];
  /** The last prepared call opened a loop (its first call after a prompt). */
  private opensLoop = false;
  /** The last prepared request changed a message the one before it had sent (our own edit: a loss it explains). */
  private editedInside = false;
  private overlaysChanged = false;
  private readonly repairs = new RepairLog(this.decisions);
  /** Saved so far vs `none`, and the guard against rewrites that do not pay back. */
  private readonly guard = new SavingsGuard(() => this.model);
  /** The client's prefix this replay decides with, and the placeholder system block standing for it. */
  private readonly inferred?: { readonly prefix: ClientPrefix; readonly system: TextBlockParam[] };

  constructor(
    readonly session: Session,
    opts: EngineOptions = {},
  ) {
    this.model = opts.model ?? session.model ?? DEFAULT_MODEL;
    this.maxTokens = opts.maxTokens ?? DEFAULT_MAX_TOKENS;
    this.ttl = opts.ttl ?? '5m';
    this.tokens = (opts.estimator ?? new TokenEstimator()).forModel(this.model);
    this.index = new MessageIndex(session, this.tokens);
    this.writes = new CacheWrites(session);
    // The TTL is read per call (this.ttl may follow the client's breakpoints), not fixed here.
    this.pipeline = createPipeline(opts.strategy ?? 'default', opts.config ?? {});
    const prefix = opts.clientPrefix;
    const holdsHead = session.system !== undefined || Boolean(session.tools?.length);
    if (prefix && prefix.tokens > 0 && !holdsHead) this.inferred = { prefix, system: placeholderSystem(prefix) };
    this.sharedHead = this.inferred?.prefix.shared ?? 0;
    session.on((e) => {
      if (e.type !== 'message') this.overlaysChanged = true;
    });
  }

  /**
   * Calls the cache is expected to stay warm for, from this session's loops and pauses (the applier's K, with its
   * options).
   */
  expectedWarmCalls(): number {
    return this.pipeline.applier.expectedCalls(this.pipeline.loops.evidence(), this.ttl).session;
  }

  get contextWindow(): number {
    return contextWindow(this.model);
  }

  /** Run the pipeline and build the exact request for one model call. */
  prepare(input: PrepareInput): PreparedCall {
    const { session } = this;
    const upTo = input.upTo ?? session.messages.length;
    const epochStart = input.epochStart ?? 0;
    const now = input.now ?? Date.now();
    this.tokens.newBudget();
    this.index.update();
    const cache = this.cacheStateFor(epochStart, now, input.coldFrom);
    const run = this.pipeline.run({
      session,
      index: this.index,
      tokens: this.tokens,
      decisions: this.decisions,
      callIndex: input.callIndex,
      epochStart,
      upTo,
      contextWindow: this.contextWindow,
      now,
      cache,
    });
    const ttl = this.callTtl(run, epochStart, upTo, input.callIndex, cache, now);
    const hold = this.holdBack(run, upTo, ttl);
    const prepared = this.build(
      input.callIndex,
      epochStart,
      upTo,
      this.writes.anchorsAt(now),
      run,
      this.previousMessages,
      hold?.q.pays ? hold.position : undefined,
      ttl,
    );
    if (hold) {
      const placed =
        hold.q.pays && prepared.heldFrom === undefined
          ? ' (no block before it reaches the minimum cacheable prefix: written as usual)'
          : '';
      const q = hold.q;
      // The reason is written when read (one decision per call, most never shown).
      this.decisions.add({
        callIndex: input.callIndex,
        by: 'cache-planner',
        action: prepared.heldFrom !== undefined ? 'apply' : 'skip',
        targets: [session.messages[hold.position].id],
        get reason() {
          return `write-time placement: ${describeHoldBack(q)}${placed}`;
        },
        tokensSaved: 0,
      });
    }
    this.repairs.add(input.callIndex, prepared.repairs);
    const planned = prepared.breakpoints.find((b) => b.messageIndex === undefined)?.prefixTokens ?? this.headTokens;
    const sizes = { head: this.inferred?.prefix.tokens ?? planned, sharedHead: this.sharedHead };
    const { index, model, ttl: noneTtl } = this;
    const { firstApplied } = run;
    this.guard.account({ index, cache, firstApplied, epochStart, upTo, now, ttl, noneTtl, model, ...sizes });
    this.opensLoop = run.evidence.currentLoopCalls <= 1;
    this.editedInside =
      prepared.firstChanged !== undefined &&
      this.previousMessages !== undefined &&
      prepared.firstChanged < this.previousMessages.length;
    this.previousBreakpoints = prepared.breakpoints;
    this.previousMessages = prepared.messages;
    this.writes.remember(prepared, now, ttl);
    this.lastTtl = ttl;
    const head = prepared.breakpoints.find((b) => b.messageIndex === undefined);
    if (head) this.headTokens = head.prefixTokens;
    // A final message held out of the write is not cached: trimming it next call costs nothing extra.
    this.cache = { cachedUpTo: Math.min(upTo, prepared.heldFrom ?? upTo), lastCallAt: now };
    this.lastModel = this.model;
    this.lastEpoch = epochStart;
    return prepared;
  }

  /** What the applier knows of the cache for this call: the TTL in use and where it is cold anyway. */
  private cacheStateFor(epochStart: number, now: number, given?: { position: number; why: string }): CacheState {
    let coldFrom = given;
    const cold = (position: number, why: string): void => {
      if (!coldFrom || position < coldFrom.position) coldFrom = { position, why };
    };
    if (this.lastModel !== undefined && this.lastModel !== this.model)
      cold(0, `the model changed (${this.lastModel} → ${this.model}): the cache is per model`);
    if (this.lastEpoch !== undefined && this.lastEpoch !== epochStart)
      cold(0, 'the history was compacted or rewritten: a new cached prefix starts');
    // The cache's TTL is the longest of the writes still alive (a pause under it finds the cache warm), else the
    // previous call's.
    const hour = this.writes.hourAlive(now);
    // Written out, not spread: V8's spread-then-add is a slow path, and this runs every call.
    const { cachedUpTo, lastCallAt } = this.cache;
    const ttl = hour ? '1h' : (this.lastTtl ?? this.ttl);
    return { cachedUpTo, lastCallAt, ttl, coldFrom, writeEnds: this.writes.writeEnds(now), guard: this.guard };
  }

  /** Saved so far vs `none` on this session (the guard's shadow cache). */
  savings(): SavingsSnapshot {
    return this.guard.snapshot();
  }

  /**
   * This call's TTL: the session's (the client's, behind the proxy), or the 1-hour one when the
   * cache-aware applier's long-TTL choice says the pause likely to follow pays for it (cache/long-ttl.ts).
   */
  private callTtl(
    run: PipelineRunResult,
    epochStart: number,
    upTo: number,
    callIndex: number,
    cache: CacheState,
    now: number,
  ): CacheTtl {
    if (this.ttl === '1h' || !this.pipeline.applier.adaptiveTtl || !this.longTtlAllowed) return this.ttl;
    const { loop } = this.pipeline.applier.expectedCalls(run.evidence, this.ttl);
    const k = run.evidence.currentLoopCalls <= 1 ? 0 : 1;
    const q = quoteCallTtl({
      index: this.index,
      run,
      cache,
      epochStart,
      upTo,
      now,
      ttl: this.ttl,
      headTokens: this.headTokens,
      sharedHead: this.sharedHead,
      prunesClosedTurns: this.pipeline.strategies.some((st) => st.prunesClosedTurns),
      restOfLoop: loop,
      lossRate: this.unexplainedLosses[k] / (this.observedCalls[k] + 1),
      minTokens: minCacheableTokens(this.model),
    });
    const long = q.pays ? '1h' : this.ttl;
    if (long !== this.lastTtl && this.lastTtl !== undefined)
      this.decisions.add({
        callIndex,
        by: 'cache-planner',
        action: 'apply',
        targets: [],
        reason: `cache TTL: ${describeLongTtl(q)}`,
        tokensSaved: 0,
      });
    return long;
  }

  /**
   * The request as it would be sent now, without running the pipeline and without
   * changing the engine's state: looking (the inspector) never changes what the agent does.
   */
  preview(
    input: { upTo?: number; epochStart?: number; previousBreakpoints?: readonly Breakpoint[] } = {},
  ): PreparedCall {
    const upTo = input.upTo ?? this.session.messages.length;
    const epochStart = input.epochStart ?? this.builder.epochStart(this.session, upTo);
    this.index.update();
    return this.build(
      this.session.calls.length,
      epochStart,
      upTo,
      input.previousBreakpoints ?? this.previousBreakpoints,
    );
  }

  /**
   * The placement with the best expected saving among the trims due next call (cache/hold-back.ts),
   * if any. Only messages the previous request did not write can be held back (what is cached stays so).
   */
  private holdBack(
    run: PipelineRunResult,
    upTo: number,
    ttl: CacheTtl,
  ): { position: number; q: HoldBackQuote } | undefined {
    let best: { position: number; q: HoldBackQuote } | undefined;
    for (const f of run.foresight) {
      if (f.position < this.cache.cachedUpTo) continue;
      const q = this.pipeline.applier.holdBackQuote(f, this.index.rangeTokens(f.position, upTo), run.evidence, ttl);
      if (q && (!best || q.net > best.q.net)) best = { position: f.position, q };
    }
    return best;
  }

  private build(
    callIndex: number,
    epochStart: number,
    upTo: number,
    previous: readonly Breakpoint[],
    run?: PipelineRunResult,
    previousMessages?: readonly MessageParam[],
    holdBackFrom?: number,
    ttl: CacheTtl = this.ttl,
  ): PreparedCall {
    const built = this.builder.build(this.session, {
      model: this.model,
      maxTokens: this.maxTokens,
      from: epochStart,
      upTo,
      cacheTtl: ttl,
      accountant: this.tokens,
      previousBreakpoints: previous,
      previousMessages,
      holdBackFrom,
      system: this.inferred?.system,
      headTokens: this.inferred?.prefix.tokens,
    });
    const breakpoints = [...built.breakpoints];
    const stats: CallStats = {
      callIndex,
      messages: built.body.messages.length,
      blocks: built.body.messages.reduce((n, m) => n + (typeof m.content === 'string' ? 1 : m.content.length), 0),
      sentTokens: this.index.rangeTokens(epochStart, upTo),
      untrimmedTokens: this.index.originalTokens(epochStart, upTo),
      // Counts still estimated from characters (a deferring estimator) are estimates, however calibrated.
      quality: this.index.provisionalMessages > 0 ? 'estimated' : this.tokens.quality(),
      overlays: this.session.overlayCount,
      appliedThisCall: run?.applied ?? 0,
      pending: run?.pending ?? this.pipeline.applier.pendingCount(),
      pendingSavings: run?.pendingSavings ?? this.pipeline.applier.pendingSavings(),
      repairs: built.repairs.length,
      breakpoints: breakpoints.length,
    };
    return {
      body: built.body,
      breakpoints,
      repairs: built.repairs,
      blockMap: built.blockMap,
      stats,
      messages: built.messages,
      firstChanged: built.firstChanged,
      heldFrom: built.heldFrom,
    };
  }

  /**
   * Learn from a call's real usage. The difference to the previous call's total is the
   * true size of what was added, a clean sample only when no overlay changed in between.
   * A call that read little of a cache the previous call left warm, with no edit of ours,
   * no model switch and no new epoch in between, lost it for a reason its request does not show.
   * `usageTtl`: the TTL the observed call's request was written with when it was not this engine's
   * request (a replayed recording: the client's); default the TTL this engine chose for the call.
   */
  observeUsage(usage: CallUsage, upTo: number, epochStart: number, untrimmedDelta = false, usageTtl?: CacheTtl): void {
    const prev = this.lastObserved;
    if (!prev) this.sharedHead = Math.min(this.headTokens, usage.cache_read_input_tokens ?? 0);
    const at = this.cache.lastCallAt;
    const ttl = usageTtl ?? this.lastTtl ?? this.ttl;
    if (prev) {
      const k = this.opensLoop ? 0 : 1;
      this.observedCalls[k]++;
      const cached = (prev.usage.cache_read_input_tokens ?? 0) + (prev.usage.cache_creation_input_tokens ?? 0);
      const warm = prev.at !== undefined && at !== undefined && at - prev.at < ttlMsOf(prev.ttl);
      const same = prev.model === this.model && prev.epochStart === epochStart;
      if (warm && same && !this.editedInside && (usage.cache_read_input_tokens ?? 0) < cached * LOST_SHARE) {
        this.unexplainedLosses[k]++;
        // What earlier calls wrote is gone with it: only this call's writes are alive.
        this.writes.keepOnlyWrittenAt(at);
      }
    }
    if (prev && prev.epochStart === epochStart && upTo > prev.upTo && (untrimmedDelta || !this.overlaysChanged)) {
      const added: ContentBlockParam[] = [];
      for (let p = prev.upTo; p < upTo; p++) for (const b of this.session.messages[p].blocks) added.push(b.param);
      this.tokens.observe({
        model: this.model,
        addedBlocks: added,
        addedMessages: upTo - prev.upTo,
        trueDelta: totalInput(usage) - totalInput(prev.usage),
      });
    }
    this.lastObserved = { upTo, epochStart, usage, overlaysChanged: false, at, ttl, model: this.model };
    this.overlaysChanged = false;
  }
}
