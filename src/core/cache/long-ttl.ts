/**
 * Per call: write the cache with the 1-hour TTL instead of the 5-minute one? A read refreshes
 * an entry with its own TTL, so the tail written by a tool loop's last call decides whether the
 * next prompt, after the user's pause, reads the whole prefix or writes it again. The 1-hour
 * write costs more on what this call writes; it pays when this call is likely the loop's last
 * and the pause after it likely lasts 5–60 minutes (cold after 5, still warm under 60). Same
 * units as break-even.ts, priced by the one pricer (cost.ts `inputSidePrice`, base-input tokens).
 *
 * With W the tokens this call writes, T the cached prefix after it, w5 and w1 the write
 * multipliers, r the read multiplier, pEnd the chance that this call ends the loop (from the
 * expected rest of the loop, cache/warm-calls.ts), pMid the chance that a pause between loops
 * lasts 5–60 minutes (the session's own pauses, with one pseudo-observation of another pause),
 * q the chance that the cache was lost for a reason the request does not show (the session's
 * own calls that read little of a warm cache), A the tokens written again then:
 *
 *   extra now   (W + q·A)·(w1 − w5)
 *   gain        pEnd·pMid·T·(w5 − r)    the next prompt reads T instead of writing it again
 *   1 hour      when gain > extra
 */
import { BASE_INPUT_PRICE, inputSidePrice } from './cost';
import { TTL_1H_MS, TTL_5M_MS } from '../api/cache-rules';

export interface LongTtlInput {
  /** Tokens this call writes (W). */
  readonly written: number;
  /** Tokens of the cached prefix after this call: tools, system and messages (T). */
  readonly prefix: number;
  /** Expected further calls of the current loop (cache/warm-calls.ts restOfLoop). */
  readonly restOfLoop: number;
  /** Idle time before each later loop's first call (ms), oldest first. */
  readonly gapsMs: readonly number[];
  /** Chance that this call finds the cache lost for a reason it does not show (q). */
  readonly lossRate?: number;
  /** Tokens this call writes if so (A). */
  readonly atRisk?: number;
  /** The model's minimum cacheable prefix: a prefix under it is not cached at all, under any TTL. */
  readonly minTokens?: number;
}

export interface LongTtlQuote extends LongTtlInput {
  readonly pEnd: number;
  readonly pMid: number;
  readonly extra: number;
  readonly gain: number;
  readonly pays: boolean;
}

/**
 * One pseudo-observation of a pause that is not 5–60 minutes: the client's TTL stays until the
 * session itself has shown such a pause (a single-task agent loop never pauses for a human).
 */
const NOT_MID_PRIOR = 1;

export function quoteLongTtl(i: LongTtlInput): LongTtlQuote {
  const E = Math.max(0, i.restOfLoop);
  const pEnd = 1 / (1 + E);
  let mid = 0;
  for (const g of i.gapsMs) if (g >= TTL_5M_MS && g < TTL_1H_MS) mid++;
  const pMid = mid / (i.gapsMs.length + NOT_MID_PRIOR);
  const risk = Math.max(0, i.lossRate ?? 0) * Math.max(0, i.atRisk ?? 0);
  // The one pricer, in base-input tokens: the same writes at 1 hour against 5 minutes, a prefix written against read.
  const written = { written: Math.max(0, i.written) + risk };
  const extra = inputSidePrice(written, BASE_INPUT_PRICE, '1h') - inputSidePrice(written, BASE_INPUT_PRICE, '5m');
  const prefix = Math.max(0, i.prefix);
  const written5m = inputSidePrice({ written: prefix }, BASE_INPUT_PRICE, '5m');
  const rewrite = written5m - inputSidePrice({ read: prefix }, BASE_INPUT_PRICE);
  const gain = pEnd * pMid * rewrite;
  // Written out, not spread (V8's slow path; this runs every call).
  const cacheable = i.prefix >= (i.minTokens ?? 0);
  return {
    written: i.written,
    prefix: i.prefix,
    restOfLoop: i.restOfLoop,
    gapsMs: i.gapsMs,
    lossRate: i.lossRate,
    atRisk: i.atRisk,
    minTokens: i.minTokens,
    pEnd,
    pMid,
    extra,
    gain,
    pays: cacheable && gain > extra,
  };
}

/** One line for the decision log: both prices, the expectation and the verdict. */
export function describeLongTtl(q: LongTtlQuote): string {
  return (
    `writes ${Math.round(q.written)} tokens, prefix ${Math.round(q.prefix)}: 1-hour TTL costs ` +
    `${Math.round(q.extra)} more now; ` +
    `if the loop ends here (p ${q.pEnd.toFixed(2)}) and the pause lasts 5–60 min (p ${q.pMid.toFixed(2)}, ` +
    `${q.gapsMs.length} pauses seen) it saves ${Math.round(q.gain)} ` +
    `(base-input tokens) → ${q.pays ? '1-hour TTL' : '5-minute TTL'}`
  );
}
