/**
 * Incremental structure over the session log: which messages start a user turn,
 * which form tool rounds, and how many tokens each message sends under its current
 * overlays. Everything extends lazily with new messages and re-computes only the
 * messages whose revision changed, so per-call work grows with what is new.
 * Counts an accountant marked `provisional` (estimated from characters on a latency
 * path) are counted again, those messages only, once the accountant refined them.
 */
import type { Session } from '../session/session';
import type { LogMessage } from '../session/types';
import type { TokenAccountant, TokenCount } from '../tokens/types';
import { answersAction, observationIds } from './observation';

/** Tokens of the role/turn framing per message (measured order of magnitude; small next to content). */
const MESSAGE_OVERHEAD_TOKENS = 4;

export interface ToolRound {
  /** Position of the assistant message with the tool_use blocks (or, in an observation round, the action). */
  readonly assistantPos: number;
  /** Position of the user message with the results (-1 until it arrives). */
  resultPos: number;
  readonly toolUseIds: readonly string[];
  /**
   * Thought-action loops: the observation blocks (session/types.ts LogBlock.observation) of the
   * user message answering the assistant's action, the round's results; absent in tool_use rounds
   * answered with tool_result blocks. A tool_use round answered in text (Cline) has them too.
   */
  observationIds?: readonly string[];
}

/**
 * A user message that carries a prompt (text) and no tool results starts a turn. An
 * observation (the environment's answer to the agent's action) continues the agent's loop, and
 * so does a client's text-form tool output (Cline, Roo: session/client-text.ts), even with the
 * user's feedback beside it: the request still continues the loop of the response it answers.
 */
export function isPrompt(m: LogMessage): boolean {
  if (m.role !== 'user') return false;
  if (m.meta.compactBoundary) return true;
  if (answersAction(m)) return false;
  let text = false;
  for (const b of m.blocks) {
    if (b.kind === 'tool_result') return false;
    if (b.kind === 'text' || b.kind === 'image' || b.kind === 'document') text = true;
  }
  return text && !m.meta.unansweredToolUses;
}

/** Fenwick tree over message token counts: O(log n) point update and prefix sum. */
class Fenwick {
  private tree: number[] = [0];
  get size(): number {
    return this.tree.length - 1;
  }
  push(v: number): void {
    const i = this.tree.length;
    this.tree.push(0);
    // Node i covers (i - lowbit(i), i]: seed it with the sum of that range.
    const lo = i - (i & -i);
    this.tree[i] = this.prefix(i - 1) - this.prefix(lo) + v;
  }
  add(pos: number, delta: number): void {
    for (let i = pos + 1; i < this.tree.length; i += i & -i) this.tree[i] += delta;
  }
  /** Sum of positions [0, n). */
  prefix(n: number): number {
    let s = 0;
    for (let i = Math.min(n, this.size); i > 0; i -= i & -i) s += this.tree[i];
    return s;
  }
}

export class MessageIndex {
  readonly prompts: number[] = [];
  readonly rounds: ToolRound[] = [];
  private readonly roundByToolUse = new Map<string, ToolRound>();
  private readonly tokens = new Fenwick();
  private readonly counted: number[] = [];
  private readonly countedRev: number[] = [];
  private readonly dirty = new Set<number>();
  /** Each message's tokens without any overlay (the log never changes; only refinement updates them). */
  private readonly original = new Fenwick();
  private readonly originalCounted: number[] = [];
  /** Messages whose counts (original or current) include provisional estimates. */
  private readonly provisional = new Set<number>();
  private refinementsSeen = 0;
  private seen = 0;

  constructor(
    private readonly session: Session,
    private readonly accountant: TokenAccountant,
  ) {
    session.on((e) => {
      if (e.type !== 'overlay-added' && e.type !== 'overlay-removed') return;
      const o = e.overlay;
      if (o.kind === 'summary') {
        const a = session.position(o.fromMessageId) ?? 0;
        const b = session.position(o.toMessageId) ?? -1;
        for (let p = a; p <= b; p++) this.dirty.add(p);
      } else if (o.kind === 'prune' && !o.blockId) {
        this.markDirty(session.position(o.messageId));
      } else if (o.blockId) {
        const m = session.messageOf(o.blockId);
        this.markDirty(m ? session.position(m.id) : undefined);
        // A pin protects its tool-pair partner and may re-activate or deactivate summaries.
        if (o.kind === 'pin' && m) {
          const partner = session.partnerBlockId(o.blockId);
          const pm = partner ? session.messageOf(partner) : undefined;
          if (pm) this.markDirty(session.position(pm.id));
          for (const s of session.allOverlays())
            if (s.kind === 'summary') this.markSummary(s.fromMessageId, s.toMessageId);
        }
      }
    });
  }

  private markDirty(pos: number | undefined): void {
    if (pos !== undefined && pos < this.seen) this.dirty.add(pos);
  }
  private markSummary(from: string, to: string): void {
    const a = this.session.position(from) ?? 0;
    const b = this.session.position(to) ?? -1;
    for (let p = a; p <= b; p++) this.markDirty(p);
  }

  /** Take in messages appended since the last call. */
  update(): void {
    this.takeRefinements();
    const msgs = this.session.messages;
    for (let pos = this.seen; pos < msgs.length; pos++) {
      const m = msgs[pos];
      if (isPrompt(m)) this.prompts.push(pos);
      let uses: string[] | undefined;
      for (const b of m.blocks) if (b.kind === 'tool_use' && b.toolUseId) (uses ??= []).push(b.toolUseId);
      if (m.role === 'assistant' && uses) {
        const r: ToolRound = { assistantPos: pos, resultPos: -1, toolUseIds: uses };
        this.rounds.push(r);
        for (const id of uses) this.roundByToolUse.set(id, r);
      }
      for (const b of m.blocks) {
        if (b.kind !== 'tool_result' || !b.toolUseId) continue;
        const r = this.roundByToolUse.get(b.toolUseId);
        if (r && r.resultPos < 0) r.resultPos = pos;
      }
      // Thought-action loops: an observation answering the assistant message right before it is that action's round.
      const observed = observationIds(m);
      if (observed.length && pos > 0 && msgs[pos - 1].role === 'assistant') {
        const open = this.rounds.at(-1);
        if (open?.assistantPos !== pos - 1)
          this.rounds.push({ assistantPos: pos - 1, resultPos: pos, toolUseIds: [], observationIds: observed });
        else if (open.resultPos < 0) {
          // Native tool calls answered in text (Cline): the text is the round's result.
          open.resultPos = pos;
          open.observationIds = observed;
        }
      }
      const original = this.computeOriginal(pos);
      this.originalCounted.push(original);
      this.original.push(original);
      // Every overlay bumps the revision of what it covers: at revision 0 the message is sent
      // as logged, so its count is the original's (no resolve; a cold build meets thousands).
      const t = this.session.revision(m.id) === 0 ? original : this.compute(pos);
      this.counted.push(t);
      this.countedRev.push(this.session.revision(m.id));
      this.tokens.push(t);
    }
    this.seen = msgs.length;
    for (const pos of this.dirty) this.recount(pos);
    this.dirty.clear();
  }

  roundOf(toolUseId: string): ToolRound | undefined {
    return this.roundByToolUse.get(toolUseId);
  }

  private recount(pos: number): void {
    const rev = this.session.revision(this.session.messages[pos].id);
    if (this.countedRev[pos] === rev) return;
    const t = this.compute(pos);
    this.tokens.add(pos, t - this.counted[pos]);
    this.counted[pos] = t;
    this.countedRev[pos] = rev;
  }

  /** Estimates were made exact since the last look: count their messages again (those only). */
  private takeRefinements(): void {
    const now = this.accountant.refinements?.() ?? 0;
    if (now === this.refinementsSeen) return;
    this.refinementsSeen = now;
    const stale = [...this.provisional];
    this.provisional.clear();
    for (const pos of stale) {
      const original = this.computeOriginal(pos);
      this.original.add(pos, original - this.originalCounted[pos]);
      this.originalCounted[pos] = original;
      const t = this.compute(pos);
      this.tokens.add(pos, t - this.counted[pos]);
      this.counted[pos] = t;
      this.countedRev[pos] = this.session.revision(this.session.messages[pos].id);
    }
  }

  private note(pos: number, c: TokenCount): number {
    if (c.provisional) this.provisional.add(pos);
    return c.tokens;
  }

  private computeOriginal(pos: number): number {
    const m = this.session.messages[pos];
    let t = 0;
    for (const b of m.blocks) t += this.note(pos, this.accountant.block(b.param));
    return t + (m.blocks.length ? MESSAGE_OVERHEAD_TOKENS : 0);
  }

  private compute(pos: number): number {
    const r = this.session.resolveMessage(pos);
    let t = 0;
    let any = false;
    if (r.summaryStart) {
      t += this.note(pos, this.accountant.text(r.summaryStart.text));
      any = true;
    }
    for (const b of r.blocks) {
      if (!b.sent) continue;
      t += this.note(pos, this.accountant.block(b.sent));
      any = true;
    }
    return any ? t + MESSAGE_OVERHEAD_TOKENS : 0;
  }

  /** Messages whose counts are still (partly) estimated from characters. */
  get provisionalMessages(): number {
    return this.provisional.size;
  }

  /** Tokens message `pos` sends under its current overlays. */
  messageTokens(pos: number): number {
    if (this.dirty.has(pos)) this.update();
    return this.counted[pos] ?? 0;
  }

  /** Tokens of messages [from, to) without any trimming. */
  originalTokens(from: number, to: number): number {
    return this.original.prefix(Math.min(to, this.seen)) - this.original.prefix(Math.min(from, this.seen));
  }

  /** Tokens of messages [from, to) as currently sent. */
  rangeTokens(from: number, to: number): number {
    if (this.dirty.size) this.update();
    return this.tokens.prefix(to) - this.tokens.prefix(from);
  }
}
