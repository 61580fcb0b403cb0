/**
 * The context engine of one session: trimming pipeline → view → request builder →
 * cache planner, with token accounting and the decision log. One `prepare` per model
 * call; work per call grows with what is new (incremental index, cached renders).
 */
import { CACHE_READ_MULTIPLIER, CACHE_WRITE_1H_MULTIPLIER, CACHE_WRITE_5M_MULTIPLIER, contextWindow } from '../models';
import { RequestBuilder, type BlockMap } from '../request/build';
import type { Breakpoint, CacheTtl, Repair, RequestBody } from '../request/types';
import type { Session } from '../session/session';
import { totalInput, type CallUsage, type ContentBlockParam } from '../session/types';
import { TokenEstimator } from '../tokens';
import type { TokenQuality } from '../tokens/types';
import { DecisionLog, MessageIndex, createPipeline, type CacheState, type Pipeline, type PipelineConfig, type PipelineRunResult } from '../trimming';

export const DEFAULT_MODEL = 'claude-sonnet-4-5';
export const DEFAULT_MAX_TOKENS = 8192;

export interface EngineOptions {
  model?: string;
  maxTokens?: number;
  /** Strategy spec: `none`, `default` or a comma list. */
  strategy?: string;
  config?: PipelineConfig;
  ttl?: CacheTtl;
  estimator?: TokenEstimator;
}

export interface CallStats {
  callIndex: number;
  messages: number;
  blocks: number;
  /** Estimated tokens of the messages sent (excludes system and tools). */
  sentTokens: number;
  /** The same without any trimming. */
  untrimmedTokens: number;
  quality: TokenQuality;
  overlays: number;
  appliedThisCall: number;
  pending: number;
  pendingSavings: number;
  repairs: number;
  breakpoints: number;
}

export interface PreparedCall {
  body: RequestBody;
  breakpoints: Breakpoint[];
  repairs: readonly Repair[];
  blockMap: BlockMap;
  stats: CallStats;
}

export interface PrepareInput {
  callIndex: number;
  /** Messages [epochStart, upTo) form the request (default: all). */
  upTo?: number;
  epochStart?: number;
  /** Time of the call (ms), for the cache TTL. */
  now?: number;
}

export class ContextEngine {
  readonly tokens: TokenEstimator;
  readonly index: MessageIndex;
  readonly decisions = new DecisionLog();
  readonly pipeline: Pipeline;
  readonly builder = new RequestBuilder();
  model: string;
  maxTokens: number;
  ttl: CacheTtl;
  private cache: CacheState = { cachedUpTo: 0 };
  private previousBreakpoints: Breakpoint[] = [];
  private lastObserved?: { upTo: number; epochStart: number; usage: CallUsage; overlaysChanged: boolean };
  private overlaysChanged = false;
  private readonly loggedRepairs = new Set<string>();

  constructor(
    readonly session: Session,
    opts: EngineOptions = {},
  ) {
    this.model = opts.model ?? session.model ?? DEFAULT_MODEL;
    this.maxTokens = opts.maxTokens ?? DEFAULT_MAX_TOKENS;
    this.ttl = opts.ttl ?? '5m';
    this.tokens = (opts.estimator ?? new TokenEstimator()).forModel(this.model);
    this.index = new MessageIndex(session, this.tokens);
    const cfg: PipelineConfig = {
      ...opts.config,
      cacheAware: {
        writeMultiplier: this.ttl === '1h' ? CACHE_WRITE_1H_MULTIPLIER : CACHE_WRITE_5M_MULTIPLIER,
        readMultiplier: CACHE_READ_MULTIPLIER,
        ttlMs: this.ttl === '1h' ? 3_600_000 : 300_000,
        ...opts.config?.cacheAware,
      },
    };
    this.pipeline = createPipeline(opts.strategy ?? 'default', cfg);
    session.on((e) => {
      if (e.type !== 'message') this.overlaysChanged = true;
    });
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
      cache: this.cache,
    });
    const prepared = this.build(input.callIndex, epochStart, upTo, this.previousBreakpoints, run);
    for (const r of prepared.repairs) {
      // A repair repeats on every call while its cause is in view: log it once.
      const key = `${r.rule}:${r.blockIds.join(',')}`;
      if (this.loggedRepairs.has(key)) continue;
      this.loggedRepairs.add(key);
      this.decisions.add({ callIndex: input.callIndex, by: 'request-builder', action: 'repair', targets: [...r.blockIds], reason: `${r.rule}: ${r.description}`, tokensSaved: 0 });
    }
    this.previousBreakpoints = prepared.breakpoints;
    this.cache = { cachedUpTo: upTo, lastCallAt: now };
    return prepared;
  }

  /**
   * The request as it would be sent now, without running the pipeline and without
   * changing the engine's state: looking (the inspector) never changes what the agent does.
   */
  preview(input: { upTo?: number; epochStart?: number; previousBreakpoints?: readonly Breakpoint[] } = {}): PreparedCall {
    const upTo = input.upTo ?? this.session.messages.length;
    const epochStart = input.epochStart ?? this.builder.epochStart(this.session, upTo);
    this.index.update();
    return this.build(this.session.calls.length, epochStart, upTo, input.previousBreakpoints ?? this.previousBreakpoints);
  }

  private build(callIndex: number, epochStart: number, upTo: number, previous: readonly Breakpoint[], run?: PipelineRunResult): PreparedCall {
    const built = this.builder.build(this.session, {
      model: this.model,
      maxTokens: this.maxTokens,
      from: epochStart,
      upTo,
      cacheTtl: this.ttl,
      accountant: this.tokens,
      previousBreakpoints: previous,
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
      overlays: this.session.allOverlays().length,
      appliedThisCall: run?.applied ?? 0,
      pending: run?.pending ?? this.pipeline.applier.pendingCount(),
      pendingSavings: run?.pendingSavings ?? this.pipeline.applier.pendingSavings(),
      repairs: built.repairs.length,
      breakpoints: breakpoints.length,
    };
    return { body: built.body, breakpoints, repairs: built.repairs, blockMap: built.blockMap, stats };
  }

  /**
   * Learn from a call's real usage. The difference to the previous call's total is the
   * true size of what was added, a clean sample only when no overlay changed in between.
   */
  observeUsage(usage: CallUsage, upTo: number, epochStart: number, untrimmedDelta = false): void {
    const prev = this.lastObserved;
    if (prev && prev.epochStart === epochStart && upTo > prev.upTo && (untrimmedDelta || !this.overlaysChanged)) {
      const added: ContentBlockParam[] = [];
      for (let p = prev.upTo; p < upTo; p++) for (const b of this.session.messages[p].blocks) added.push(b.param);
      this.tokens.observe({ model: this.model, addedBlocks: added, addedMessages: upTo - prev.upTo, trueDelta: totalInput(usage) - totalInput(prev.usage) });
    }
    this.lastObserved = { upTo, epochStart, usage, overlaysChanged: false };
    this.overlaysChanged = false;
  }
}
