/**
 * atomic-window: a token- and/or message-budget sliding window over the conversation.
 *
 * - Never splits a tool_use from its tool_result (several results batched in one
 *   message included): the window only starts at a user prompt or at an assistant
 *   message, so every kept tool_result has its tool_use, and every kept tool_use has
 *   its results right after it.
 * - Never drops the system prompt (it is not part of the log) and the request's
 *   first message stays a user message: the omitted range is replaced by one short
 *   user note ("N earlier messages omitted"), a single restorable overlay.
 * - Keeps at least `minRecentKeep` messages. The budget is soft where no valid
 *   start exists inside it (one huge turn, a pinned pair, minRecentKeep): the
 *   window then keeps more than the budget rather than break a pair.
 * - Cache-friendly hysteresis: when over budget it cuts down to `lowWater` × budget,
 *   so the cached prefix is rebuilt once per big move, not on every call.
 */
import { buildDigest } from './digest';
import type { Strategy, StrategyContext, StrategyDoc, Trigger } from './types';

export interface WindowOptions {
  /** Token budget for the messages (0 = none). Default: half the model's context window. */
  maxTokens: number;
  /** Message budget (0 = none). */
  maxMessages: number;
  minRecentKeep: number;
  /** After a move, the window holds at most this share of the budget. */
  lowWater: number;
  /** The note for the omitted range lists the user's words and the reference ids seen there. */
  digest: boolean;
  trigger: Trigger;
}

export const WINDOW_DEFAULTS: WindowOptions = {
  maxTokens: 0,
  maxMessages: 0,
  minRecentKeep: 4,
  lowWater: 0.6,
  digest: false,
  trigger: { kind: 'always' },
};

export const WINDOW_DOC: StrategyDoc = {
  name: 'atomic-window',
  summary: 'Token/message-budget sliding window that never splits a tool_use from its tool_result and never drops the system prompt.',
  options: [
    { name: 'maxTokens', type: 'number', default: 0, description: 'token budget for messages (0 = half the context window)' },
    { name: 'maxMessages', type: 'number', default: 0, description: 'message budget (0 = none)' },
    { name: 'minRecentKeep', type: 'number', default: 4, description: 'messages always kept' },
    { name: 'lowWater', type: 'number', default: 0.6, description: 'share of the budget kept after a move (hysteresis for the cache)' },
    { name: 'digest', type: 'boolean', default: false, description: "the omitted range's note lists the user's words and reference ids seen there" },
  ],
};

export class AtomicWindow implements Strategy {
  readonly trigger: Trigger;
  /** Start of the window (log position) in the current epoch. */
  private start = 0;
  private epoch = -1;
  private overlayId?: string;

  constructor(
    private readonly o: WindowOptions = WINDOW_DEFAULTS,
    readonly name = 'atomic-window',
  ) {
    this.trigger = o.trigger;
  }

  private budget(ctx: StrategyContext): number {
    return this.o.maxTokens > 0 ? this.o.maxTokens : Math.floor(ctx.contextWindow / 2);
  }

  run(ctx: StrategyContext): void {
    if (ctx.epochStart !== this.epoch) {
      this.epoch = ctx.epochStart;
      this.start = ctx.epochStart;
      this.overlayId = undefined;
      this.adopt(ctx);
    }
    const budget = this.budget(ctx);
    const tokens = ctx.index.rangeTokens(this.start, ctx.upTo);
    const count = ctx.upTo - this.start;
    const overTokens = tokens > budget;
    const overMessages = this.o.maxMessages > 0 && count > this.o.maxMessages;
    if (!overTokens && !overMessages) return;
    const tokenTarget = budget * this.o.lowWater;
    const messageTarget = this.o.maxMessages > 0 ? Math.max(1, Math.floor(this.o.maxMessages * this.o.lowWater)) : Infinity;
    // At least the last message stays: a request needs one.
    const last = ctx.upTo - Math.max(1, this.o.minRecentKeep);
    let cut = -1;
    let remaining = tokens;
    for (let p = this.start; p <= last; p++) {
      if (p > this.start && this.validStart(ctx, p)) {
        cut = p;
        if (remaining <= tokenTarget && ctx.upTo - p <= messageTarget) break;
      }
      remaining -= ctx.messageTokens(p);
    }
    if (cut <= this.start) return;
    this.propose(ctx, cut, budget, overTokens);
  }

  /** A resumed session already has this window's note: continue from it instead of laying a second one. */
  private adopt(ctx: StrategyContext): void {
    const author = `strategy:${this.name}`;
    for (const o of ctx.session.allOverlays()) {
      if (o.kind !== 'summary' || o.author !== author || ctx.session.position(o.fromMessageId) !== ctx.epochStart) continue;
      const end = (ctx.session.position(o.toMessageId) ?? -1) + 1;
      if (end > this.start) {
        this.start = end;
        this.overlayId = o.id;
      }
    }
  }

  /** A window may start at a user prompt or at an assistant message, never inside a pin-protected range. */
  private validStart(ctx: StrategyContext, p: number): boolean {
    const m = ctx.session.messages[p];
    // Never cut through another summary (a digest of a prior turn): its text would be lost.
    const s = ctx.session.activeSummaryAt(p);
    if (s && s.id !== this.overlayId && ctx.session.position(s.fromMessageId) !== p) return false;
    if (m.role === 'assistant') {
      if (m.meta.interrupted) return false;
    } else if (m.blocks.some((b) => b.kind === 'tool_result')) {
      return false;
    }
    return true;
  }

  private propose(ctx: StrategyContext, cut: number, budget: number, overTokens: boolean): void {
    const { session } = ctx;
    // Pins win: the window stops at the first pinned block.
    for (let p = ctx.epochStart; p < cut; p++) {
      if (session.messages[p].blocks.some((b) => session.isPinned(b.id))) {
        cut = p;
        while (cut > ctx.epochStart && !this.validStart(ctx, cut)) cut--;
        break;
      }
    }
    if (cut <= ctx.epochStart || cut <= this.start) return;
    const from = session.messages[ctx.epochStart];
    const to = session.messages[cut - 1];
    const omittedTokens = ctx.index.rangeTokens(ctx.epochStart, cut);
    const what = `${cut - ctx.epochStart} earlier messages (about ${omittedTokens} tokens) omitted to stay within the ${budget}-token window`;
    const text = this.o.digest ? buildDigest(session, ctx.epochStart, cut - 1, what) : `[Trimline window: ${what}; the user can restore them.]`;
    const after = ctx.tokens.text(text).tokens;
    const id = `win_${ctx.epochStart}_${cut}_${ctx.callIndex}`;
    ctx.propose({
      position: ctx.epochStart,
      saved: ctx.index.rangeTokens(this.start, cut),
      urgent: overTokens,
      replaces: this.overlayId,
      onApplied: () => {
        this.start = cut;
        this.overlayId = id;
      },
      overlay: {
        id,
        kind: 'summary',
        fromMessageId: from.id,
        toMessageId: to.id,
        text,
        author: `strategy:${this.name}`,
        reason: `window over budget: messages ${ctx.epochStart}–${cut - 1} omitted (${omittedTokens} → ${after} tokens)`,
        callIndex: ctx.callIndex,
        tokensBefore: omittedTokens,
        tokensAfter: after,
      },
    });
  }
}
