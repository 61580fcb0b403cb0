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
import type { NewOverlay } from '../../session/overlay';
import type { Session } from '../../session/session';
import type { TokenAccountant } from '../../tokens/types';
import type { DecisionLog } from '../decisions';
import { composeSummary, memoryOf, parseFacts, renderFacts, summaryRequest, transcript } from './input';
import { compressionDefaults, parseCompressionOptions, type CompressionKind, type CompressionOptions } from './options';
import { summaryHeader } from './prompts';
import { Shape, activeSpans, chunksOf, compressibleSegments, isCompressionAuthor, lastN, type Segment } from './range';
import type { Summarizer } from './summarizer';
import {
  ZERO_USAGE,
  abortReason,
  addUsage,
  untilDone,
  type AsyncPrepareInput,
  type CompressionOutcome,
  type CompressionPlan,
  type CompressionStatus,
  type Job,
  type PlanInput,
  type PlannedSummary,
  type PreparedCompression,
  type PreparedSummary,
} from './types';
import type { MessageIndex } from '../message-index';
import type { DecisionAction, Strategy, StrategyContext, Trigger } from '../types';

/** Above this share of the window a ready compression is applied whatever the cache cost (Copilot blocks at 95%). */
const URGENT_FRACTION = 0.95;
/** After a failed summarization, calls to wait before the next attempt (doubled per consecutive failure). */
const RETRY_AFTER_CALLS = 2;
/**
 * A range with less new content than this is never worth a model call, even on demand: the
 * summary's own header and a one-line TL;DR are about this long, so nothing would be saved.
 */
const SMALLEST_RANGE_TOKENS = 64;

export class CompressionStrategy implements Strategy {
  readonly trigger: Trigger;
  private summarizer?: Summarizer;
  private model?: string;
  private decisions?: DecisionLog;
  private job?: Job;
  private ready?: PreparedCompression;
  private failures = 0;
  private retryAt = -1;
  private lastError?: string;
  /** Ranges (message ids) of this strategy's summaries that the user removed: automatic runs leave them alone. */
  private readonly restored = new WeakMap<Session, { from: string; to: string }[]>();

  constructor(
    readonly name: CompressionKind,
    readonly options: CompressionOptions = compressionDefaults(name),
  ) {
    this.trigger = options.trigger;
  }

  get author(): `strategy:${string}` {
    return `strategy:${this.name}`;
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

  private watch(session: Session): { from: string; to: string }[] {
    let list = this.restored.get(session);
    if (list) return list;
    const ranges: { from: string; to: string }[] = [];
    this.restored.set(session, (list = ranges));
    session.on((e) => {
      if (
        e.type === 'overlay-removed' &&
        e.by === 'user' &&
        e.overlay.kind === 'summary' &&
        e.overlay.author === this.author
      ) {
        ranges.push({ from: e.overlay.fromMessageId, to: e.overlay.toMessageId });
      }
    });
    return list;
  }

  /** Which ranges to compress now and the request for each; undefined when nothing is worth it. */
  plan(inp: PlanInput): CompressionPlan | undefined {
    const { session, index } = inp;
    index.update();
    const restored = this.watch(session);
    const o = this.options;
    const shape = new Shape(session, activeSpans(session));
    const keep =
      inp.onDemand || !restored.length
        ? undefined
        : (p: number): boolean =>
            restored.some((r) => (session.position(r.from) ?? Infinity) <= p && p <= (session.position(r.to) ?? -1));
    const segments = compressibleSegments(
      {
        session,
        index,
        epochStart: inp.epochStart,
        upTo: inp.upTo,
        keepFirstPrompt: o.keepFirstPrompt,
        keepCurrentTurn: o.keepCurrentTurn,
        keepRecentMessages: o.keepRecentMessages,
        keepCompressed: this.name === 'chunked' && o.preserveMemory,
        keep,
      },
      shape,
    );
    const visible = (p: number): boolean => index.messageTokens(p) > 0;
    const ranges =
      this.name === 'chunked' ? segments.flatMap((s) => chunksOf(s, o.n, shape, visible, inp.onDemand)) : segments;
    const summaries: PlannedSummary[] = [];
    for (const r of ranges) {
      const s = this.planRange(inp, shape, r, visible);
      if (s) summaries.push(s);
    }
    if (!summaries.length) return undefined;
    if (!inp.onDemand && summaries.reduce((n, s) => n + s.newTokens, 0) < o.minTokens) return undefined;
    if (inp.isPending && summaries.some((s) => inp.isPending!(s.fromMessageId))) return undefined;
    return { strategy: this.name, callIndex: inp.callIndex, summaries };
  }

  private planRange(
    inp: PlanInput,
    shape: Shape,
    r: Segment,
    visible: (p: number) => boolean,
  ): PlannedSummary | undefined {
    const { session, index } = inp;
    const inside = shape.spans.filter((s) => s.from >= r.from && s.to <= r.to && isCompressionAuthor(s.overlay.author));
    const carry = this.options.preserveMemory && this.name !== 'chunked' ? inside : [];
    const oldTokens = inside.reduce((n, s) => n + index.rangeTokens(s.from, s.to + 1), 0);
    const newTokens = index.rangeTokens(r.from, r.to + 1) - oldTokens;
    if (newTokens < SMALLEST_RANGE_TOKENS) return undefined;
    const isMemory = (p: number): boolean => carry.some((s) => p >= s.from && p <= s.to);
    const counted = (p: number): boolean => visible(p) && !isMemory(p);
    const inputFrom = this.name === 'last-n-messages' ? lastN(r, this.options.n, shape, counted) : r.from;
    const t = transcript(
      session,
      inputFrom,
      r.to,
      new Set(carry.map((s) => s.overlay.id)),
      this.options.maxInputTokens,
    );
    if (t.messages === 0) return undefined;
    let messages = 0;
    for (let p = r.from; p <= r.to; p++) if (counted(p)) messages++;
    const replaces: string[] = [];
    for (const o of session.allOverlays()) {
      if (o.kind !== 'summary' || !isCompressionAuthor(o.author)) continue;
      const a = session.position(o.fromMessageId) ?? -1;
      const b = session.position(o.toMessageId) ?? -1;
      if (a <= r.to && b >= r.from) replaces.push(o.id);
    }
    const memory = carry.flatMap((s) => memoryOf(s.overlay.text));
    const request = summaryRequest({
      kind: this.name,
      transcript: t.text,
      messages: t.messages,
      memory,
      concepts: this.options.concepts,
      model: inp.model,
      maxTokens: this.options.maxSummaryTokens,
    });
    return {
      from: r.from,
      to: r.to,
      fromMessageId: session.messages[r.from].id,
      toMessageId: session.messages[r.to].id,
      messages,
      newTokens,
      memory,
      replaces,
      inputFrom,
      inputMessages: t.messages,
      request,
    };
  }

  /** The overlay text for one answer; undefined when the answer has nothing usable. */
  finalText(p: PlannedSummary, answer: string): string | undefined {
    let body: string | undefined;
    if (this.name === 'retrieve-facts') {
      body = renderFacts(
        summaryHeader(this.name, p.messages, 'facts'),
        this.options.concepts,
        parseFacts(answer, this.options.concepts),
      );
    } else if (answer.trim()) {
      body = `${summaryHeader(this.name, p.messages, 'summary')}\n${answer.trim()}`;
    }
    return body === undefined ? undefined : composeSummary(p.memory, body);
  }

  /** Run the summarization calls of a plan, in order. Throws on a model error or an abort. */
  async summarize(plan: CompressionPlan, summarizer: Summarizer, signal?: AbortSignal): Promise<PreparedCompression> {
    const out: PreparedSummary[] = [];
    let usage = ZERO_USAGE;
    for (const planned of plan.summaries) {
      if (signal?.aborted) throw abortReason(signal);
      const r = await summarizer.summarize(planned.request, signal);
      usage = addUsage(usage, r.usage);
      const text = this.finalText(planned, r.text);
      if (text !== undefined) out.push({ planned, text, model: r.model ?? planned.request.model });
    }
    return { plan, summaries: out, usage };
  }

  /** Whether a planned range may still be replaced (no pin, restore or other compression since). */
  stillValid(session: Session, p: PlannedSummary): boolean {
    if (session.position(p.fromMessageId) !== p.from || session.position(p.toMessageId) !== p.to) return false;
    for (let pos = p.from; pos <= p.to; pos++) {
      if (session.messages[pos].blocks.some((b) => session.isPinned(b.id) || session.isUserRestored(b.id)))
        return false;
    }
    for (const s of activeSpans(session)) {
      if (p.replaces.includes(s.overlay.id) || s.to < p.from || s.from > p.to) continue;
      if (s.from < p.from || s.to > p.to) return false;
      if (isCompressionAuthor(s.overlay.author)) return false;
    }
    return true;
  }

  /** The summary overlay for a prepared range, with the tokens it saves; undefined when it saves nothing. */
  overlayFor(
    session: Session,
    index: MessageIndex,
    tokens: TokenAccountant,
    s: PreparedSummary,
    callIndex: number,
    why: string,
  ): { overlay: NewOverlay; saved: number } | undefined {
    const { planned } = s;
    index.update();
    const before = index.rangeTokens(planned.from, planned.to + 1);
    const after = tokens.text(s.text).tokens;
    if (after >= before) return undefined;
    const what =
      this.name === 'retrieve-facts'
        ? 'reduced to facts'
        : planned.inputFrom > planned.from
          ? `summarized from their last ${planned.inputMessages}`
          : 'summarized';
    const carried = planned.memory.length
      ? `; carries ${planned.memory.length} earlier summar${planned.memory.length === 1 ? 'y' : 'ies'}`
      : '';
    // The one path that may summarize the user's own words: it says so (session/user-text.ts).
    const userWords = session.userText.inRange(planned.from, planned.to)
      ? "; includes the user's own words (prompts, reminders), summarized because compression was asked for"
      : '';
    return {
      saved: before - after,
      overlay: {
        kind: 'summary',
        fromMessageId: planned.fromMessageId,
        toMessageId: planned.toMessageId,
        text: s.text,
        author: this.author,
        reason: `${this.name}: messages ${planned.from}–${planned.to} (${planned.messages} messages) ${what} by ${s.model} (${before} → ${after} tokens${carried})${userWords} — ${why}`,
        callIndex,
        tokensBefore: before,
        tokensAfter: after,
      },
    };
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
    if (valid.length < prepared.summaries.length) {
      this.log(
        prepared.plan,
        'skip',
        `${this.name}: ${prepared.summaries.length - valid.length} prepared summar${prepared.summaries.length - valid.length === 1 ? 'y is' : 'ies are'} stale (pin, restore or another compression since): dropped`,
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
