/**
 * Recorded spend of Claude Code JSONL, counted the way the API billed it
 * (docs/anthropic-api.md, "Counting what a recorded session cost"):
 * - one response is written on several lines that repeat its `usage`; it is
 *   counted once per `message.id` + `requestId`, keeping its final record
 *   (the one with the most output tokens: early lines hold `message_start`
 *   placeholders, the cache counts are the same on every line);
 * - 5-minute and 1-hour cache writes are priced apart
 *   (`usage.cache_creation.ephemeral_{5m,1h}_input_tokens`), output apart from input;
 * - subagent lines (`isSidechain`) are their own row, keyed by `agentId` when present;
 * - a response already counted (in this file or another, e.g. a resumed
 *   session that copied its parent's lines) is not counted again; a row is
 *   named by the session id of its own lines (the last ones: copied lines
 *   carry the parent's id);
 * - a summarizing step the API ran inside a call (server-side compaction) is
 *   billed apart in `usage.iterations` (entries other than `message`): its
 *   cost is added to the bill, its tokens kept apart from the token totals
 *   (which equal ccusage's: top-level usage only).
 * Pure: lines in, rows out. Unparseable lines are counted, never fatal.
 */
import { costOf, type PricedUsage } from '../cache/cost';
import { ClientEventsBuilder, type ClientEvents } from './client-events';
import { jsonLines } from '../import/json-lines';

/** Claude Code's model name for entries it made up itself (API errors): no model call, no bill. */
const SYNTHETIC_MODEL = '<synthetic>';

/** One billed response. */
export interface RecordedCall {
  readonly key: string;
  readonly model: string;
  readonly timestamp?: string;
  /** Time of the conversation's last line before the response (when the client sent the request), and of its last line. */
  readonly requestTimestamp?: string;
  readonly endTimestamp?: string;
  readonly usage: RecordedUsage;
}

/** The usage fields that are billed, with the write split always filled. */
export interface RecordedUsage {
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cache_creation_input_tokens: number;
  readonly cache_read_input_tokens: number;
  readonly cache_creation: { readonly ephemeral_5m_input_tokens: number; readonly ephemeral_1h_input_tokens: number };
  /** Steps billed apart inside the call (`usage.iterations` other than `message`, e.g. a compaction). */
  readonly iterations?: readonly RecordedUsage[];
}

/** Totals of a set of calls, in tokens and US dollars. */
export interface RecordedTotals {
  inputCost: number;
  outputCost: number;
  inputTokens: number;
  cacheWriteTokens: number;
  cacheWrite1hTokens: number;
  cacheReadTokens: number;
  outputTokens: number;
  /** Cost of the steps billed apart inside calls (compaction iterations), input and output side; in inputCost/outputCost too. */
  iterationCost: number;
}

/** The calls of one conversation of a file: the main one or one subagent. */
export interface RecordedConversation {
  sessionId?: string;
  readonly sidechain: boolean;
  /** `agentId` of a subagent, when the lines carry one. */
  readonly agentId?: string;
  /** Calls in file order, each billed here (not counted before). */
  readonly calls: RecordedCall[];
  /** Responses of this conversation already counted elsewhere (copied lines). */
  duplicates: number;
  /** Client versions and microcompact boundaries of its lines (Claude Code). */
  events?: ClientEvents;
  firstTimestamp?: string;
  /** The working directory its lines record (`cwd`), the last one. */
  cwd?: string;
}

export interface RecordedFile {
  readonly conversations: RecordedConversation[];
  readonly badLines: number;
  /** The text had Claude Code records (even if no billed response). */
  readonly claudeCode: boolean;
  /** Some conversation line is not a subagent's (false for `agent-*.jsonl`). */
  readonly hasMain: boolean;
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Billed usage from a raw `usage` object; writes without a split are 5-minute ones (the API default TTL). */
export function recordedUsage(u: Record<string, unknown>): RecordedUsage {
  const writes = num(u.cache_creation_input_tokens);
  const split = isObj(u.cache_creation) ? u.cache_creation : undefined;
  const w1h = split ? num(split.ephemeral_1h_input_tokens) : 0;
  const w5m = split ? num(split.ephemeral_5m_input_tokens) : writes;
  const iterations = Array.isArray(u.iterations) ? u.iterations.filter((it): it is Record<string, unknown> => isObj(it) && it.type !== 'message').map((it) => recordedUsage({ ...it, iterations: undefined })) : [];
  return {
    ...(iterations.length ? { iterations } : {}),
    input_tokens: num(u.input_tokens),
    output_tokens: num(u.output_tokens),
    cache_creation_input_tokens: writes,
    cache_read_input_tokens: num(u.cache_read_input_tokens),
    // A split that does not add up (older records) leaves the rest as 5-minute writes.
    cache_creation: { ephemeral_5m_input_tokens: Math.max(w5m, writes - w1h), ephemeral_1h_input_tokens: w1h },
  };
}

/** Input-side and output cost of one call (USD), prices from the model catalog. */
export function callCost(model: string, u: RecordedUsage): { input: number; output: number } {
  const c = costOf(u as PricedUsage, model);
  return { input: c.input + c.cacheWrite + c.cacheRead, output: c.output };
}

/** Cost of the steps billed apart inside a call (compaction iterations), USD. */
export function iterationsCost(model: string, u: RecordedUsage): { input: number; output: number } {
  let input = 0;
  let output = 0;
  for (const it of u.iterations ?? []) {
    const c = callCost(model, it);
    input += c.input;
    output += c.output;
  }
  return { input, output };
}

export function emptyTotals(): RecordedTotals {
  return { inputCost: 0, outputCost: 0, inputTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: 0, cacheReadTokens: 0, outputTokens: 0, iterationCost: 0 };
}

/** Add one call to totals (mutates `t`). */
export function addCall(t: RecordedTotals, call: RecordedCall): void {
  const c = callCost(call.model, call.usage);
  const it = iterationsCost(call.model, call.usage);
  t.inputCost += c.input + it.input;
  t.outputCost += c.output + it.output;
  t.iterationCost += it.input + it.output;
  t.inputTokens += call.usage.input_tokens;
  t.cacheWriteTokens += call.usage.cache_creation_input_tokens;
  t.cacheWrite1hTokens += call.usage.cache_creation.ephemeral_1h_input_tokens;
  t.cacheReadTokens += call.usage.cache_read_input_tokens;
  t.outputTokens += call.usage.output_tokens;
}

export function totalsOf(calls: readonly RecordedCall[]): RecordedTotals {
  const t = emptyTotals();
  for (const c of calls) addCall(t, c);
  return t;
}

/** Add `b` into `a` (mutates `a`). */
export function addTotals(a: RecordedTotals, b: RecordedTotals): void {
  for (const k of Object.keys(a) as (keyof RecordedTotals)[]) a[k] += b[k];
}

interface Pending {
  conv: RecordedConversation;
  model: string;
  timestamp?: string;
  requestTimestamp?: string;
  endTimestamp?: string;
  usage: RecordedUsage;
}

/**
 * Read the billed responses of one Claude Code JSONL text. `counted` holds
 * the keys of responses counted so far (over every file of a report); keys
 * of this file are added to it.
 */
export function readRecorded(text: string, counted: Set<string>): RecordedFile {
  const convs = new Map<string, RecordedConversation>();
  const events = new Map<string, ClientEventsBuilder>();
  const eventsOf = (rec: Record<string, unknown>): ClientEventsBuilder => {
    const id = rec.isSidechain === true ? `side:${typeof rec.agentId === 'string' ? rec.agentId : ''}` : 'main';
    let e = events.get(id);
    if (!e) events.set(id, (e = new ClientEventsBuilder()));
    return e;
  };
  const byKey = new Map<string, Pending>();
  /** Per conversation: the timestamp of its last line so far. */
  const lastTime = new Map<string, string>();
  const order: string[] = [];
  let badLines = 0;
  let claudeCode = false;
  let hasMain = false;
  const convOf = (rec: Record<string, unknown>): RecordedConversation => {
    const sidechain = rec.isSidechain === true;
    const agentId = sidechain && typeof rec.agentId === 'string' ? rec.agentId : undefined;
    const id = sidechain ? `side:${agentId ?? ''}` : 'main';
    let c = convs.get(id);
    if (!c) {
      c = { sidechain, agentId, calls: [], duplicates: 0, sessionId: typeof rec.sessionId === 'string' ? rec.sessionId : undefined };
      convs.set(id, c);
    }
    if (!c.firstTimestamp && typeof rec.timestamp === 'string') c.firstTimestamp = rec.timestamp;
    // The session's own id is on its newest lines (a resumed file starts with its parent's lines and id).
    if (typeof rec.sessionId === 'string') c.sessionId = rec.sessionId;
    if (typeof rec.cwd === 'string' && rec.cwd) c.cwd = rec.cwd;
    return c;
  };
  for (const l of jsonLines(text)) {
    if (l.error !== undefined) {
      badLines++;
      continue;
    }
    const { raw: line, rec } = l;
    if (isObj(rec) && typeof rec.sessionId === 'string') claudeCode = true;
    if (isObj(rec) && (rec.type === 'user' || rec.type === 'assistant') && rec.isSidechain !== true) hasMain = true;
    if (isObj(rec) && rec.type === 'system' && rec.subtype === 'microcompact_boundary') eventsOf(rec).microcompact(isObj(rec.microcompactMetadata) ? rec.microcompactMetadata : {});
    if (!isObj(rec)) continue;
    const time = typeof rec.timestamp === 'string' ? rec.timestamp : undefined;
    const convId = rec.isSidechain === true ? `side:${typeof rec.agentId === 'string' ? rec.agentId : ''}` : 'main';
    const before = time === undefined ? undefined : lastTime.get(convId);
    if (time !== undefined) lastTime.set(convId, time);
    if (rec.type !== 'assistant' || !isObj(rec.message)) continue;
    const msg = rec.message;
    if (typeof msg.id === 'string') eventsOf(rec).response(msg.id, rec.version);
    if (!isObj(msg.usage) || msg.model === SYNTHETIC_MODEL) continue;
    const conv = convOf(rec);
    const key = `${typeof msg.id === 'string' ? msg.id : line}|${typeof rec.requestId === 'string' ? rec.requestId : ''}`;
    const usage = recordedUsage(msg.usage);
    const seen = byKey.get(key);
    if (seen) {
      if (time !== undefined) seen.endTimestamp = time;
      // Final record: the most output tokens; on a tie the later line.
      if (usage.output_tokens >= seen.usage.output_tokens) seen.usage = usage;
      continue;
    }
    if (counted.has(key)) {
      conv.duplicates++;
      counted.add(key);
      byKey.set(key, { conv: { ...conv, calls: [] }, model: '', usage });
      continue;
    }
    counted.add(key);
    byKey.set(key, { conv, model: typeof msg.model === 'string' ? msg.model : 'unknown', timestamp: time, requestTimestamp: before, endTimestamp: time, usage });
    order.push(key);
  }
  for (const key of order) {
    const p = byKey.get(key);
    if (p) p.conv.calls.push({ key, model: p.model, timestamp: p.timestamp, requestTimestamp: p.requestTimestamp, endTimestamp: p.endTimestamp, usage: p.usage });
  }
  for (const [id, c] of convs) c.events = events.get(id);
  return { conversations: [...convs.values()], badLines, claudeCode, hasMain };
}
