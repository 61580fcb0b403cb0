/**
 * The trimming pipeline: strategies in order, each proposing overlays; the
 * cache-aware applier decides what is applied now. Pins and the user's own
 * overlays win because strategies skip pinned/restored blocks and the session
 * refuses strategy overlays on pinned blocks.
 */
import type { Session } from '../session/session';
import { lastBelow } from '../session/sorted';
import type { TokenAccountant } from '../tokens/types';
import { CacheAwareApplier, type ApplyContext, type CacheAwareOptions, type CacheState } from './cache-aware';
import type { DecisionLog } from './decisions';
import type { LoopEvidence } from '../cache/warm-calls';
import { LoopTracker } from './loop-evidence';
import type { MessageIndex } from './message-index';
import type { Foresight, Proposal, Strategy, StrategyContext } from './types';

export interface PipelineRunInput {
  session: Session;
  index: MessageIndex;
  tokens: TokenAccountant;
  decisions: DecisionLog;
  callIndex: number;
  epochStart: number;
  upTo: number;
  contextWindow: number;
  now: number;
  cache: CacheState;
}

export interface PipelineRunResult {
  applied: number;
  pending: number;
  pendingSavings: number;
  /** Strategies whose trigger held this call. */
  ran: string[];
  /**
   * Trims due at the next call on the request's last messages if the loop goes on, per placement (summed over
   * strategies).
   */
  foresight: Foresight[];
  /** The session's loops and pauses as of this call (the evidence of every cache decision). */
  evidence: LoopEvidence;
  /**
   * Lowest log position an overlay was applied at this call (Infinity: none): the request is written again from there.
   */
  firstApplied: number;
}

export class Pipeline {
  readonly applier: CacheAwareApplier;
  /** The session's loops and pauses, the evidence of the applier's break-even. */
  readonly loops = new LoopTracker();

  constructor(
    readonly strategies: readonly Strategy[],
    cacheAware?: CacheAwareOptions,
  ) {
    this.applier = new CacheAwareApplier(cacheAware);
  }

  get names(): string[] {
    return this.strategies.map((s) => s.name);
  }

  run(input: PipelineRunInput): PipelineRunResult {
    const { index } = input;
    index.update();
    // The turn this call answers: the last prompt before the request's end (-1: none).
    const turnStart = lastBelow(index.prompts, input.upTo, -1);
    this.loops.observe(input.callIndex, input.now, turnStart);
    const closedTurnsPruned = this.strategies.some((s) => s.prunesClosedTurns);
    const evidence = this.loops.evidence();
    const ran: string[] = [];
    let applied = 0;
    this.applier.takeFirstApplied();
    // The last flush of this call applied nothing: until something new is proposed, another flush would decide the
    // same.
    let settled = false;
    // The applier's view of this call, made once (not spread again before every flush).
    const flushInput: ApplyContext = {
      session: input.session,
      index,
      decisions: input.decisions,
      callIndex: input.callIndex,
      now: input.now,
      cache: input.cache,
      evidence,
      epochStart: input.epochStart,
      turnStart: closedTurnsPruned ? turnStart : undefined,
    };
    for (const s of this.strategies) {
      const ctx = this.context(input);
      if (s.trigger.kind === 'above') {
        const used = ctx.viewTokens() / input.contextWindow;
        if (used < s.trigger.fraction) continue;
      }
      const proposed = this.applier.proposals;
      s.run(ctx);
      ran.push(s.name);
      if (settled && this.applier.proposals === proposed) continue;
      // Apply after each strategy so the next one sees the result (prune first, then window…).
      const n = this.applier.flush(flushInput);
      applied += n;
      settled = n === 0;
      index.update();
    }
    const due = new Map<number, number>();
    for (const s of this.strategies) {
      if (!ran.includes(s.name) || !s.foresee) continue;
      for (const f of s.foresee(this.context(input))) {
        if (f.position > input.epochStart && f.position < input.upTo)
          due.set(f.position, (due.get(f.position) ?? 0) + f.saved);
      }
    }
    const foresight = [...due].map(([position, saved]) => ({ position, saved }));
    return {
      applied,
      pending: this.applier.pendingCount(),
      pendingSavings: this.applier.pendingSavings(),
      ran,
      foresight,
      evidence,
      firstApplied: this.applier.takeFirstApplied(),
    };
  }

  private context(input: PipelineRunInput): StrategyContext {
    const { index, epochStart, upTo } = input;
    const applier = this.applier;
    return {
      session: input.session,
      index,
      tokens: input.tokens,
      callIndex: input.callIndex,
      epochStart,
      upTo,
      contextWindow: input.contextWindow,
      viewTokens: () => index.rangeTokens(epochStart, upTo),
      messageTokens: (pos) => index.messageTokens(pos),
      isPending: (id) => applier.isPending(id),
      propose: (p: Proposal) => applier.add(p),
    };
  }
}
