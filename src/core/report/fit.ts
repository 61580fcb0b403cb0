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
import { clearedAt, requestMessages, sizeSession, type ClearedSpan } from './sizing';
import { sizesByCall } from './rewrites';
import { TTL_1H_MS, TTL_5M_MS } from '../cache/simulator';

/** Below this many calls the fit says little (the bar: sessions with ≥ 10 calls). */
export const MIN_CALLS_FOR_FIT = 10;

/**
 * How long past its TTL a cache entry was still read, in the recorded sessions: 5-minute entries were
 * read up to 5 min 6 s after the end of the response that last used them (request time: the client's last
 * line before the call), and missed from 5 min 21 s on (entire-dev, the half the fit was tuned on).
 */
export const TTL_SLACK_MS = 15_000;

export interface CallTiming {
  /**
   * When the request reached the cache (the client's last line before it, less {@link TTL_SLACK_MS}); else its
   * response's first line.
   */
  readonly now: number;
  /** When the entries it used start their TTL again: the end of its response (its last line). */
  readonly refresh: number;
  /** TTL of the message breakpoint. */
  readonly ttl: '5m' | '1h';
  /** TTL of the system-prompt breakpoints. */
  readonly systemTtl: '5m' | '1h';
}

/**
 * Time of each call: its response's first line (else previous + 1 s). The
 * message before it is no better a clock: a merged user message carries the
 * time of its first line, minutes before the request when the user typed
 * after tool results.
 *
 * TTL per breakpoint, from the recorded write split: the API requires
 * longer-TTL breakpoints before shorter ones, so a call that wrote both
 * 1-hour and 5-minute tokens had its system breakpoints at 1 h and its message
 * breakpoint at 5 m; a call that wrote only 1-hour tokens had 1 h on the
 * message breakpoint (and the system ones before it); only 5-minute writes
 * set the message breakpoint to 5 m. A call that wrote nothing keeps the last
 * known TTLs (Claude Code does not change them mid-session).
 */
export function callTimings(calls: readonly CallRecord[], recorded: ReadonlyMap<string, RecordedCall>): CallTiming[] {
  let now = 0;
  let ttl: '5m' | '1h' = '5m';
  let systemTtl: '5m' | '1h' = '5m';
  return calls.map((c) => {
    const r = c.apiMessageId ? recorded.get(c.apiMessageId) : undefined;
    const t = c.timestamp ? Date.parse(c.timestamp) : NaN;
    const sent = r?.requestTimestamp ? Date.parse(r.requestTimestamp) : NaN;
    const done = r?.endTimestamp ? Date.parse(r.endTimestamp) : NaN;
    now =
      Number.isFinite(sent) && sent <= (Number.isFinite(t) ? t : Infinity)
        ? sent - TTL_SLACK_MS
        : Number.isFinite(t)
          ? t
          : now + 1000;
    const refresh = Number.isFinite(done) && done >= now ? done : now;
    const split =
      r?.usage.cache_creation ??
      (
        c.usage as
          { cache_creation?: { ephemeral_5m_input_tokens?: number; ephemeral_1h_input_tokens?: number } } | undefined
      )?.cache_creation;
    const w1h = split?.ephemeral_1h_input_tokens ?? 0;
    const w5m = split?.ephemeral_5m_input_tokens ?? 0;
    if (w1h > 0 && w5m > 0) [systemTtl, ttl] = ['1h', '5m'];
    else if (w1h > 0) [systemTtl, ttl] = ['1h', '1h'];
    else if (w5m > 0) ttl = '5m';
    return { now, refresh, ttl, systemTtl };
  });
}

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
export function clientInvalidations(
  calls: readonly CallRecord[],
  systemTokens: number | ((i: number) => number),
  explained?: (i: number) => boolean,
): number[] {
  const out: number[] = [];
  calls.forEach((c, i) => {
    const u = c.usage;
    if (i === 0 || !u || explained?.(i)) return;
    const sys = typeof systemTokens === 'function' ? systemTokens(i) : systemTokens;
    const read = u.cache_read_input_tokens ?? 0;
    const total = u.input_tokens + (u.cache_creation_input_tokens ?? 0) + read;
    if (read <= sys + SYSTEM_READ_SLACK_TOKENS && total > sys + SYSTEM_READ_SLACK_TOKENS) out.push(i);
  });
  return out;
}

/**
 * Where the shared part of the system prompt ends, when the first call did not tell (it read nothing): a
 * client invalidation reads that part alone (tools and the stable system blocks, unchanged while the
 * session part and the messages are rewritten), so the first one that reads less than the whole prefix
 * splits it there. The shared part was cold at the first call: other sessions do not keep it warm.
 */
export function sharedFromInvalidations(
  prefixes: ReadonlyMap<string, InferredPrefix>,
  invalidations: readonly number[],
  calls: readonly CallRecord[],
  modelOf: (i: number) => string,
): ReadonlyMap<string, InferredPrefix> {
  // Per model, the reads that end inside the prefix. A read ends on a breakpoint, and the only one inside
  // the prefix is where the shared part ends: reads that disagree are no such read, and split nothing.
  const reads = new Map<string, number[]>();
  for (const i of invalidations) {
    const m = modelOf(i);
    const p = prefixes.get(m);
    const read = calls[i].usage?.cache_read_input_tokens ?? 0;
    if (!p || p.shared > 0 || read <= SYSTEM_READ_SLACK_TOKENS || read >= p.session - SYSTEM_READ_SLACK_TOKENS)
      continue;
    const r = reads.get(m);
    if (r) r.push(read);
    else reads.set(m, [read]);
  }
  if (!reads.size) return prefixes;
  const out = new Map(prefixes);
  for (const [m, r] of reads) {
    const p = prefixes.get(m);
    if (!p || Math.max(...r) - Math.min(...r) > SYSTEM_READ_SLACK_TOKENS) continue;
    out.set(m, { shared: r[0], sharedWarm: false, session: p.session - r[0] });
  }
  return out;
}

/** Each call's epoch: how many client invalidations happened at or before it. */
export function epochsOf(calls: number, invalidations: readonly number[]): number[] {
  const at = new Set(invalidations);
  let e = 0;
  return Array.from({ length: calls }, (_, i) => (at.has(i) ? ++e : e));
}

/**
 * The request of call `i`, as sent (no trimming); `messages` per call when the client cleared results (microcompact).
 */
export function noneRequest(
  i: number,
  calls: readonly CallRecord[],
  messages: readonly BillMessage[] | ((i: number) => readonly BillMessage[]),
  timings: readonly CallTiming[],
  placement: readonly (string | undefined)[] = [],
  epochs: readonly number[] = [],
  contexts: readonly CallContext[] = [],
  sessionEpochs: readonly number[] = [],
): BillRequest {
  return {
    now: timings[i].now,
    refresh: timings[i].refresh,
    ttl: timings[i].ttl,
    systemTtl: contexts[i]?.systemTtl ?? timings[i].systemTtl,
    prefixKey: contexts[i]?.prefixKey,
    messages: requestMessages(typeof messages === 'function' ? messages(i) : messages, calls[i]),
    breakpointAt: placement[i],
    epoch: epochs[i],
    sessionEpoch: sessionEpochs[i],
  };
}

/**
 * Microcompact boundaries as cleared spans: from the first response after the boundary, the named
 * tool results and the named attachments the importer holds as blocks (`attachmentBlocks`). A cleared
 * attachment counts as a cleared result's placeholder (sizing.ts `CLEARED_RESULT_TOKENS`); how Claude Code
 * marks it is not recorded, and a few tokens either way do not move the fit.
 */
export function clearedSpans(imp: ImportedSession, events: ClientEvents | undefined): ClearedSpan[] {
  if (!events?.microcompacts.length) return [];
  const byTool = new Map<string, string>();
  for (const m of imp.messages)
    for (const b of m.blocks) if (b.param.type === 'tool_result') byTool.set(b.param.tool_use_id, b.id);
  const out: ClearedSpan[] = [];
  for (const mc of events.microcompacts) {
    const fromCall = mc.firstResponseId ? imp.calls.findIndex((c) => c.apiMessageId === mc.firstResponseId) : -1;
    if (fromCall < 0) continue;
    const results = mc.toolIds.map((t) => byTool.get(t)).filter((x): x is string => x !== undefined);
    const attachments = mc.attachmentUuids
      .map((u) => imp.attachmentBlocks?.get(u))
      .filter((x): x is string => x !== undefined);
    const blockIds = new Set([...results, ...attachments]);
    if (blockIds.size || mc.attachmentUuids.length)
      out.push({
        fromCall,
        blockIds,
        results: new Set(results).size,
        attachments: mc.attachmentUuids.length,
        attachmentsFollowed: new Set(attachments).size,
      });
  }
  return out.sort((a, b) => a.fromCall - b.fromCall);
}

/**
 * Per call: model, client version (carried forward where a line has none), system TTL, cleared
 * results (one set object per span count). A version change counts as a new system prompt only
 * where the recording shows it: the call read nothing past the system prompt (older clients did
 * not stamp their version into it).
 */
function callContexts(
  imp: ImportedSession,
  model: string,
  timings: readonly CallTiming[],
  events: ClientEvents | undefined,
  spans: readonly ClearedSpan[],
  systemOf: (model: string) => number,
): CallContext[] {
  let version: string | undefined;
  let active = -1;
  let set: ReadonlySet<string> | undefined;
  return imp.calls.map((c, i) => {
    const m = c.model ?? model;
    const v = c.apiMessageId ? events?.versionOf.get(c.apiMessageId) : undefined;
    if (v && v !== version) {
      const read = c.usage?.cache_read_input_tokens ?? 0;
      if (version === undefined || !c.usage || read <= systemOf(m) + SYSTEM_READ_SLACK_TOKENS) version = v;
    }
    const n = spans.filter((s) => s.fromCall <= i).length;
    if (n !== active) [active, set] = [n, clearedAt(spans, i)];
    return { model: m, prefixKey: version, systemTtl: timings[i].systemTtl, cleared: set };
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
  const placement = breakpointPlacement(imp.calls, messagesAt, (i) => contexts[i].model, systemOf);
  // A full miss right after a model switch or a client upgrade is the documented rules' doing, not the client's.
  const seenModels = new Set<string>();
  const firstOfModel = contexts.map((c) => !seenModels.has(c.model) && seenModels.add(c.model) !== undefined);
  const explained = (i: number): boolean =>
    firstOfModel[i] ||
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
  const billedCall = (c: CallRecord): RecordedCall | undefined =>
    c.apiMessageId ? recorded.get(c.apiMessageId) : undefined;
  const foreign = new Set(sized.foreign);
  // One request at a time (built, priced, dropped): a long session's requests are never all alive at once.
  const steps = imp.calls.map((c, i) => {
    if (foreign.has(i)) return foreignStep(c, contexts[i].model, billedCall(c));
    const r = noneRequest(i, imp.calls, messagesAt, timings, placement, epochs, contexts, sessionEpochs);
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
      const s = foreign.has(i)
        ? steps[i]
        : plain.step(contexts[i].model, noneRequest(i, imp.calls, messagesAt, timings, placement, [], contexts));
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
