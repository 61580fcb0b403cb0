/**
 * tool-pruning: every prior user turn keeps only its prompt and its final assistant
 * answer (text); the tool calls, results and thinking in between are hidden. The
 * current turn stays complete, so a single-turn session is unchanged. Messages with
 * a pinned block keep their whole tool round (pins win, and pairs are never split).
 * The user's own words inside a turn (reminders and hook output beside tool results, an
 * interruption) stay verbatim: only the tool results of such a message are pruned.
 * Incremental: each turn is pruned once, when the next prompt arrives.
 */
import { digestNote, DIGEST_DEFAULTS } from './digest';
import { extractRefs } from './refs';
import { keepsPriorThinking } from '../models';
import type { ContentBlockParam } from '../session/types';
import type { ToolRound } from './message-index';
import type { Strategy, StrategyContext, StrategyDoc, Trigger } from './types';

export interface ToolPruningOptions {
  /**
   * Replace each prior turn's intermediate steps by one digest note (the user's words and
   * the reference ids its tool results mentioned) instead of hiding them without a trace.
   */
  digest: boolean;
  /** Most reference ids a digest lists (the most mentioned, then the most recent). */
  digestRefs: number;
  /** Drop the thinking of earlier turns' final answers on models that bill it on every later call. */
  dropEarlierThinking: boolean;
  trigger: Trigger;
}

export const TOOL_PRUNING_DEFAULTS: ToolPruningOptions = {
  digest: false,
  digestRefs: DIGEST_DEFAULTS.maxRefs,
  dropEarlierThinking: false,
  trigger: { kind: 'always' },
};

export const TOOL_PRUNING_DOC: StrategyDoc = {
  name: 'tool-pruning',
  summary: 'Prior user turns keep only the prompt and the final answer; the current turn keeps everything.',
  options: [
    {
      name: 'digest',
      type: 'boolean',
      default: false,
      description: 'leave a note with the reference ids of the hidden steps',
    },
    {
      name: 'digestRefs',
      type: 'number',
      default: DIGEST_DEFAULTS.maxRefs,
      description: 'most reference ids a note lists (the most mentioned, then the most recent)',
    },
    {
      name: 'dropEarlierThinking',
      type: 'boolean',
      default: false,
      description: "drop earlier final answers' thinking on models that bill it (Opus 4.5 and later)",
    },
  ],
};

/** The text blocks of a message, joined. */
function textOf(blocks: readonly { readonly param: ContentBlockParam }[]): string {
  return blocks.map((b) => (b.param.type === 'text' ? b.param.text : '')).join('\n');
}

export class ToolPruning implements Strategy {
  readonly name = 'tool-pruning';
  readonly trigger: Trigger;
  readonly prunesClosedTurns = true;
  /** Index into ctx.index.prompts of the next turn to prune. */
  private nextTurn = 0;
  /**
   * Refs an earlier digest of this strategy lists: a later digest leaves them out. Safe either
   * way: the earlier digest is in the view, or (not applied, restored) the messages it stands for are.
   */
  private readonly listed = new Set<string>();
  /** Refs the kept text of pruned turns shows (their prompts and final answers stay in the view): not listed again. */
  private readonly visible = new Set<string>();

  constructor(private readonly o: ToolPruningOptions = TOOL_PRUNING_DEFAULTS) {
    this.trigger = o.trigger;
  }

  run(ctx: StrategyContext): void {
    const prompts = ctx.index.prompts;
    // Turns that are complete: their successor prompt is inside this request.
    for (; this.nextTurn + 1 < prompts.length && prompts[this.nextTurn + 1] < ctx.upTo; this.nextTurn++) {
      const start = prompts[this.nextTurn];
      const end = prompts[this.nextTurn + 1];
      if (start >= ctx.epochStart) this.pruneTurn(ctx, start, end);
    }
  }

  private pruneTurn(ctx: StrategyContext, start: number, end: number): void {
    const { session } = ctx;
    let final = -1;
    for (let p = end - 1; p > start; p--)
      if (session.messages[p].role === 'assistant') {
        final = p;
        break;
      }
    const keep = this.protectedPositions(ctx, start, end);
    if (final > 0 && this.o.dropEarlierThinking) this.dropEarlierThinking(ctx, start - 1);
    const last = final > 0 ? final - 1 : end - 1;
    if (this.o.digest && keep.size === 0 && last > start && !session.userText.inRange(start + 1, last)) {
      this.digestRange(ctx, start + 1, last, final > 0 ? textOf(session.messages[final].blocks) : '');
      if (final > 0) this.pruneFinalExtras(ctx, final);
      return;
    }
    for (let p = start + 1; p < end; p++) {
      if (keep.has(p)) continue;
      const m = session.messages[p];
      const tokens = ctx.messageTokens(p);
      if (p === final) {
        // The final answer keeps its text (and thinking, see pruneFinalExtras); its tool calls go.
        const hasText = m.blocks.some((b) => b.kind === 'text');
        for (const b of m.blocks) {
          if (b.kind !== 'tool_use' || !hasText) continue;
          if (ctx.isPending(b.id) || session.overlaysOnBlock(b.id).length) continue;
          const t = ctx.tokens.block(b.param).tokens;
          this.prune(ctx, m.id, p, t, `tool call of a prior turn's final answer`, b.id);
        }
        continue;
      }
      if (ctx.isPending(m.id) || tokens === 0) continue;
      const why = `intermediate step of the prior turn that began at message ${start}`;
      if (m.role === 'user' && m.blocks.some((b) => session.userText.reasonOf(b.id))) {
        // The user's words stay; the tool results beside them go.
        for (const b of m.blocks) {
          // A result another strategy trimmed (or is about to) goes too, as its call goes: only the user's words stay.
          if (session.userText.reasonOf(b.id) || session.overlaysOnBlock(b.id).some((o) => o.kind === 'prune'))
            continue;
          this.prune(ctx, m.id, p, ctx.tokens.block(b.param).tokens, why, b.id);
        }
        continue;
      }
      this.prune(ctx, m.id, p, tokens, why);
    }
  }

  /**
   * The final answer keeps its text; its tool calls go. Its thinking stays: when the next
   * prompt arrives the final answer is still the latest assistant message, which the API
   * requires verbatim, so pruning its thinking would only change the block one call later
   * and break the cache for a few tokens (Sonnet 4.5 does not even bill earlier turns' thinking).
   */
  private pruneFinalExtras(ctx: StrategyContext, final: number): void {
    const m = ctx.session.messages[final];
    if (!m.blocks.some((b) => b.kind === 'text')) return;
    for (const b of m.blocks) {
      if (b.kind !== 'tool_use' || ctx.isPending(b.id) || ctx.session.overlaysOnBlock(b.id).length) continue;
      this.prune(ctx, m.id, final, ctx.tokens.block(b.param).tokens, `tool call of a prior turn's final answer`, b.id);
    }
  }

  /**
   * The thinking of the final answer before this turn's prompt, on models that keep earlier turns' thinking (and bill
   * it on every later call): once this turn has an answer of its own, that final answer is no longer the latest
   * assistant message, which is the only one the API wants verbatim. Dropped with this turn's pruning, so the rewrite
   * starts only just before the edits this turn makes anyway.
   */
  private dropEarlierThinking(ctx: StrategyContext, pos: number): void {
    const { session } = ctx;
    const m = pos >= ctx.epochStart ? session.messages[pos] : undefined;
    if (!m || m.role !== 'assistant' || !keepsPriorThinking(session.calls.at(-1)?.model ?? session.model)) return;
    for (const b of m.blocks) {
      if (b.kind !== 'thinking' && b.kind !== 'redacted_thinking') continue;
      if (ctx.isPending(b.id) || session.overlaysOnBlock(b.id).length || session.isPinned(b.id)) continue;
      if (session.isUserRestored(b.id)) continue;
      const why = `thinking of a prior turn's final answer (this model bills earlier turns' thinking on every call)`;
      this.prune(ctx, m.id, pos, ctx.tokens.block(b.param).tokens, why, b.id);
    }
  }

  /** `kept`: the text the turn keeps after the range (its final answer): refs it shows are not listed again. */
  private digestRange(ctx: StrategyContext, from: number, to: number, kept: string): void {
    const { session } = ctx;
    const key = `${session.messages[from].id}`;
    if (ctx.isPending(key)) return;
    // Already digested (e.g. a resumed session whose strategies start afresh): nothing to do.
    if (session.activeSummaryAt(from)) return;
    const before = ctx.index.rangeTokens(from, to + 1);
    if (before === 0) return;
    // The turn's prompt and final answer stay, as do those of the turns pruned before: what they show is not listed.
    const prompt = textOf(session.messages[from - 1].blocks);
    for (const text of [prompt, kept]) for (const r of extractRefs(text)) this.visible.add(r);
    const shown = (ref: string): boolean => this.listed.has(ref) || this.visible.has(ref) || kept.includes(ref);
    const { text, refs } = digestNote(
      session,
      from,
      to,
      `${to - from + 1} intermediate messages of a prior turn omitted`,
      { ...DIGEST_DEFAULTS, maxRefs: this.o.digestRefs },
      shown,
    );
    for (const r of refs) this.listed.add(r);
    const after = ctx.tokens.text(text).tokens;
    if (after >= before) return;
    ctx.propose({
      position: from,
      saved: before - after,
      overlay: {
        kind: 'summary',
        fromMessageId: session.messages[from].id,
        toMessageId: session.messages[to].id,
        text,
        author: `strategy:${this.name}`,
        reason:
          `intermediate steps of the prior turn that began at message ${from - 1}: ` +
          `replaced by a digest (${before} → ${after} tokens)`,
        callIndex: ctx.callIndex,
        tokensBefore: before,
        tokensAfter: after,
      },
    });
  }

  /** Rounds with a pinned or user-restored block stay whole. */
  private protectedPositions(ctx: StrategyContext, start: number, end: number): Set<number> {
    const keep = new Set<number>();
    const { session } = ctx;
    for (let p = start + 1; p < end; p++) {
      const m = session.messages[p];
      if (!m.blocks.some((b) => session.isPinned(b.id) || session.isUserRestored(b.id))) continue;
      keep.add(p);
      for (const b of m.blocks) {
        const r: ToolRound | undefined = b.toolUseId ? ctx.index.roundOf(b.toolUseId) : undefined;
        if (r) {
          keep.add(r.assistantPos);
          if (r.resultPos >= 0) keep.add(r.resultPos);
        }
      }
    }
    return keep;
  }

  private prune(
    ctx: StrategyContext,
    messageId: string,
    pos: number,
    tokens: number,
    why: string,
    blockId?: string,
  ): void {
    ctx.propose({
      position: pos,
      saved: tokens,
      overlay: {
        kind: 'prune',
        messageId,
        blockId,
        author: `strategy:${this.name}`,
        reason: why,
        callIndex: ctx.callIndex,
        tokensBefore: tokens,
        tokensAfter: 0,
      },
    });
  }
}
