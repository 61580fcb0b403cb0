/**
 * `none` against the bill: replay the recorded requests unchanged through the
 * bill model and compare with what the API charged, call by call.
 */
import type { CallRecord, ImportedSession } from '../session/types';
import { blockEndingNear, type BillMessage, type BillRequest, type BillStep, type InferredPrefix } from './bill-model';
import type { ClientEvents } from '../import/client-events';
import type { OffenderTally } from './offenders';
import type { RecordedCall } from '../import/recorded';
import { callCost } from './recorded';
import { recordedStep, SessionBill, withCleared, type CallContext } from './session-bill';
import { requestMessages, sizeSession } from './sizing';
import { sizesByCall } from './rewrites';
import { TTL_1H_MS, TTL_5M_MS } from '../cache/simulator';
import { callTimings, type CallTiming } from './call-timings';
import { clientInvalidations, epochsOf, sharedFromInvalidations, SYSTEM_READ_SLACK_TOKENS } from './invalidations';
import { callContexts, clearedSpans } from './call-contexts';
import type { EarlierPart, EarlierRewrite } from './earlier-conversation';
import type { TurnEndWrite } from './bill-types';

export { callTimings, TTL_SLACK_MS, type CallTiming } from './call-timings';
export { clientInvalidations, epochsOf, sharedFromInvalidations } from './invalidations';
export { clearedSpans } from './call-contexts';

/** Below this many calls the fit says little (the bar: sessions with ≥ 10 calls). */
export const MIN_CALLS_FOR_FIT = 10;

export interface FitResult {
  readonly prefix: InferredPrefix;
  /** The inferred system prompt of every model the session called. */
  readonly prefixes: ReadonlyMap<string, InferredPrefix>;
  readonly messages: BillMessage[];
  /** The messages at the sizes call `i` sent them (before a later rewrite shrank them, rewrites.ts). */
  readonly sizesAt: (call: number) => readonly BillMessage[];
  readonly timings: CallTiming[];
  /** Per call: its model, client version, system TTL and the results the client had cleared. */
  readonly contexts: CallContext[];
  /** Calls on another model that did not send this history: priced as recorded in every strategy. */
  readonly foreign: readonly number[];
  /** Models called besides the row's main one, with their billed calls. */
  readonly otherModels: { model: string; calls: number }[];
  /** Calls where the client version changed (a new system prompt). */
  readonly versionChanges: { call: number; from: string; to: string }[];
  /** Calls that read the cache more than a TTL after the previous request, within one after its response ended. */
  readonly lateReads: readonly number[];
  /**
   * Microcompacts followed: from which call, how many results and attachments cleared (and how many of those the
   * transcript holds).
   */
  readonly microcompacts: { call: number; results: number; attachments: number; attachmentsFollowed: number }[];
  /** Per call, the block the client's message breakpoint was on (undefined: the last block). */
  readonly placement: (string | undefined)[];
  /** Calls where the client sent a shorter history than the transcript holds. */
  readonly rewrites: { call: number; tokens: number }[];
  /** Per call, what it sent of an earlier conversation the transcript does not hold (earlier-conversation.ts). */
  readonly earlier: readonly (EarlierPart | undefined)[];
  /** Calls from which that earlier conversation changed: shrank, or dropped by a compaction. */
  readonly earlierRewrites: readonly EarlierRewrite[];
  /** Per call: whether the client's other sessions kept the shared prefix warm (undefined: no usage to tell). */
  readonly othersWarm: readonly (boolean | undefined)[];
  /** Per call: when the cache was written through the previous response by a request not in the transcript. */
  readonly turnEndWrites: readonly (TurnEndWrite | undefined)[];
  /** Calls where the client invalidated its own messages (see {@link clientInvalidations}), and each call's epoch. */
  readonly invalidations: number[];
  readonly epochs: number[];
  /**
   * Per call: how many of those invalidations also rewrote the session part of the system prompt (read the shared part
   * alone).
   */
  readonly sessionEpochs: number[];
  /**
   * Of those, the calls where the documented rules alone would have read far more (the misses the transcript does not
   * explain).
   */
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
export function breakpointPlacement(
  calls: readonly CallRecord[],
  messages: readonly BillMessage[] | ((i: number) => readonly BillMessage[]),
  model: string | ((i: number) => string),
  prefixTokens: number | ((i: number) => number),
): (string | undefined)[] {
  return calls.map((c, i) => {
    const u = c.usage;
    if (!u || u.input_tokens <= TAIL_AFTER_BREAKPOINT_TOKENS) return undefined;
    const total = u.input_tokens + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
    const msgs = typeof messages === 'function' ? messages(i) : messages;
    const m = typeof model === 'function' ? model(i) : model;
    const p = typeof prefixTokens === 'function' ? prefixTokens(i) : prefixTokens;
    return blockEndingNear(requestMessages(msgs, c), m, total - u.input_tokens - p);
  });
}

/** The documented rules would have read this many more tokens: a miss the transcript does not explain. */
const UNEXPLAINED_MISS_TOKENS = 5_000;

/** What the `none` requests of a session are built from, per call. */
export interface NonePlan {
  readonly calls: readonly CallRecord[];
  /** The messages per call (sizes as that call sent them, results the client cleared as placeholders). */
  readonly messages: (i: number) => readonly BillMessage[];
  readonly timings: readonly CallTiming[];
  readonly placement: readonly (string | undefined)[];
  readonly contexts: readonly CallContext[];
  readonly earlier: readonly (EarlierPart | undefined)[];
  /** Per call: whether the client's other sessions kept the shared prefix warm (see {@link othersKeptWarm}). */
  readonly othersWarm: readonly (boolean | undefined)[];
  /** Per call: when a request the transcript does not hold wrote the cache through the last response (see below). */
  readonly turnEndWrites: readonly (TurnEndWrite | undefined)[];
  /** Client invalidations followed (left out: the documented rules alone). */
  readonly epochs?: readonly number[];
  readonly sessionEpochs?: readonly number[];
}

/** The request of call `i`, as sent (no trimming). */
export function noneRequest(i: number, plan: NonePlan): BillRequest {
  const { timings, contexts } = plan;
  return {
    now: timings[i].now,
    refresh: timings[i].refresh,
    ttl: timings[i].ttl,
    systemTtl: contexts[i]?.systemTtl ?? timings[i].systemTtl,
    prefixKey: contexts[i]?.prefixKey,
    messages: requestMessages(plan.messages(i), plan.calls[i]),
    breakpointAt: plan.placement[i],
    epoch: plan.epochs?.[i],
    sessionEpoch: plan.sessionEpochs?.[i],
    earlier: plan.earlier[i],
    othersWarm: plan.othersWarm[i],
    turnEndWrite: plan.turnEndWrites[i],
  };
}

/**
 * Per call, whether the client's other sessions had the shared prefix (tools and stable system blocks) warm:
 * the API caches per organization, so another session of the same client version keeps it warm
 * (docs/anthropic-api.md), but only while it runs. That is no rule of this session's: the recording tells.
 * A call that read less than the shared prefix found it cold (entire-dev 37_a33a6a62fd call 4,
 * bc_cc3b2d7e10 call 50, 7e_72a8d8fdb8 call 7: nothing read after gaps past the TTL); one that read it may
 * have found it warm. m-claude's author ran sessions side by side: there it is read after 40-minute gaps.
 */
export function othersKeptWarm(
  calls: readonly CallRecord[],
  prefixOf: (i: number) => InferredPrefix,
): (boolean | undefined)[] {
  return calls.map((c, i) => {
    const p = prefixOf(i);
    if (!c.usage || !p.sharedWarm) return undefined;
    return (c.usage.cache_read_input_tokens ?? 0) + SYSTEM_READ_SLACK_TOKENS >= p.shared;
  });
}

/** A read this far past the previous request's whole input was written by a request the transcript does not hold. */
const READ_PAST_TOKENS = 64;

/**
 * Per call, when a request the transcript does not hold wrote the cache through the previous response: a human
 * turn's call that read more than the whole previous request (its breakpoint's write included). Claude Code makes
 * such a request after a turn ends, on the same model, with the history and that response: 120 of 181 turn ends
 * in entire-dev, 22 of 63 in m-claude (docs/anthropic-api.md); the next call reads through the response (and a
 * few hundred tokens of what both put after it, not modelled). Followed where the recording shows it.
 */
export function turnEndWritesOf(
  calls: readonly CallRecord[],
  messagesAt: (i: number) => readonly BillMessage[],
  timings: readonly CallTiming[],
  modelOf: (i: number) => string,
  beforeMessages: (i: number) => number,
  foreign: readonly number[],
): (TurnEndWrite | undefined)[] {
  const side = new Set(foreign);
  return calls.map((c, i) => {
    const prev = calls[i - 1];
    const u = c.usage;
    const p = prev?.usage;
    if (!u || !p || side.has(i) || side.has(i - 1) || modelOf(i) !== modelOf(i - 1)) return undefined;
    const msgs = requestMessages(messagesAt(i), c);
    const lastMessage = msgs[msgs.length - 1];
    if (!lastMessage || lastMessage.role !== 'user' || !lastMessage.humanTurn) return undefined;
    const before = p.input_tokens + (p.cache_creation_input_tokens ?? 0) + (p.cache_read_input_tokens ?? 0);
    const read = u.cache_read_input_tokens ?? 0;
    if (read <= before + READ_PAST_TOKENS) return undefined;
    // Its breakpoint: the block of the history up to the response that ends nearest where the next call read.
    let last = msgs.length - 1;
    while (last >= 0 && msgs[last].role !== 'assistant') last--;
    const block = blockEndingNear(msgs.slice(0, last + 1), modelOf(i), read - beforeMessages(i));
    return block === undefined ? undefined : { at: timings[i - 1].refresh, block };
  });
}

/** A side request priced as recorded (its own usage; nothing to simulate). */
export function foreignStep(call: CallRecord, model: string, billed: RecordedCall | undefined): BillStep {
  return recordedStep(billed?.model ?? model, billed?.usage ?? call.usage ?? { input_tokens: 0 });
}

/** Fit `none` to the bill of an imported session; `recorded` maps message ids to the calls billed in this row. */
export function fitNone(
  imp: ImportedSession,
  model: string,
  recorded: ReadonlyMap<string, RecordedCall>,
  offenders?: Pick<OffenderTally, 'spans' | 'commit'>,
  events?: ClientEvents,
): FitResult {
  const spans = clearedSpans(imp, events);
  const sized = sizeSession(imp, model, spans);
  const timings = callTimings(imp.calls, recorded);
  const systemOfModel = (m: string): number => {
    const p = sized.prefixes.get(m) ?? sized.prefix;
    return p.shared + p.session;
  };
  const contexts = callContexts(imp, model, timings, events, spans, systemOfModel);
  const memo = new WeakMap<BillMessage, { set: ReadonlySet<string>; m: BillMessage }>();
  const sent = sizesByCall(sized.messages, sized.rewrites);
  const messagesAt = (i: number): readonly BillMessage[] => withCleared(sent(i), contexts[i].cleared, memo);
  let prefixes = sized.prefixes;
  const prefixOf = (i: number): InferredPrefix => prefixes.get(contexts[i].model) ?? sized.prefix;
  const systemOf = (i: number): number => prefixOf(i).shared + prefixOf(i).session;
  // The message breakpoint counts from the end of everything before the transcript's messages.
  const beforeMessages = (i: number): number => systemOf(i) + (sized.earlier[i]?.tokens ?? 0);
  const placement = breakpointPlacement(imp.calls, messagesAt, (i) => contexts[i].model, beforeMessages);
  // A full miss right after a model switch or a client upgrade is the documented rules' doing, not the client's.
  const seenModels = new Set<string>();
  const firstOfModel = contexts.map((c) => !seenModels.has(c.model) && seenModels.add(c.model) !== undefined);
  // So is a read that ends at the system prompt where the earlier conversation changed (earlier-conversation.ts).
  const earlierAt = new Set(sized.earlierRewrites.map((r) => r.call));
  // And a miss after a gap past the TTL where the client's other sessions had not kept the shared prefix warm.
  // (Invalidations only split prefixes the first call did not read, never warm ones: the sized prefixes tell.)
  const othersWarm = othersKeptWarm(imp.calls, (i) => sized.prefixes.get(contexts[i].model) ?? sized.prefix);
  const pastTtl = (i: number): boolean =>
    timings[i].now > timings[i - 1].refresh + (timings[i].ttl === '1h' ? TTL_1H_MS : TTL_5M_MS);
  const explained = (i: number): boolean =>
    firstOfModel[i] ||
    earlierAt.has(i) ||
    (othersWarm[i] === false && pastTtl(i)) ||
    contexts[i].model !== contexts[i - 1].model ||
    contexts[i].prefixKey !== contexts[i - 1].prefixKey;
  const invalidations = clientInvalidations(imp.calls, systemOf, explained);
  const epochs = epochsOf(imp.calls.length, invalidations);
  prefixes = sharedFromInvalidations(prefixes, invalidations, imp.calls, (i) => contexts[i].model);
  const prefix = prefixes.get(model) ?? sized.prefix;
  // Of those, the ones that read the shared prefix alone: the client rewrote its session part of the system prompt too.
  const sessionInvalidations = invalidations.filter(
    (i) =>
      (imp.calls[i].usage?.cache_read_input_tokens ?? 0) <= prefixOf(i).shared + SYSTEM_READ_SLACK_TOKENS &&
      prefixOf(i).shared > 0 &&
      prefixOf(i).session > SYSTEM_READ_SLACK_TOKENS,
  );
  const sessionEpochs = epochsOf(imp.calls.length, sessionInvalidations);
  const bill = new SessionBill(prefixes, prefix);
  const modelAt = (i: number): string => contexts[i].model;
  const turnEndWrites = turnEndWritesOf(imp.calls, messagesAt, timings, modelAt, beforeMessages, sized.foreign);
  const plan: NonePlan = {
    calls: imp.calls,
    messages: messagesAt,
    timings,
    placement,
    contexts,
    earlier: sized.earlier,
    othersWarm,
    turnEndWrites,
  };
  const billedCall = (c: CallRecord): RecordedCall | undefined =>
    c.apiMessageId ? recorded.get(c.apiMessageId) : undefined;
  const foreign = new Set(sized.foreign);
  // One request at a time (built, priced, dropped): a long session's requests are never all alive at once.
  const steps = imp.calls.map((c, i) => {
    if (foreign.has(i)) return foreignStep(c, contexts[i].model, billedCall(c));
    const r = noneRequest(i, { ...plan, epochs, sessionEpochs });
    const s = bill.step(contexts[i].model, r, offenders?.spans);
    offenders?.commit(s, r.ttl, billedCall(imp.calls[i]) !== undefined);
    return s;
  });
  let simulatedCost = 0;
  let recordedCost = 0;
  const totalErrs: number[] = [];
  const costErrs: number[] = [];
  const others = new Map<string, number>();
  const billed = imp.calls.map((c, i) => {
    const r = billedCall(c);
    if (!r) return false;
    const rc = callCost(r.model, r.usage).input;
    simulatedCost += steps[i].cost;
    recordedCost += rc;
    if (contexts[i].model !== model && !foreign.has(i))
      others.set(contexts[i].model, (others.get(contexts[i].model) ?? 0) + 1);
    const err = sized.totalErrors[i];
    if (err !== undefined) totalErrs.push(err);
    if (rc > 0) costErrs.push(Math.abs(steps[i].cost - rc) / rc);
    return true;
  });
  let unanchoredError: number | undefined;
  const unexplained: number[] = [];
  if (invalidations.length && recordedCost > 0) {
    // The same replay without following the client's invalidations: what the documented rules alone give.
    const plain = new SessionBill(prefixes, prefix);
    const at = new Set(invalidations);
    let cost = 0;
    imp.calls.forEach((_, i) => {
      const s = foreign.has(i) ? steps[i] : plain.step(contexts[i].model, noneRequest(i, plan));
      if (billed[i]) cost += s.cost;
      if (at.has(i) && s.readTokens - steps[i].readTokens > UNEXPLAINED_MISS_TOKENS) unexplained.push(i);
    });
    unanchoredError = cost / recordedCost - 1;
  }
  // Reads the request-to-request gap alone would have lost: the TTL counted from the end of the response.
  const lateReads = steps.flatMap((s, i) => {
    const ttl = timings[i].ttl === '1h' ? TTL_1H_MS : TTL_5M_MS;
    const late =
      i > 0 &&
      billed[i] &&
      s.readTokens > 0 &&
      timings[i].now - timings[i - 1].now > ttl &&
      timings[i].now <= timings[i - 1].refresh + ttl;
    return late ? [i] : [];
  });
  const versionChanges: { call: number; from: string; to: string }[] = [];
  contexts.forEach((c, i) => {
    const prev = contexts[i - 1]?.prefixKey;
    if (i > 0 && prev && c.prefixKey && prev !== c.prefixKey)
      versionChanges.push({ call: i, from: prev, to: c.prefixKey });
  });
  return {
    prefix,
    prefixes,
    messages: sized.messages,
    timings,
    contexts,
    otherModels: [...others].map(([m, calls]) => ({ model: m, calls })),
    foreign: sized.foreign,
    versionChanges,
    lateReads,
    microcompacts: spans.map((s) => ({
      call: s.fromCall,
      results: s.results ?? s.blockIds.size,
      attachments: s.attachments ?? 0,
      attachmentsFollowed: s.attachmentsFollowed ?? 0,
    })),
    placement,
    invalidations,
    epochs,
    sessionEpochs,
    unexplained,
    unanchoredError,
    rewrites: sized.rewrites.map((r) => ({ call: r.call, tokens: r.tokens })),
    earlier: sized.earlier,
    earlierRewrites: sized.earlierRewrites,
    othersWarm,
    turnEndWrites,
    sizesAt: sent,
    steps,
    billed,
    simulatedCost,
    recordedCost,
    costError: recordedCost > 0 ? simulatedCost / recordedCost - 1 : undefined,
    medianTotalError: median(totalErrs),
    medianCallCostError: median(costErrs),
  };
}
