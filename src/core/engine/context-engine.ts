/**
 * The context engine of one session: trimming pipeline → view → request builder →
 * cache planner, with token accounting and the decision log. One `prepare` per model
 * call; work per call grows with what is new (incremental index, cached renders).
 */
import { CACHE_READ_MULTIPLIER, CACHE_WRITE_1H_MULTIPLIER, CACHE_WRITE_5M_MULTIPLIER, contextWindow } from '../cache/pricing';
import { RequestBuilder, type BlockMap } from '../request/build';
import type { Breakpoint, CacheTtl, Repair, RequestBody } from '../request/types';
import type { Session } from '../session/session';
import { totalInput, type CallUsage, type ContentBlockParam } from '../session/types';
import { TokenEstimator } from '../tokens';
import type { TokenQuality } from '../tokens/types';
import { DecisionLog, MessageIndex, createPipeline, type CacheState, type Pipeline, type PipelineConfig } from '../trimming';

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
    const built = this.builder.build(session, {
      model: this.model,
      maxTokens: this.maxTokens,
      from: epochStart,
      upTo,
      cacheTtl: this.ttl,
      accountant: this.tokens,
      previousBreakpoints: this.previousBreakpoints,
    });
    for (const r of built.repairs) {
      // A repair repeats on every call while its cause is in view: log it once.
      const key = `${r.rule}:${r.blockIds.join(',')}`;
      if (this.loggedRepairs.has(key)) continue;
      this.loggedRepairs.add(key);
      this.decisions.add({ callIndex: input.callIndex, by: 'request-builder', action: 'repair', targets: [...r.blockIds], reason: `${r.rule}: ${r.description}`, tokensSaved: 0 });
    }
    const planned = { body: built.body, breakpoints: [...built.breakpoints] };
    this.previousBreakpoints = planned.breakpoints;
    this.cache = { cachedUpTo: upTo, lastCallAt: now };
    const sentTokens = this.index.rangeTokens(epochStart, upTo);
    const stats: CallStats = {
      callIndex: input.callIndex,
      messages: planned.body.messages.length,
      blocks: planned.body.messages.reduce((n, m) => n + (typeof m.content === 'string' ? 1 : m.content.length), 0),
      sentTokens,
      untrimmedTokens: this.index.originalTokens(epochStart, upTo),
      quality: this.tokens.quality(),
      overlays: session.allOverlays().length,
      appliedThisCall: run.applied,
      pending: run.pending,
      pendingSavings: run.pendingSavings,
      repairs: built.repairs.length,
      breakpoints: planned.breakpoints.length,
    };
    return { body: planned.body, breakpoints: planned.breakpoints, repairs: built.repairs, blockMap: built.blockMap, stats };
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
      this.tokens.calibrator.observe({ model: this.model, addedBlocks: added, addedMessages: upTo - prev.upTo, trueDelta: totalInput(usage) - totalInput(prev.usage) });
    }
    this.lastObserved = { upTo, epochStart, usage, overlaysChanged: false };
    this.overlaysChanged = false;
  }
}
