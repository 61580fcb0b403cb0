/**
 * The session's own evidence for the break-even (cache/warm-calls.ts): how long its
 * tool loops ran and how long the user paused between them. Fed once per model call
 * with the call's time and the log position of the human prompt the call answers.
 * O(1) per call.
 */
import type { LoopEvidence } from '../cache/warm-calls';

export class LoopTracker {
  private readonly lengths: number[] = [];
  private readonly gaps: number[] = [];
  private current = 0;
  private turn = -1;
  private lastCall = -1;
  private lastAt?: number;

  /** One model call: `turnStart` is the position of the prompt it answers (-1 when none). */
  observe(callIndex: number, now: number, turnStart: number): void {
    if (callIndex === this.lastCall) return;
    this.lastCall = callIndex;
    if (turnStart !== this.turn) {
      if (this.current > 0) {
        this.lengths.push(this.current);
        if (this.lastAt !== undefined) this.gaps.push(Math.max(0, now - this.lastAt));
      }
      this.turn = turnStart;
      this.current = 0;
    }
    this.current++;
    this.lastAt = now;
  }

  evidence(): LoopEvidence {
    return { loopLengths: this.lengths, gapsMs: this.gaps, currentLoopCalls: this.current };
  }
}
