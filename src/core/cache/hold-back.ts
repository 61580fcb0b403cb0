/**
 * Write-time placement: should the request's final message (fresh tool results) be
 * held out of the cache write this call? The tail breakpoint then sits on the last
 * block before it, so the message goes as plain input (1×) instead of being written
 * (5m: 1.25×, 1h: 2×). It pays when a trim of that message is due at the next call
 * (a result that leaves the verbatim window when the next round completes): the trim
 * is then free (nothing cached to rewrite) instead of rewriting the tail behind the
 * previous write, or being deferred and read every call. Priced by the one pricer
 * (cost.ts `inputSidePrice`, base-input tokens), as break-even.ts quotes.
 *
 * With T the held message's tokens, S what the due trim saves, w the write and r the
 * read multiplier, p the chance the tool loop goes on (the trim then happens next
 * call), q the chance a pause keeps the cache warm, K the loop's further calls after
 * the next one:
 *
 *   now                 T·(w − 1)          saved on this call (plain input instead of a write)
 *   loop goes on        min(0, T·r + S·r·K − (T − S)·w)
 *                                          against keeping T cached and verbatim (the other
 *                                          choice, trimming it next call after a write, only
 *                                          costs more than holding it back)
 *   turn ends           − q·T·(w − r)      the next prompt writes T instead of reading it
 *   net                 now + p·(goes on) + (1 − p)·(ends)
 */
import type { CacheTtl } from '../api/wire';
import { BASE_INPUT_PRICE, inputSidePrice, type InputSide } from './cost';

/** An input side's price in base-input tokens. */
const base = (side: InputSide, ttl: CacheTtl): number => inputSidePrice(side, BASE_INPUT_PRICE, ttl);

export interface HoldBackInput {
  /** Tokens held out of the write: the last messages from the placement on (T). */
  readonly held: number;
  /** Tokens the trims due next call save on them (S). */
  readonly saved: number;
  readonly ttl: CacheTtl;
  /** Expected further calls of the current loop (cache/warm-calls.ts restOfLoop). */
  readonly restOfLoop: number;
  /** Probability that a pause keeps the cache warm (cache/warm-calls.ts pWarmGap). */
  readonly pWarmGap: number;
}

export interface HoldBackQuote extends HoldBackInput {
  /** Probability that the loop makes another call (the trim is applied there). */
  readonly pContinue: number;
  readonly gainNow: number;
  readonly ifContinues: number;
  readonly ifEnds: number;
  /** Expected saving of holding back, base-input tokens. */
  readonly net: number;
  readonly pays: boolean;
}

export function quoteHoldBack(i: HoldBackInput): HoldBackQuote {
  const T = i.held;
  const S = Math.min(Math.max(0, i.saved), T);
  // restOfLoop calls expected after this one: a geometric loop with that mean goes on with p = E/(1+E).
  const E = Math.max(0, i.restOfLoop);
  const pContinue = E / (1 + E);
  const K = Math.max(0, E - 1);
  const gainNow = base({ written: T }, i.ttl) - base({ uncached: T }, i.ttl);
  const ifContinues = Math.min(0, base({ read: T + S * K }, i.ttl) - base({ written: T - S }, i.ttl));
  const ifEnds = -i.pWarmGap * (base({ written: T }, i.ttl) - base({ read: T }, i.ttl));
  const net = gainNow + pContinue * ifContinues + (1 - pContinue) * ifEnds;
  // Written out, not spread: a spread that overrides a field is V8's slow path, and this runs every call.
  return {
    held: i.held,
    saved: S,
    ttl: i.ttl,
    restOfLoop: i.restOfLoop,
    pWarmGap: i.pWarmGap,
    pContinue,
    gainNow,
    ifContinues,
    ifEnds,
    net,
    pays: S > 0 && net > 0,
  };
}

/** One line for the decision log: both prices, the expectation and the verdict. */
export function describeHoldBack(q: HoldBackQuote): string {
  return (
    `last messages ${Math.round(q.held)} tokens, trims due next call save ${Math.round(q.saved)} (${q.ttl} TTL): ` +
    `plain input now saves ${Math.round(q.gainNow)}, if the loop goes on (p ${q.pContinue.toFixed(2)}, ` +
    `${q.restOfLoop.toFixed(1)} expected calls) ${Math.round(q.ifContinues)}, ` +
    `if the turn ends (warm pause p ${q.pWarmGap.toFixed(2)}) ${Math.round(q.ifEnds)} (base-input tokens) → ` +
    `net ${Math.round(q.net)}: ${q.pays ? 'held out of the cache write' : 'written as usual'}`
  );
}
