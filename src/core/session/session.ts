/**
 * Session = append-only log (session-log.ts) + overlays. The log is never edited; overlays
 * are typed records that can be added and removed. `resolveMessage` gives what the model
 * sees of one message; per-message revisions let renderers cache their output so per-turn
 * work grows with what changed, not with the history.
 */
import { newId } from './ids';
import type { ResolvedBlock, ResolvedMessage } from './resolved';
import { SessionLog } from './session-log';
import { applyTrim } from './trim';
import { mayChangeUserText } from './user-text';

export { applyTrim } from './trim';
export { newId } from './ids';
export type { BlockState, ResolvedBlock, ResolvedMessage } from './resolved';
export { SessionLog, type SessionEvent, type SessionInit } from './session-log';
import {
  authorRank,
  isStrategyAuthor,
  type Author,
  type NewOverlay,
  type Overlay,
  type PinOverlay,
  type SummaryOverlay,
} from './overlay';
import type { LogBlock } from './types';

export class Session extends SessionLog {
  private readonly overlays = new Map<string, Overlay>();
  private readonly byBlock = new Map<string, Set<string>>();
  private readonly messagePrunes = new Map<string, Set<string>>();
  private summaries: SummaryOverlay[] = [];
  /** The last view computed of each message (see resolveMessage). */
  private readonly resolved = new Map<string, ResolvedMessage>();
  /** Blocks the user restored: strategies leave them alone from then on. */
  private readonly userRestored = new Set<string>();
  /** Pin overlays by id: summaries check pins in their range in O(pins), not O(overlays). */
  private readonly pins = new Map<string, PinOverlay>();

  isUserRestored(blockId: string): boolean {
    return this.userRestored.has(blockId);
  }
  allOverlays(): Overlay[] {
    return [...this.overlays.values()];
  }
  /** How many overlays there are (no copy of them). */
  get overlayCount(): number {
    return this.overlays.size;
  }
  overlay(id: string): Overlay | undefined {
    return this.overlays.get(id);
  }
  overlaysOnBlock(blockId: string): Overlay[] {
    const ids = this.byBlock.get(blockId);
    const out: Overlay[] = ids ? [...ids].map((i) => this.overlays.get(i)!).filter(Boolean) : [];
    const b = this.blocks.get(blockId);
    if (b) {
      for (const i of this.messagePrunes.get(b.messageId) ?? []) out.push(this.overlays.get(i)!);
      const pos = this.positions.get(b.messageId)!;
      for (const s of this.summaries) if (this.inRange(s, pos)) out.push(s);
    }
    return out;
  }

  private ownPin(blockId: string): Overlay | undefined {
    for (const i of this.byBlock.get(blockId) ?? []) {
      const o = this.overlays.get(i);
      if (o?.kind === 'pin') return o;
    }
    return undefined;
  }

  /** The pin protecting a block: its own, or its tool-pair partner's (a pair is never split). */
  pinOf(blockId: string): Overlay | undefined {
    const own = this.ownPin(blockId);
    if (own) return own;
    const partner = this.partnerBlockId(blockId);
    return partner ? this.ownPin(partner) : undefined;
  }

  /** Whether a pin protects the block (pinned itself, or the other half of its tool pair is). */
  isPinned(blockId: string): boolean {
    return this.pinOf(blockId) !== undefined;
  }

  private range(s: SummaryOverlay): [number, number] {
    return [this.positions.get(s.fromMessageId) ?? -1, this.positions.get(s.toMessageId) ?? -2];
  }
  private inRange(s: SummaryOverlay, pos: number): boolean {
    const [a, b] = this.range(s);
    return pos >= a && pos <= b;
  }

  /** Add an overlay. A user trim on a pinned block removes the pin (explicit intent wins). */
  addOverlay(input: NewOverlay): Overlay {
    const o = { ...input, id: input.id ?? newId('ov') } as Overlay;
    if (this.overlays.has(o.id)) return this.overlays.get(o.id)!;
    if (o.kind === 'summary') {
      const [a, b] = this.range(o);
      if (a < 0 || b < a) throw new Error(`summary overlay ${o.id}: unknown or reversed message range`);
    } else if (o.kind === 'prune' && !o.blockId) {
      if (!this.positions.has(o.messageId)) throw new Error(`prune overlay ${o.id}: unknown message ${o.messageId}`);
    } else if (!this.blocks.has(o.blockId!)) {
      throw new Error(`${o.kind} overlay ${o.id}: unknown block ${o.blockId}`);
    }
    if ((o.kind === 'trim' || o.kind === 'prune') && o.blockId && o.author !== 'user' && this.isPinned(o.blockId)) {
      throw new Error(`${o.kind} overlay ${o.id}: block ${o.blockId} is pinned by the user`);
    }
    if (o.kind === 'trim' && o.author === 'user') {
      for (const p of this.overlaysOnBlock(o.blockId)) if (p.kind === 'pin') this.removeOverlay(p.id, 'user');
    }
    if (o.kind === 'pin' && o.author === 'user') {
      // Pinning means "send this verbatim": the user's own earlier trim of it goes.
      for (const t of this.overlaysOnBlock(o.blockId))
        if (t.kind === 'trim' && t.author === 'user') this.removeOverlay(t.id, 'user');
    }
    if ((o.kind === 'trim' || o.kind === 'pin') && o.author === 'user') this.userRestored.delete(o.blockId);
    this.overlays.set(o.id, o);
    if (o.kind === 'pin') this.pins.set(o.id, o);
    if (o.kind === 'summary') {
      this.summaries.push(o);
      this.summaries.sort((x, y) => this.range(x)[0] - this.range(y)[0]);
      const [a, b] = this.range(o);
      for (let p = a; p <= b; p++) this.bump(this.messages[p].id);
    } else if (o.kind === 'prune' && !o.blockId) {
      let set = this.messagePrunes.get(o.messageId);
      if (!set) this.messagePrunes.set(o.messageId, (set = new Set()));
      set.add(o.id);
      this.bump(o.messageId);
    } else {
      const bid = o.blockId!;
      let set = this.byBlock.get(bid);
      if (!set) this.byBlock.set(bid, (set = new Set()));
      set.add(o.id);
      this.bump(this.blocks.get(bid)!.messageId);
      // A pin protects the pair and changes which summaries are active: re-render them.
      if (o.kind === 'pin') this.pinChanged(bid);
    }
    this.emit({ type: 'overlay-added', overlay: o });
    return o;
  }

  private pinChanged(blockId: string): void {
    this.bumpSummariesCovering(this.blocks.get(blockId)!.messageId);
    const partner = this.partnerBlockId(blockId);
    if (!partner) return;
    const mid = this.blocks.get(partner)!.messageId;
    this.bump(mid);
    this.bumpSummariesCovering(mid);
  }

  private bumpSummariesCovering(messageId: string): void {
    const pos = this.positions.get(messageId)!;
    for (const s of this.summaries) {
      if (!this.inRange(s, pos)) continue;
      const [a, b] = this.range(s);
      for (let p = a; p <= b; p++) this.bump(this.messages[p].id);
    }
  }

  /** Remove one overlay; the covered content is back to its original bytes. */
  removeOverlay(id: string, by: Author = 'user'): Overlay | undefined {
    const o = this.overlays.get(id);
    if (!o) return undefined;
    this.overlays.delete(id);
    if (o.kind === 'pin') this.pins.delete(o.id);
    if (o.kind === 'summary') {
      this.summaries = this.summaries.filter((s) => s.id !== id);
      const [a, b] = this.range(o);
      for (let p = a; p <= b; p++) this.bump(this.messages[p].id);
    } else if (o.kind === 'prune' && !o.blockId) {
      this.messagePrunes.get(o.messageId)?.delete(id);
      this.bump(o.messageId);
    } else {
      this.byBlock.get(o.blockId!)?.delete(id);
      const mid = this.blocks.get(o.blockId!)!.messageId;
      this.bump(mid);
      if (o.kind === 'pin') this.pinChanged(o.blockId!);
    }
    this.emit({ type: 'overlay-removed', overlay: o, by });
    return o;
  }

  /**
   * Restore a block: remove every trim, prune and summary covering it (pins stay).
   * When the user restores, strategies stop touching the block.
   */
  restore(blockId: string, by: Author = 'user'): Overlay[] {
    const removed: Overlay[] = [];
    for (const o of this.overlaysOnBlock(blockId)) {
      if (o.kind === 'pin') continue;
      if (this.removeOverlay(o.id, by)) removed.push(o);
    }
    if (by === 'user') this.userRestored.add(blockId);
    return removed;
  }

  /** Whether a pinned block lies in the summary's range: O(number of pins), not O(range). */
  private pinInRange(s: SummaryOverlay): boolean {
    if (!this.pins.size) return false;
    const [a, b] = this.range(s);
    for (const o of this.pins.values()) {
      for (const id of [o.blockId, this.partnerBlockId(o.blockId)]) {
        if (!id) continue;
        const p = this.positions.get(this.blocks.get(id)!.messageId)!;
        if (p >= a && p <= b) return true;
      }
    }
    return false;
  }

  /** The active summary covering a position, if any (a summary over a pinned block is inactive: pins win). */
  activeSummaryAt(pos: number): SummaryOverlay | undefined {
    for (const s of this.summaries) {
      if (!this.inRange(s, pos)) continue;
      if ((isStrategyAuthor(s.author) || s.author === 'agent') && this.pinInRange(s)) continue;
      // The user's words win like pins: an automatic summary over them is not applied.
      if (!mayChangeUserText(s.author) && this.userText.inRange(...this.range(s))) continue;
      return s;
    }
    return undefined;
  }

  /**
   * What the model sees of the message at `pos`. `withoutStrategies`: as if no strategy had
   * touched it (user and agent overlays still apply); always so for the assistant message the
   * log's tool loop continues (see updateLoopHead). Every change to a view bumps the message's
   * revision, so the default view at a revision is computed once, whoever asks.
   */
  resolveMessage(pos: number, withoutStrategies?: boolean): ResolvedMessage {
    if (withoutStrategies !== undefined) return this.resolveAt(pos, withoutStrategies);
    const hit = this.resolved.get(this.messages[pos].id);
    if (hit && hit.position === pos && hit.revision === this.revision(hit.message.id)) return hit;
    const r = this.resolveAt(pos, pos === this.loopHead);
    this.resolved.set(r.message.id, r);
    return r;
  }

  private resolveAt(pos: number, withoutStrategies: boolean): ResolvedMessage {
    const message = this.messages[pos];
    const active = this.activeSummaryAt(pos);
    const summary = withoutStrategies && active && isStrategyAuthor(active.author) ? undefined : active;
    const summaryStart = summary && this.range(summary)[0] === pos ? summary : undefined;
    const kept = (o: Overlay): boolean => !withoutStrategies || !isStrategyAuthor(o.author);
    const prunes = [...(this.messagePrunes.get(message.id) ?? [])].map((i) => this.overlays.get(i)!).filter(kept);
    const blocks = message.blocks.map((block) => this.resolveBlock(block, summary, prunes, kept));
    return { message, position: pos, revision: this.revision(message.id), blocks, summaryStart };
  }

  private resolveBlock(
    block: LogBlock,
    summary: SummaryOverlay | undefined,
    messagePrunes: Overlay[],
    kept: (o: Overlay) => boolean,
  ): ResolvedBlock {
    const protectedReason = this.userText.reasonOf(block.id);
    if (!summary && !messagePrunes.length && !this.byBlock.get(block.id)?.size) {
      // Nothing on the block (most of a history): what the general path below gives, without its arrays.
      const pin = this.pinOf(block.id);
      return pin
        ? { block, state: 'pinned', sent: block.param, overlay: pin, protectedReason }
        : { block, state: 'verbatim', sent: block.param, protectedReason };
    }
    const allowed = protectedReason
      ? (o: Overlay) => kept(o) && (o.kind === 'pin' || mayChangeUserText(o.author))
      : kept;
    if (protectedReason) messagePrunes = messagePrunes.filter(allowed);
    const own = [...(this.byBlock.get(block.id) ?? [])].map((i) => this.overlays.get(i)!).filter(allowed);
    const pin = own.find((o) => o.kind === 'pin') ?? this.pinOf(block.id);
    const best = (list: Overlay[]): Overlay | undefined =>
      list
        .filter((o) => !pin || o.author === 'user')
        .sort((x, y) => authorRank(y.author) - authorRank(x.author) || y.callIndex - x.callIndex)[0];
    if (summary) return { block, state: 'summarized', overlay: summary };
    const prune = best([...messagePrunes, ...own.filter((o) => o.kind === 'prune')]);
    if (prune) return { block, state: 'pruned', overlay: prune };
    const trim = best(own.filter((o) => o.kind === 'trim'));
    if (trim && trim.kind === 'trim')
      return { block, state: 'trimmed', sent: applyTrim(block.param, trim.text), overlay: trim };
    if (pin) return { block, state: 'pinned', sent: block.param, overlay: pin, protectedReason };
    return { block, state: 'verbatim', sent: block.param, protectedReason };
  }
}
