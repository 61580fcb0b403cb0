/**
 * atomic-window: a token- and/or message-budget sliding window over the conversation, a
 * safety net against the context limit, not a cost lever (cost is the other strategies'
 * and the cache-aware applier's business).
 *
 * - Budget: by default a share of the model's real context window (models/ catalog),
 *   {@link WINDOW_SHARE_OF_CONTEXT}, so it acts a little before a client like Claude
 *   Code would compact (≈ 83% of the window, system and tools included).
 * - Removes whole tool rounds, oldest first: an assistant message goes whole, and with it
 *   the tool results that answer it; a cut only ever starts at a user prompt or an
 *   assistant message, so no kept tool_result loses its tool_use and no kept tool_use its
 *   results.
 * - Never removes the user's own words: every text block of a user message, and the first
 *   user message whole, stay verbatim (session/user-text.ts). Never drops the system prompt
 *   (not part of the log).
 * - Keeps at least `minRecentKeep` messages. The budget is soft where no valid cut exists
 *   (one huge turn, a pinned pair, minRecentKeep): the window keeps more rather than break
 *   a pair.
 * - Cache-friendly hysteresis: when over budget it cuts down to `lowWater` × budget, so the
 *   cached prefix is rebuilt once per big move, not on every call.
 * - Every removal is a prune overlay, restorable one by one.
 */
import { mayChangeUserText } from '../session/user-text';
import type { Strategy, StrategyContext, StrategyDoc, Trigger } from './types';
import { answersAction } from './observation';

/** Default budget: this share of the model's context window for the messages (system and tools come on top). */
export const WINDOW_SHARE_OF_CONTEXT = 0.75;

export interface WindowOptions {
  /** Token budget for the messages (0 = {@link WINDOW_SHARE_OF_CONTEXT} of the model's context window). */
  maxTokens: number;
  /** Message budget (0 = none). */
  maxMessages: number;
  minRecentKeep: number;
  /** After a move, the window holds at most this share of the budget. */
  lowWater: number;
  /**
   * Kept for configuration compatibility: the window lays no note any more (its prunes are listed in the inspector).
   */
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
  summary:
    'Safety net near the context limit: removes the oldest whole tool rounds; ' +
    "never splits a tool_use from its tool_result, never drops the system prompt or the user's words.",
  options: [
    {
      name: 'maxTokens',
      type: 'number',
      default: 0,
      description: "token budget for messages (0 = 75% of the model's context window)",
    },
    { name: 'maxMessages', type: 'number', default: 0, description: 'message budget (0 = none)' },
    { name: 'minRecentKeep', type: 'number', default: 4, description: 'messages always kept' },
    {
      name: 'lowWater',
      type: 'number',
      default: 0.6,
      description: 'share of the budget kept after a move (hysteresis for the cache)',
    },
    {
      name: 'digest',
      type: 'boolean',
      default: false,
      description: 'accepted for compatibility; the window lays no note (its prunes are listed one by one)',
    },
  ],
};

export class AtomicWindow implements Strategy {
  readonly trigger: Trigger;
  /** First position not yet cut (log position) in the current epoch. */
  private start = 0;
  private epoch = -1;

  constructor(
    private readonly o: WindowOptions = WINDOW_DEFAULTS,
    readonly name = 'atomic-window',
  ) {
    this.trigger = o.trigger;
  }

  private budget(ctx: StrategyContext): number {
    return this.o.maxTokens > 0 ? this.o.maxTokens : Math.floor(ctx.contextWindow * WINDOW_SHARE_OF_CONTEXT);
  }

  run(ctx: StrategyContext): void {
    if (ctx.epochStart !== this.epoch) {
      this.epoch = ctx.epochStart;
      this.start = ctx.epochStart;
      this.adopt(ctx);
    }
    const budget = this.budget(ctx);
    const tokens = ctx.viewTokens();
    const count = ctx.upTo - this.start;
    const overTokens = tokens > budget;
    const overMessages = this.o.maxMessages > 0 && count > this.o.maxMessages;
    if (!overTokens && !overMessages) return;
    const tokenTarget = budget * this.o.lowWater;
    const messageTarget =
      this.o.maxMessages > 0 ? Math.max(1, Math.floor(this.o.maxMessages * this.o.lowWater)) : Infinity;
    // At least the last message stays: a request needs one.
    const last = ctx.upTo - Math.max(1, this.o.minRecentKeep);
    let cut = -1;
    let remaining = tokens;
    for (let p = this.start; p <= last; p++) {
      if (p > this.start && this.validStart(ctx, p)) {
        cut = p;
        if (remaining <= tokenTarget && ctx.upTo - p <= messageTarget) break;
      }
      remaining -= this.removable(ctx, p).tokens;
    }
    if (cut <= this.start) return;
    this.propose(ctx, cut, budget, overTokens);
  }

  /** A resumed session already has this window's prunes: continue after them. */
  private adopt(ctx: StrategyContext): void {
    const author = `strategy:${this.name}`;
    for (const o of ctx.session.allOverlays()) {
      if (o.kind !== 'prune' || o.author !== author) continue;
      const p = ctx.session.position(o.messageId) ?? -1;
      if (p >= this.start) this.start = p + 1;
    }
    while (this.start > ctx.epochStart && this.start < ctx.session.messages.length && !this.validStart(ctx, this.start))
      this.start++;
  }

  /** A window may start at a user prompt or at an assistant message, never inside a pin-protected range. */
  private validStart(ctx: StrategyContext, p: number): boolean {
    const m = ctx.session.messages[p];
    // Never cut through another summary (a digest of a prior turn): its text would be lost.
    const s = ctx.session.activeSummaryAt(p);
    if (s && ctx.session.position(s.fromMessageId) !== p) return false;
    if (m.role === 'assistant') {
      if (m.meta.interrupted) return false;
      // The request must open with a user message: without the kept first user message
      // (an anchor that may drop user text), the window may only start at a prompt.
      if (mayChangeUserText(`strategy:${this.name}`)) return false;
    } else if (answersAction(m) || m.blocks.some((b) => b.kind === 'tool_result')) {
      // A result (or an observation) answers the message before it: the window never starts between them.
      return false;
    }
    return true;
  }

  /**
   * What removing message `p` takes out: an assistant message whole; of a user message, all but the user's own words.
   */
  private removable(ctx: StrategyContext, p: number): { tokens: number; blocks?: string[] } {
    const { session } = ctx;
    const m = session.messages[p];
    if (m.role === 'assistant') return { tokens: ctx.messageTokens(p) };
    const keepsUserText = !mayChangeUserText(`strategy:${this.name}`);
    const blocks = m.blocks.filter((b) => !keepsUserText || !session.userText.reasonOf(b.id)).map((b) => b.id);
    if (blocks.length === m.blocks.length) return { tokens: ctx.messageTokens(p) };
    let tokens = 0;
    for (const id of blocks)
      if (!session.overlaysOnBlock(id).some((o) => o.kind === 'prune'))
        tokens += ctx.tokens.block(session.block(id)!.param).tokens;
    return { tokens, blocks };
  }

  private propose(ctx: StrategyContext, cut: number, budget: number, overTokens: boolean): void {
    const { session } = ctx;
    // Pins win: the window stops at the first pinned block.
    for (let p = this.start; p < cut; p++) {
      if (session.messages[p].blocks.some((b) => session.isPinned(b.id))) {
        cut = p;
        while (cut > this.start && !this.validStart(ctx, cut)) cut--;
        break;
      }
    }
    if (cut <= this.start) return;
    const from = this.start;
    const author = `strategy:${this.name}` as const;
    const why =
      `window over its ${budget}-token budget: messages ${from}–${cut - 1} removed as whole tool rounds ` +
      "(the user's words stay)";
    const end = cut;
    const done = (): void => {
      this.start = Math.max(this.start, end);
    };
    for (let p = from; p < cut; p++) {
      const m = session.messages[p];
      const r = this.removable(ctx, p);
      if (r.tokens === 0) continue;
      if (!r.blocks) {
        if (ctx.isPending(m.id)) continue;
        ctx.propose({
          position: p,
          saved: r.tokens,
          urgent: overTokens,
          onApplied: done,
          overlay: {
            kind: 'prune',
            messageId: m.id,
            author,
            reason: why,
            callIndex: ctx.callIndex,
            tokensBefore: r.tokens,
            tokensAfter: 0,
          },
        });
        continue;
      }
      for (const id of r.blocks) {
        if (session.overlaysOnBlock(id).some((o) => o.kind === 'prune')) continue;
        const t = ctx.tokens.block(session.block(id)!.param).tokens;
        ctx.propose({
          position: p,
          saved: t,
          urgent: overTokens,
          onApplied: done,
          overlay: {
            kind: 'prune',
            messageId: m.id,
            blockId: id,
            author,
            reason: why,
            callIndex: ctx.callIndex,
            tokensBefore: t,
            tokensAfter: 0,
          },
        });
      }
    }
    if (!overTokens) return;
    // Urgent proposals are applied this call: the window moves now.
    done();
  }
}
