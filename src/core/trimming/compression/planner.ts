/**
 * What a compression kind would do, without running it: which ranges to compress now and the request for each
 * (range.ts decides what may go, input.ts what is sent), the overlay text made of an answer, whether a planned range
 * may still be replaced, and the summary overlay it becomes. The asynchronous state machine that runs these is in
 * strategy.ts.
 */
import type { NewOverlay } from '../../session/overlay';
import type { Session } from '../../session/session';
import type { TokenAccountant } from '../../tokens/types';
import type { MessageIndex } from '../message-index';
import { composeSummary, memoryOf, parseFacts, renderFacts, summaryRequest, transcript } from './input';
import type { CompressionKind, CompressionOptions } from './options';
import { summaryHeader } from './prompts';
import { Shape, activeSpans, chunksOf, compressibleSegments, isCompressionAuthor, lastN, type Segment } from './range';
import type { Summarizer } from './summarizer';
import {
  ZERO_USAGE,
  abortReason,
  addUsage,
  type CompressionPlan,
  type PlanInput,
  type PlannedSummary,
  type PreparedCompression,
  type PreparedSummary,
} from './types';

/**
 * A range with less new content than this is never worth a model call, even on demand: the
 * summary's own header and a one-line TL;DR are about this long, so nothing would be saved.
 */
const SMALLEST_RANGE_TOKENS = 64;

export class CompressionPlanner {
  /** Ranges (message ids) of this strategy's summaries that the user removed: automatic runs leave them alone. */
  private readonly restored = new WeakMap<Session, { from: string; to: string }[]>();

  constructor(
    readonly name: CompressionKind,
    readonly options: CompressionOptions,
  ) {}

  get author(): `strategy:${string}` {
    return `strategy:${this.name}`;
  }

  /** The ranges of this strategy's summaries the user removed (watched from the first call on). */
  protected watch(session: Session): { from: string; to: string }[] {
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
        reason:
          `${this.name}: messages ${planned.from}–${planned.to} (${planned.messages} messages) ` +
          `${what} by ${s.model} (${before} → ${after} tokens${carried})${userWords} — ${why}`,
        callIndex,
        tokensBefore: before,
        tokensAfter: after,
      },
    };
  }
}
