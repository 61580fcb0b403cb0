/**
 * The blocks of a recorded call's request the API counts, and their running sum from one call to the next
 * (sizing.ts): earlier turns' thinking left out for models that drop it.
 */
import { isThinkingType, thinkingDropIndex, thinkingDroppedIn } from '../api/cache-rules';
import type { CallRecord, LogBlock, LogMessage } from '../session/types';

/** The blocks of a call's request the API counts (earlier turns' thinking left out for models that drop it). */
export function countedBlocks(
  logMsgs: readonly LogMessage[],
  human: readonly boolean[],
  call: CallRecord,
  dropsThinking: boolean,
): LogBlock[] {
  const dropBefore = thinkingDropIndex((i) => human[i], call.epochStart, call.at, dropsThinking);
  const out: LogBlock[] = [];
  for (let i = call.epochStart; i < call.at; i++) {
    const m = logMsgs[i];
    const drop = thinkingDroppedIn(m.role, i, dropBefore);
    for (const b of m.blocks) if (!(drop && isThinkingType(b.kind))) out.push(b);
  }
  return out;
}

/**
 * The sum of the sizes of the blocks a call counts ({@link countedBlocks}), carried from the
 * last sized call to the next when the next only adds messages to the same epoch and drops
 * the same thinking. Exactly the sum a walk over every block gives: the same additions in the
 * same order (all earlier blocks are sized by then, and their sizes do not change until a
 * rewrite, which resets it).
 */
export class RunningSum {
  /** After the last sized call: its window, where its thinking stopped counting, the sum of every counted block. */
  private last?: {
    epochStart: number;
    at: number;
    drops: boolean;
    dropBefore: number;
    lastHuman: number;
    known: number;
  };

  constructor(
    private readonly msgs: readonly LogMessage[],
    private readonly human: readonly boolean[],
    private readonly sizes: ReadonlyMap<string, number>,
    private readonly same: (id: string) => string,
  ) {}

  /**
   * The call's window against the last sized one: whether it only adds messages to it, its last human
   * turn (found among the new messages when it does) and where its thinking stops counting.
   */
  private window(call: CallRecord, drops: boolean): { follows: boolean; lastHuman: number; dropBefore: number } {
    const l = this.last;
    const follows = l !== undefined && l.epochStart === call.epochStart && l.drops === drops && call.at >= l.at;
    // The thinking rule over the new messages only (cache/rules.ts); the last sized call's prompt when none is new.
    const start = follows ? Math.max(l.at, call.epochStart) : call.epochStart;
    const found = thinkingDropIndex((i) => this.human[i], start - 1, call.at, drops);
    const lastHuman = drops && found >= start ? found : follows ? l.lastHuman : -1;
    const dropBefore = drops && lastHuman > call.epochStart ? lastHuman : call.epochStart;
    return { follows: follows && l.dropBefore === dropBefore, lastHuman: drops ? lastHuman : -1, dropBefore };
  }

  /**
   * `known` plus the sizes of the counted blocks of messages [from, to), in order; blocks without a size go to
   * `unsized`.
   */
  private add(known: number, from: number, to: number, dropBefore: number, unsized?: LogBlock[]): number {
    for (let i = from; i < to; i++) {
      const m = this.msgs[i];
      const drop = thinkingDroppedIn(m.role, i, dropBefore);
      for (const b of m.blocks) {
        if (drop && isThinkingType(b.kind)) continue;
        const t = this.sizes.get(this.same(b.id));
        if (t !== undefined) known += t;
        else unsized?.push(b);
      }
    }
    return known;
  }

  /**
   * For a call that only adds messages since the last sized one: the sum over the sized counted blocks and the unsized
   * ones.
   */
  extend(call: CallRecord, drops: boolean): { known: number; unsized: LogBlock[] } | undefined {
    const w = this.window(call, drops);
    if (!w.follows) return undefined;
    const unsized: LogBlock[] = [];
    return { known: this.add(this.last!.known, this.last!.at, call.at, w.dropBefore, unsized), unsized };
  }

  /** The call's blocks are all sized now: remember the sum over them for the next call. */
  sized(call: CallRecord, drops: boolean): void {
    const w = this.window(call, drops);
    const known = w.follows
      ? this.add(this.last!.known, this.last!.at, call.at, w.dropBefore)
      : this.add(0, call.epochStart, call.at, w.dropBefore);
    this.last = {
      epochStart: call.epochStart,
      at: call.at,
      drops,
      dropBefore: w.dropBefore,
      lastHuman: w.lastHuman,
      known,
    };
  }

  /** Sizes of counted blocks changed (a rewrite) or the call's counted set was not a plain window (cleared results). */
  reset(): void {
    this.last = undefined;
  }
}
