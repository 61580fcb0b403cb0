/**
 * The prefix of a recorded call that its transcript does not hold, per model, and the part of it that is an
 * earlier conversation.
 *
 * The first call fixes the prefix: its total less its messages (sizing.ts). A transcript that starts
 * mid-conversation (a session continued from another file or id: Entire's checkpoints, a resume) sends the
 * earlier conversation there too, after the system prompt. Claude Code then changes that part without a
 * line in this file that names its blocks: a compaction drops it, a microcompact of results the file does
 * not hold shrinks it. The recorded usage shows where: the call sends less than the transcript and the prefix
 * hold, and its cache read ends inside the prefix, at the end of the system prompt (the last breakpoint before
 * the messages; entire-dev 44_785715c3f5, 50_a05055ba87, 76_62d755ef9f). From that call on the prefix is the
 * system prompt (that read) plus what is left of the earlier conversation, as other bytes (a new cache
 * identity); the calls before it sent the system prompt and the whole earlier conversation (the same total).
 */
import type { CallRecord } from '../session/types';

/** A read this far inside the prefix ends before it: the prefix changed there. */
const INSIDE_PREFIX_TOKENS = 500;

/** What a call sent of the earlier conversation: a content identity and a size. */
export interface EarlierPart {
  readonly key: string;
  readonly tokens: number;
}

/** A call from which the earlier conversation is other bytes: how many tokens it had, how many it has now. */
export interface EarlierRewrite {
  readonly call: number;
  readonly model: string;
  readonly from: number;
  readonly to: number;
  /** The call starts a new epoch (a compaction): the earlier conversation is gone from the history. */
  readonly compaction: boolean;
}

export class ModelPrefix {
  /** Where the system prompt ends, once a read inside the prefix told (else the whole prefix counts as one). */
  private system?: number;
  /** Size of the earlier conversation per revision; revision 0 is the first call's (`first − system`). */
  private readonly sizes: number[] = [0];
  private rev = 0;
  /** The epoch (first message of the history) the current revision was sent in. */
  private epoch: number;
  /** The last call that started a new epoch (a compaction). */
  private epochCall = -1;
  /** Per call index: the revision it sent. */
  private readonly revOf = new Map<number, number>();
  private readonly changes: { -readonly [K in keyof EarlierRewrite]: EarlierRewrite[K] }[] = [];

  constructor(
    readonly model: string,
    /** The first call's whole prefix. */
    readonly first: number,
    /** The first call's cache read. */
    readonly firstRead: number,
    epochStart: number,
  ) {
    this.epoch = epochStart;
  }

  /** The prefix of a call: the system prompt and the earlier conversation it sent (a compaction drops that). */
  total(call: CallRecord): number {
    if (call.epochStart !== this.epoch) {
      this.epochCall = call.index;
      if (this.system !== undefined) this.next(0, call, true);
    }
    this.epoch = call.epochStart;
    this.revOf.set(call.index, this.rev);
    return this.system === undefined ? this.first : this.system + this.sizes[this.rev];
  }

  /**
   * A call that sent less than its prefix and blocks hold: when its read ends inside the prefix, or it
   * starts a new epoch, the earlier conversation is what changed; `sent` is what it sent besides the
   * transcript's blocks. Returns whether it followed that (the call's prefix is then {@link total} again).
   */
  rewrite(call: CallRecord, read: number, sent: number): boolean {
    const newEpoch = this.epochCall === call.index;
    const prefix = this.system === undefined ? this.first : this.system + this.sizes[this.rev];
    // The read ends inside what the call sent besides the transcript's blocks; a read past that ends in
    // blocks the transcript holds: those are what the client shrank (sizing.ts rescales them).
    const inside = read > 0 && read + INSIDE_PREFIX_TOKENS < prefix && read <= sent;
    if (!inside && !newEpoch) return false;
    if (this.system === undefined) {
      this.system = Math.max(0, Math.min(inside ? read : prefix, sent));
      this.sizes[0] = this.first - this.system;
    }
    this.next(Math.max(0, sent - this.system), call, newEpoch);
    return true;
  }

  private next(tokens: number, call: CallRecord, compaction: boolean): void {
    const from = this.sizes[this.rev];
    this.rev = this.sizes.push(tokens) - 1;
    this.revOf.set(call.index, this.rev);
    const last = this.changes[this.changes.length - 1];
    if (last?.call === call.index) last.to = tokens;
    else this.changes.push({ call: call.index, model: this.model, from, to: tokens, compaction });
  }

  /** The calls from which the earlier conversation changed (none while nothing split the prefix). */
  get rewrites(): readonly EarlierRewrite[] {
    return this.split ? this.changes.filter((c) => c.from > 0 || c.to > 0) : [];
  }

  /** Whether the prefix was split: the earlier conversation is known apart from the system prompt. */
  get split(): boolean {
    return this.system !== undefined && this.sizes.some((s) => s > 0);
  }

  /** The system prompt's size (the whole first prefix when nothing split it). */
  get systemTokens(): number {
    return this.system ?? this.first;
  }

  /** What call `index` sent of the earlier conversation (undefined: nothing). */
  partOf(index: number): EarlierPart | undefined {
    const rev = this.revOf.get(index);
    if (rev === undefined || !this.split) return undefined;
    const tokens = this.sizes[rev];
    return tokens > 0 ? { key: `${this.model}#${rev}`, tokens } : undefined;
  }
}
