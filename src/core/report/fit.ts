/**
 * `none` against the bill: replay the recorded requests unchanged through the
 * bill model and compare with what the API charged, call by call.
 */
import type { CallRecord, ImportedSession } from '../session/types';
import { BillModel, blockEndingNear, type BillMessage, type BillRequest, type BillStep, type InferredPrefix } from './bill-model';
import type { OffenderTally } from './offenders';
import { callCost, type RecordedCall } from './recorded';
import { requestMessages, sizeSession } from './sizing';

/** Below this many calls the fit says little (the bar: sessions with ≥ 10 calls). */
export const MIN_CALLS_FOR_FIT = 10;

export interface CallTiming {
  readonly now: number;
  readonly ttl: '5m' | '1h';
}

/**
 * Time of each call: its response's first line (else previous + 1 s). The
 * message before it is no better a clock: a merged user message carries the
 * time of its first line, minutes before the request when the user typed
 * after tool results. TTL: 1 h where the usage shows 1-hour writes.
 */
export function callTimings(calls: readonly CallRecord[], recorded: ReadonlyMap<string, RecordedCall>): CallTiming[] {
  let now = 0;
  let ttl: '5m' | '1h' = '5m';
  return calls.map((c) => {
    const t = c.timestamp ? Date.parse(c.timestamp) : NaN;
    now = Number.isFinite(t) ? t : now + 1000;
    const r = c.apiMessageId ? recorded.get(c.apiMessageId) : undefined;
    if (r) {
      const split = r.usage.cache_creation;
      if (split.ephemeral_1h_input_tokens > 0) ttl = '1h';
      else if (split.ephemeral_5m_input_tokens > 0) ttl = '5m';
    }
    return { now, ttl };
  });
}

export interface FitResult {
  readonly prefix: InferredPrefix;
  readonly messages: BillMessage[];
  readonly timings: CallTiming[];
  /** Per call, the block the client's message breakpoint was on (undefined: the last block). */
  readonly placement: (string | undefined)[];
  /** Calls where the client sent a shorter history than the transcript holds. */
  readonly rewrites: { call: number; tokens: number }[];
  /** Calls where the client invalidated its own messages (see {@link clientInvalidations}), and each call's epoch. */
  readonly invalidations: number[];
  readonly epochs: number[];
  /** Of those, the calls where the documented rules alone would have read far more (the misses the transcript does not explain). */
  readonly unexplained: number[];
  /** simulated / recorded − 1 without following those invalidations (the documented rules alone). */
  readonly unanchoredError?: number;
  /** Per call, the `none` step. */
  readonly steps: BillStep[];
  /** Calls billed in this row (not counted elsewhere) with recorded usage. */
  readonly billed: boolean[];
  /** Input-side cost over billed calls: simulated `none` and recorded. */
  readonly simulatedCost: number;
  readonly recordedCost: number;
  /** simulated / recorded − 1 over billed calls; undefined when nothing recorded. */
  readonly costError?: number;
  /** Median per-call |error| of total input, and of input-side cost. */
  readonly medianTotalError?: number;
  readonly medianCallCostError?: number;
}

export function median(xs: readonly number[]): number | undefined {
  if (!xs.length) return undefined;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/**
 * Uncached input above this many tokens means the client's last breakpoint
 * was not on the last block (Claude Code's main loop leaves 0–15 tokens:
 * the new user text after its breakpoint; some subagent calls left 6k–20k).
 */
const TAIL_AFTER_BREAKPOINT_TOKENS = 200;

/**
 * Where each call's message breakpoint was: the last block, unless the
 * recorded `input_tokens` say a longer tail was sent uncached; then the
 * block ending that many tokens before the end.
 */
export function breakpointPlacement(calls: readonly CallRecord[], messages: readonly BillMessage[], model: string, prefixTokens: number): (string | undefined)[] {
  return calls.map((c) => {
    const u = c.usage;
    if (!u || u.input_tokens <= TAIL_AFTER_BREAKPOINT_TOKENS) return undefined;
    const total = u.input_tokens + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
    return blockEndingNear(requestMessages(messages, c), model, total - u.input_tokens - prefixTokens);
  });
}

/** The documented rules would have read this many more tokens: a miss the transcript does not explain. */
const UNEXPLAINED_MISS_TOKENS = 5_000;

/** A read this close to the end of the system prompt is a read of the system prompt alone. */
const SYSTEM_READ_SLACK_TOKENS = 256;

/**
 * Calls where the recorded usage read nothing past the system prompt (the
 * client's system breakpoints) although messages were sent. Where the
 * documented rules (TTL, lookback, dropped thinking) already explain that,
 * following it changes nothing; where they do not, the client changed
 * something early in its messages that the transcript does not hold (in the
 * m-claude sessions: right after some human turns and after API errors, with
 * the cache 0.2–3 minutes warm). The bill model follows the recording there
 * for every strategy alike: the messages are other bytes from that call on.
 */
export function clientInvalidations(calls: readonly CallRecord[], systemTokens: number): number[] {
  const out: number[] = [];
  calls.forEach((c, i) => {
    const u = c.usage;
    if (i === 0 || !u) return;
    const read = u.cache_read_input_tokens ?? 0;
    const total = u.input_tokens + (u.cache_creation_input_tokens ?? 0) + read;
    if (read <= systemTokens + SYSTEM_READ_SLACK_TOKENS && total > systemTokens + SYSTEM_READ_SLACK_TOKENS) out.push(i);
  });
  return out;
}

/** Each call's epoch: how many client invalidations happened at or before it. */
export function epochsOf(calls: number, invalidations: readonly number[]): number[] {
  const at = new Set(invalidations);
  let e = 0;
  return Array.from({ length: calls }, (_, i) => (at.has(i) ? ++e : e));
}

/** The requests of every call, as sent (no trimming). */
export function noneRequests(calls: readonly CallRecord[], messages: readonly BillMessage[], timings: readonly CallTiming[], placement: readonly (string | undefined)[] = [], epochs: readonly number[] = []): BillRequest[] {
  return calls.map((c, i) => ({ now: timings[i].now, ttl: timings[i].ttl, messages: requestMessages(messages, c), breakpointAt: placement[i], epoch: epochs[i] }));
}

/** Fit `none` to the bill of an imported session; `recorded` maps message ids to the calls billed in this row. */
export function fitNone(imp: ImportedSession, model: string, recorded: ReadonlyMap<string, RecordedCall>, offenders?: OffenderTally): FitResult {
  const sized = sizeSession(imp, model);
  const timings = callTimings(imp.calls, recorded);
  const bill = new BillModel(model, sized.prefix);
  const systemTokens = sized.prefix.shared + sized.prefix.session;
  const placement = breakpointPlacement(imp.calls, sized.messages, model, systemTokens);
  const invalidations = clientInvalidations(imp.calls, systemTokens);
  const epochs = epochsOf(imp.calls.length, invalidations);
  const billedCall = (c: CallRecord): RecordedCall | undefined => (c.apiMessageId ? recorded.get(c.apiMessageId) : undefined);
  const steps = noneRequests(imp.calls, sized.messages, timings, placement, epochs).map((r, i) => {
    const tally = offenders?.collect();
    const s = bill.step(r, tally?.span);
    tally?.commit(s, r.ttl, billedCall(imp.calls[i]) !== undefined);
    return s;
  });
  let simulatedCost = 0;
  let recordedCost = 0;
  const totalErrs: number[] = [];
  const costErrs: number[] = [];
  const billed = imp.calls.map((c, i) => {
    const r = billedCall(c);
    if (!r) return false;
    const rc = callCost(r.model, r.usage).input;
    simulatedCost += steps[i].cost;
    recordedCost += rc;
    const err = sized.totalErrors[i];
    if (err !== undefined) totalErrs.push(err);
    if (rc > 0) costErrs.push(Math.abs(steps[i].cost - rc) / rc);
    return true;
  });
  let unanchoredError: number | undefined;
  const unexplained: number[] = [];
  if (invalidations.length && recordedCost > 0) {
    // The same replay without following the client's invalidations: what the documented rules alone give.
    const plain = new BillModel(model, sized.prefix);
    const at = new Set(invalidations);
    let cost = 0;
    noneRequests(imp.calls, sized.messages, timings, placement).forEach((r, i) => {
      const s = plain.step(r);
      if (billed[i]) cost += s.cost;
      if (at.has(i) && s.readTokens - steps[i].readTokens > UNEXPLAINED_MISS_TOKENS) unexplained.push(i);
    });
    unanchoredError = cost / recordedCost - 1;
  }
  return {
    prefix: sized.prefix,
    messages: sized.messages,
    timings,
    placement,
    invalidations,
    epochs,
    unexplained,
    unanchoredError,
    rewrites: sized.rewrites,
    steps,
    billed,
    simulatedCost,
    recordedCost,
    costError: recordedCost > 0 ? simulatedCost / recordedCost - 1 : undefined,
    medianTotalError: median(totalErrs),
    medianCallCostError: median(costErrs),
  };
}
