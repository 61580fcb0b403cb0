/**
 * Recorded usage of a Cline task. Cline keeps no `usage` in
 * `api_conversation_history.json`; it records each API request in the task's
 * `ui_messages.json` beside it: a `say: "api_req_started"` message whose
 * `text` is JSON with `tokensIn` (uncached input, as the Anthropic API's
 * `input_tokens`), `tokensOut`, `cacheWrites`, `cacheReads` and `cost`,
 * filled in when the response has streamed. Requests removed from the task
 * (checkpoint restores) survive as one `say: "deleted_api_reqs"` total.
 *
 * Each request is paired with the response it produced in the history: the
 * latest unpaired request started at or before the response was saved (both
 * files carry Cline's `ts`, ms since epoch). Requests without a response
 * (failed, cancelled, retried) and deleted totals are billed, not replayed.
 * Where usage cannot be read, the reason is said, never guessed.
 *
 * `clineUsageImporter` is Cline's importer (cline.ts) with this reader behind
 * the importer contract's `recorded` (recorded.ts): the report prices a Cline
 * task as it prices any other transcript.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { CallRecord, ImportedSession } from '../session/types';
import { CLINE_FILE_NAME, clineImporter } from './cline';
import type { TranscriptImporter, TranscriptInput } from './detect';
import type { RecordedCall, RecordedConversation, RecordedTranscript, RecordedUsage } from './recorded';

/** The file beside `api_conversation_history.json` where Cline records each request's usage. */
export const CLINE_UI_FILE_NAME = 'ui_messages.json';

/** Model id when neither the history nor the task says which model answered. */
const UNKNOWN_MODEL = 'unknown';

/** One request Cline recorded with token counts. */
export interface ClineRequest {
  readonly ts: number;
  readonly usage: RecordedUsage;
  /** A `deleted_api_reqs` total (requests removed from the task), not one request. */
  readonly deleted: boolean;
}

export type ClineUsage =
  | { readonly ok: true; readonly requests: ClineRequest[]; readonly unfinished: number }
  | { readonly ok: false; readonly reason: string };

/** What a Cline task contributes to a report row: its conversation and the import with calls paired to requests. */
export type ClineRecorded =
  | { readonly ok: true; readonly conv: RecordedConversation; readonly imp: ImportedSession; readonly notes: string[] }
  | { readonly ok: false; readonly reason: string };

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function count(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/** The ui_messages.json beside a Cline history file. */
export function clineUiFile(historyFile: string): string {
  return join(dirname(historyFile), CLINE_UI_FILE_NAME);
}

/** Token counts of one `api_req_started` / `deleted_api_reqs` text, or undefined when it has none (not finished). */
function usageOfText(text: unknown): RecordedUsage | undefined {
  if (typeof text !== 'string') return undefined;
  let info: unknown;
  try {
    info = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObj(info)) return undefined;
  const input = count(info.tokensIn);
  const output = count(info.tokensOut);
  const writes = count(info.cacheWrites) ?? 0;
  const reads = count(info.cacheReads) ?? 0;
  if (input === undefined && output === undefined && !writes && !reads) return undefined;
  return {
    input_tokens: input ?? 0,
    output_tokens: output ?? 0,
    cache_creation_input_tokens: writes,
    cache_read_input_tokens: reads,
    // Cline writes the cache with the default (5-minute) TTL.
    cache_creation: { ephemeral_5m_input_tokens: writes, ephemeral_1h_input_tokens: 0 },
  };
}

/** The requests a `ui_messages.json` text records, or why none can be read. */
export function parseClineUiMessages(text: string): ClineUsage {
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch {
    return { ok: false, reason: `${CLINE_UI_FILE_NAME} is not valid JSON` };
  }
  if (!Array.isArray(list)) return { ok: false, reason: `${CLINE_UI_FILE_NAME} is not a message array` };
  const requests: ClineRequest[] = [];
  let started = 0;
  for (const m of list) {
    if (!isObj(m) || m.type !== 'say' || (m.say !== 'api_req_started' && m.say !== 'deleted_api_reqs')) continue;
    if (m.say === 'api_req_started') started++;
    const usage = usageOfText(m.text);
    if (usage) requests.push({ ts: count(m.ts) ?? 0, usage, deleted: m.say === 'deleted_api_reqs' });
  }
  if (!requests.length)
    return {
      ok: false,
      reason: started
        ? `${CLINE_UI_FILE_NAME} has ${started} request(s) but no token counts`
        : `${CLINE_UI_FILE_NAME} records no API request`,
    };
  return { ok: true, requests, unfinished: started - requests.filter((r) => !r.deleted).length };
}

/** The recorded requests of the task a history file belongs to. */
export function readClineUsage(historyFile: string): ClineUsage {
  let text: string;
  try {
    text = readFileSync(clineUiFile(historyFile), 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return {
      ok: false,
      reason:
        code === 'ENOENT' ? `${CLINE_UI_FILE_NAME} missing` : `${CLINE_UI_FILE_NAME} unreadable (${code ?? 'error'})`,
    };
  }
  return parseClineUiMessages(text);
}

/**
 * Pair calls (responses in the history) with requests: each call takes the
 * latest unpaired request started at or before it was saved and after the
 * previous call's request. Without timestamps (on the calls or the
 * requests), pairs in order when the counts agree; otherwise leaves every
 * call unpaired.
 */
export function pairRequests(calls: readonly CallRecord[], requests: readonly ClineRequest[]): (number | undefined)[] {
  const live = requests.map((r, i) => ({ r, i })).filter((x) => !x.r.deleted);
  const timed =
    calls.every((c) => c.timestamp && Number.isFinite(Date.parse(c.timestamp))) && live.every((x) => x.r.ts > 0);
  if (!timed) {
    return live.length === calls.length ? live.map((x) => x.i) : calls.map(() => undefined);
  }
  let next = 0;
  return calls.map((c) => {
    const t = Date.parse(c.timestamp ?? '');
    let pick: number | undefined;
    while (next < live.length && live[next].r.ts <= t) pick = next++;
    return pick === undefined ? undefined : live[pick].i;
  });
}

/**
 * The import with each paired call (and its response message) carrying its
 * request's id and usage, as a Claude Code import does: the fit sizes blocks
 * off that usage and bills the call against the request.
 */
function withUsage(
  imp: ImportedSession,
  pairs: readonly (number | undefined)[],
  requests: readonly ClineRequest[],
  idOf: (i: number) => string,
): ImportedSession {
  const usageAt = new Map<number, RecordedUsage>();
  const calls = imp.calls.map((c, k) => {
    const p = pairs[k];
    if (p === undefined) return { ...c, apiMessageId: undefined, usage: undefined };
    usageAt.set(c.at, requests[p].usage);
    return { ...c, apiMessageId: idOf(p), usage: requests[p].usage };
  });
  const messages = imp.messages.map((m) => {
    const u = usageAt.get(m.seq);
    return u ? { ...m, meta: { ...m.meta, usage: u } } : m;
  });
  return { ...imp, calls, messages };
}

/**
 * The recorded conversation of a Cline task (one row) and its import with
 * each paired call keyed to its request, so the fit replays against the bill.
 */
export function clineRecorded(file: string, imp: ImportedSession, counted: Set<string>): ClineRecorded {
  const usage = readClineUsage(file);
  if (!usage.ok) return { ok: false, reason: `no usage recorded: ${usage.reason}` };
  const task = basename(dirname(file));
  const pairs = pairRequests(imp.calls, usage.requests);
  const idOf = (i: number): string => `cline:${task}:${i}`;
  const modelAt: (string | undefined)[] = [];
  pairs.forEach((p, k) => {
    if (p !== undefined) modelAt[p] = imp.calls[k].model;
  });
  let model = imp.model ?? UNKNOWN_MODEL;
  const calls: RecordedCall[] = usage.requests.map((r, i) => {
    model = modelAt[i] ?? model;
    const key = `${idOf(i)}|`;
    counted.add(key);
    return { key, model, timestamp: r.ts ? new Date(r.ts).toISOString() : undefined, usage: r.usage };
  });
  const paired = withUsage(imp, pairs, usage.requests, idOf);
  const notes: string[] = [];
  if (imp.calls.length && pairs.every((p) => p === undefined)) {
    notes.push(
      `no response could be paired with a request: ${usage.requests.length} request(s) in ${CLINE_UI_FILE_NAME} ` +
        `for ${imp.calls.length} response(s), without timestamps to place them; recorded spend only`,
    );
  }
  const unpaired = usage.requests.filter((r, i) => !r.deleted && !pairs.includes(i)).length;
  if (unpaired)
    notes.push(
      `${unpaired} request(s) in ${CLINE_UI_FILE_NAME} have no response in the history (failed, cancelled or ` +
        'retried): billed, not replayed',
    );
  const deleted = usage.requests.filter((r) => r.deleted).length;
  if (deleted)
    notes.push(`${deleted} total(s) of requests deleted from the task (checkpoint restores): billed, not replayed`);
  if (usage.unfinished > 0)
    notes.push(`${usage.unfinished} request(s) in ${CLINE_UI_FILE_NAME} recorded no token counts (never finished)`);
  const conv: RecordedConversation = {
    sessionId: task,
    sidechain: false,
    calls,
    duplicates: 0,
    firstTimestamp: calls[0]?.timestamp,
  };
  return { ok: true, conv, imp: paired, notes };
}

/** `clineUsageImporter.recorded`: the task's one conversation paired with its requests, or why usage cannot be read. */
function recordedTask(input: TranscriptInput, counted: Set<string>): RecordedTranscript {
  const imp = clineImporter.parse(input);
  const r = clineRecorded(input.file, imp, counted);
  if (!r.ok) return { conversations: [], badLines: 0, reason: r.reason, parsed: imp };
  return { conversations: [{ ...r.conv, session: () => r.imp, notes: r.notes }], badLines: 0 };
}

/** Cline's importer with its usage reader: what the import index registers. */
export const clineUsageImporter: TranscriptImporter = {
  ...clineImporter,
  recorded: recordedTask,
  // Usage can change while the history does not: the report's cache keys on both files.
  companions: (file) => (basename(file) === CLINE_FILE_NAME ? [clineUiFile(file)] : []),
  walks: (name) => name === CLINE_FILE_NAME,
};
