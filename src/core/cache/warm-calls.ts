/**
 * How many more calls will read the cached prefix before it goes cold? Estimated
 * from the session's own evidence, so a rewrite is weighed against what this session
 * actually does (a single-prompt loop, short chats, long pauses) rather than a
 * fixed horizon:
 *
 * - The rest of the current tool loop: over the earlier loops that were at least as
 *   long as this one is now, the mean of what they still ran; with no such loop, the
 *   loop is expected to run as long again as it has (Lindy: a loop of n calls is about
 *   as likely to run n more), blended with the evidence as one pseudo-observation.
 * - Later loops on the same cache: each gap between a loop's last call and the next
 *   prompt either kept the cache (shorter than the TTL) or let it go. With p the share
 *   of warm gaps (a Laplace prior of one warm and one cold gap), the expected number of
 *   later loops before a cold gap is p/(1 − p), each of the mean loop length.
 * - At most {@link WarmCallOptions.maxCalls}: no cache lives forever.
 */

export interface LoopEvidence {
  /** Calls of each finished loop (a human prompt and the calls that answered it), oldest first. */
  readonly loopLengths: readonly number[];
  /** Idle time before each later loop's first call (ms), oldest first. */
  readonly gapsMs: readonly number[];
  /** Calls of the current loop so far, this one included. */
  readonly currentLoopCalls: number;
}

export interface WarmCallOptions {
  /** Upper bound of the estimate. */
  maxCalls: number;
  /** Weight of the Lindy prior against the session's own loops (pseudo-observations). */
  priorWeight: number;
}

/**
 * priorWeight 0.5: chosen leave-one-session-out (bench-results/README.md, "Default parameters": 8 of 9
 * folds choose it; 1 gives the same pooled cost in-sample, and was the folds' choice for a while).
 */
export const WARM_CALL_DEFAULTS: WarmCallOptions = { maxCalls: 200, priorWeight: 0.5 };

export interface WarmCallEstimate {
  /** Expected further calls that read the current cache. */
  readonly calls: number;
  readonly restOfLoop: number;
  /** Probability that the next gap keeps the cache warm. */
  readonly pWarmGap: number;
  readonly meanLoop: number;
}

export function expectedWarmCalls(
  e: LoopEvidence,
  ttlMs: number,
  o: WarmCallOptions = WARM_CALL_DEFAULTS,
): WarmCallEstimate {
  const n = Math.max(1, e.currentLoopCalls);
  let sum = n * o.priorWeight;
  let weight = o.priorWeight;
  for (const L of e.loopLengths) {
    if (L < n) continue;
    sum += L - n;
    weight += 1;
  }
  const restOfLoop = sum / weight;
  const warm = e.gapsMs.filter((g) => g < ttlMs).length;
  const pWarmGap = (warm + 1) / (e.gapsMs.length + 2);
  const meanLoop = e.loopLengths.length ? e.loopLengths.reduce((a, b) => a + b, 0) / e.loopLengths.length : n;
  const later = (pWarmGap / (1 - pWarmGap)) * meanLoop;
  return {
    calls: Math.min(o.maxCalls, restOfLoop + later),
    restOfLoop: Math.min(o.maxCalls, restOfLoop),
    pWarmGap,
    meanLoop,
  };
}
