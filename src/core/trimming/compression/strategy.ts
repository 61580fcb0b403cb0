/**
 * LLM history compression, the Koog-style strategies: `whole-history`,
 * `last-n-messages` (n), `chunked` (n) and `retrieve-facts` (concepts), each with
 * `preserveMemory`. A model call writes a summary (or a facts list) that replaces
 * a range of the history as one restorable `summary` overlay (author
 * `strategy:<name>`); which ranges are allowed is in range.ts, the
 * texts sent and written in input.ts and prompts.ts.
 *
 * Semantics (after Koog's HistoryCompressionStrategy):
 * - whole-history: the history before the current turn → one TL;DR.
 * - last-n-messages: the same range is replaced, but the TL;DR is made from its last
 *   n messages only; the older ones are dropped (Koog's FromLastNMessages).
 * - chunked: one TL;DR per chunk of n messages. Automatic runs summarize full chunks
 *   only (the rest waits until it fills a chunk); Compact Now takes the remainder too.
 * - retrieve-facts: the range → facts about each concept (single: one, multiple: a list).
 * - preserveMemory (default true, as in Koog): a previous compression inside the new
 *   range is carried verbatim ahead of the new text (shown to the summarizer as context,
 *   not re-summarized), so nothing it remembered is lost; chunked keeps earlier chunk
 *   summaries as they are. Without it, a previous summary is just more history to
 *   summarize (and last-n-messages drops it once it is older than n messages).
 * Always kept verbatim: the latest user prompt and the current turn, the first prompt
 * (keepFirstPrompt), pinned and user-restored messages with their tool rounds.
 *
 * Bridging the synchronous `Strategy.run` and the asynchronous model call:
 * a small state machine, idle → summarizing → ready → proposed.
 * - `prepareAsync(...)` (the agent loop awaits it before `engine.prepare`, see
 *   `prepareCompression` in api.ts): above the trigger it plans the ranges,
 *   runs the summarization and keeps the result as ready; the `run` of the same
 *   `engine.prepare` proposes it. Deterministic: the call that crosses the threshold
 *   is the one that is compressed.
 * - Without prepareAsync (`background`, the default): the first `run` above the trigger
 *   starts the summarization and returns; a later `run` proposes the text once it has
 *   arrived. The turn never waits for the summarizer.
 * A ready result is re-checked before it is proposed (a pin, a restore or another
 * compression since planning makes it stale: it is dropped). All summaries of one
 * compression are proposed together at the position of the first, so the cache-aware
 * applier takes or defers them as one batch; above 95% of the window they are urgent.
 */
import type { DecisionLog } from '../decisions';
import { CompressionPlanner } from './planner';
import { compressionDefaults, parseCompressionOptions, type CompressionKind, type CompressionOptions } from './options';
import type { Summarizer } from './summarizer';
import {
  abortReason,
  untilDone,
  type AsyncPrepareInput,
  type CompressionOutcome,
  type CompressionPlan,
  type CompressionStatus,
  type Job,
  type PreparedCompression,
} from './types';
import type { DecisionAction, Strategy, StrategyContext, Trigger } from '../types';

/** Above this share of the window a ready compression is applied whatever the cache cost (Copilot blocks at 95%). */
const URGENT_FRACTION = 0.95;
/** After a failed summarization, calls to wait before the next attempt (doubled per consecutive failure). */
const RETRY_AFTER_CALLS = 2;

export class CompressionStrategy extends CompressionPlanner implements Strategy {
  readonly trigger: Trigger;
  private summarizer?: Summarizer;
  private model?: string;
  private decisions?: DecisionLog;
  private job?: Job;
  private ready?: PreparedCompression;
  private failures = 0;
  private retryAt = -1;
  private lastError?: string;

  constructor(name: CompressionKind, options: CompressionOptions = compressionDefaults(name)) {
    super(name, options);
    this.trigger = options.trigger;
  }

  /** The model client used for summaries; `model` is asked for in background runs (default: the session's). */
  attach(summarizer: Summarizer | undefined, opts: { model?: string; decisions?: DecisionLog } = {}): void {
    this.summarizer = summarizer;
    if (opts.model) this.model = opts.model;
    if (opts.decisions) this.decisions = opts.decisions;
  }

  get attachedSummarizer(): Summarizer | undefined {
    return this.summarizer;
  }

  status(): { summarizing: boolean; ready: boolean; lastError?: string } {
    return { summarizing: this.job !== undefined, ready: this.ready !== undefined, lastError: this.lastError };
  }

  /** Abort a summarization in flight and forget a ready result. */
  cancel(): void {
    this.job?.controller.abort(new Error(`${this.name}: cancelled`));
    this.job = undefined;
    this.ready = undefined;
  }

  private log(plan: CompressionPlan, action: DecisionAction, reason: string): void {
    this.decisions?.add({
      callIndex: plan.callIndex,
      by: this.author,
      action,
      targets: plan.summaries.map((s) => s.fromMessageId),
      reason,
      tokensSaved: 0,
    });
  }

  private start(plan: CompressionPlan, summarizer: Summarizer, external?: AbortSignal): Job {
    const controller = new AbortController();
    const relay = (): void => controller.abort(external?.reason);
    if (external?.aborted) controller.abort(external.reason);
    else external?.addEventListener('abort', relay, { once: true });
    const job: Job = {
      controller,
      promise: this.summarize(plan, summarizer, controller.signal)
        .then(
          (prepared) => {
            this.failures = 0;
            this.lastError = undefined;
            if (prepared.summaries.length) this.ready = prepared;
            else
              this.log(plan, 'skip', `${this.name}: the summarizer's answer had nothing usable; history left as it is`);
          },
          (e: unknown) => {
            if (controller.signal.aborted) return;
            this.failures++;
            this.retryAt = plan.callIndex + RETRY_AFTER_CALLS * 2 ** (this.failures - 1);
            this.lastError = e instanceof Error ? e.message : String(e);
            this.log(
              plan,
              'skip',
              `${this.name}: summarization failed (${this.lastError}); next attempt from call ${this.retryAt}`,
            );
          },
        )
        .finally(() => {
          external?.removeEventListener('abort', relay);
          if (this.job === job) this.job = undefined;
        }),
    };
    this.job = job;
    return job;
  }

  private outcome(status: CompressionStatus): CompressionOutcome {
    return {
      strategy: this.name,
      status,
      error: status === 'failed' ? this.lastError : undefined,
      usage: this.ready?.usage,
    };
  }

  /**
   * Before `engine.prepare`: above the trigger, summarize now (awaited) so this call's
   * `run` proposes the result. Summarizer errors are reported, not thrown (the turn goes
   * on uncompressed); an abort of `signal` is thrown.
   */
  async prepareAsync(i: AsyncPrepareInput): Promise<CompressionOutcome> {
    const summarizer = this.summarizer;
    if (!summarizer) return this.outcome('no-summarizer');
    if (this.ready) return this.outcome('ready');
    if (this.job) {
      await untilDone(this.job.promise, i.signal);
      return this.outcome(this.ready ? 'ready' : this.lastError ? 'failed' : 'empty');
    }
    if (i.callIndex < this.retryAt) return this.outcome('cooling-down');
    const upTo = i.upTo ?? i.session.messages.length;
    const epochStart = i.epochStart ?? 0;
    i.index.update();
    if (
      this.trigger.kind === 'above' &&
      i.index.rangeTokens(epochStart, upTo) < this.trigger.fraction * i.contextWindow
    )
      return this.outcome('below-threshold');
    const plan = this.plan({
      session: i.session,
      index: i.index,
      epochStart,
      upTo,
      callIndex: i.callIndex,
      model: i.model,
      onDemand: false,
      isPending: i.isPending,
    });
    if (!plan) return this.outcome('nothing-to-compress');
    await this.start(plan, summarizer, i.signal).promise;
    if (i.signal?.aborted) throw abortReason(i.signal);
    return this.outcome(this.ready ? 'ready' : this.lastError ? 'failed' : 'empty');
  }

  run(ctx: StrategyContext): void {
    this.watch(ctx.session);
    if (this.ready) {
      const r = this.ready;
      this.ready = undefined;
      this.propose(ctx, r);
      return;
    }
    const summarizer = this.summarizer;
    if (!summarizer || this.job || !this.options.background || ctx.callIndex < this.retryAt) return;
    const model = this.model ?? ctx.session.model;
    if (!model) return;
    const plan = this.plan({
      session: ctx.session,
      index: ctx.index,
      epochStart: ctx.epochStart,
      upTo: ctx.upTo,
      callIndex: ctx.callIndex,
      model,
      onDemand: false,
      isPending: ctx.isPending,
    });
    if (plan) this.start(plan, summarizer);
  }

  /** All summaries of one compression as one batch (same position), superseded compressions removed on apply. */
  private propose(ctx: StrategyContext, prepared: PreparedCompression): void {
    const { session } = ctx;
    const valid = prepared.summaries.filter((s) => this.stillValid(session, s.planned));
    const stale = prepared.summaries.length - valid.length;
    if (stale > 0) {
      this.log(
        prepared.plan,
        'skip',
        `${this.name}: ${stale} prepared summar${stale === 1 ? 'y is' : 'ies are'} stale ` +
          '(pin, restore or another compression since): dropped',
      );
    }
    if (!valid.length) return;
    const position = Math.min(...valid.map((s) => s.planned.from));
    const used = ctx.viewTokens() / ctx.contextWindow;
    const urgent = used >= URGENT_FRACTION;
    const taken = new Set<string>();
    for (const s of valid) {
      const built = this.overlayFor(
        session,
        ctx.index,
        ctx.tokens,
        s,
        ctx.callIndex,
        `view at ${Math.round(used * 100)}% of the context window`,
      );
      if (!built) continue;
      const replaces = s.planned.replaces.filter((id) => !taken.has(id));
      for (const id of replaces) taken.add(id);
      ctx.propose({
        position,
        saved: built.saved,
        urgent,
        replaces: replaces[0],
        onApplied: () => {
          for (const id of replaces.slice(1)) if (session.overlay(id)) session.removeOverlay(id, this.author);
        },
        overlay: built.overlay,
      });
    }
  }
}

/** Factory for the registry: `createPipeline('tool-pruning,whole-history', config)`. */
export function createCompressionStrategy(
  kind: CompressionKind,
  opts: Record<string, unknown> = {},
): CompressionStrategy {
  return new CompressionStrategy(kind, parseCompressionOptions(kind, opts));
}
