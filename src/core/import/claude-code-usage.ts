/**
 * The recorded calls of Claude Code JSONL (`claudeCodeImporter.recorded`), read the way the API billed them
 * (docs/anthropic-api.md, "Counting what a recorded session cost"):
 * - one response is written on several lines that repeat its `usage`; it is
 *   counted once per `message.id` + `requestId`, keeping its final record
 *   (the one with the most output tokens: early lines hold `message_start`
 *   placeholders, the cache counts are the same on every line);
 * - 5-minute and 1-hour cache writes are kept apart
 *   (`usage.cache_creation.ephemeral_{5m,1h}_input_tokens`), output apart from input;
 * - subagent lines (`isSidechain`) are their own row, keyed by `agentId` when present; without it (Claude
 *   Code 1.0.x wrote every subagent inline, without `agentId`), by the first line of the subagent's own
 *   `parentUuid` chain: each Task starts a chain of its own, and parallel ones interleave in the file;
 * - a response already counted (in this file or another, e.g. a resumed
 *   session that copied its parent's lines) is not counted again; a row is
 *   named by the session id of its own lines (the last ones: copied lines
 *   carry the parent's id);
 * - a summarizing step the API ran inside a call (server-side compaction) is
 *   billed apart in `usage.iterations` (entries other than `message`): kept
 *   on the call's usage, apart from its top-level counts.
 * Pure: lines in, rows out. Unparseable lines are counted, never fatal.
 */
import type { ImportedSession } from '../session/types';
import { ClientEventsBuilder } from './client-events';
import { detectAndParse, type TranscriptInput } from './detect';
import { jsonLines } from './json-lines';
import { recordedUsage, type RecordedConversation, type RecordedTranscript, type RecordedUsage } from './recorded';

/** Claude Code's model name for entries it made up itself (API errors): no model call, no bill. */
const SYNTHETIC_MODEL = '<synthetic>';

export interface RecordedFile {
  readonly conversations: RecordedConversation[];
  readonly badLines: number;
  /** The text had Claude Code records (even if no billed response). */
  readonly claudeCode: boolean;
  /** Some conversation line is not a subagent's (false for `agent-*.jsonl`). */
  readonly hasMain: boolean;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The row key of a subagent line: its `agentId`, else the uuid of the first line of its `parentUuid` chain among
 * the subagent lines read so far (lines come after their parents; one without a uuid joins the last chain).
 */
export class SubagentKeys {
  private readonly rootOf = new Map<string, string>();
  private last = '';

  of(rec: Record<string, unknown>): string {
    if (typeof rec.agentId === 'string') return rec.agentId;
    const uuid = typeof rec.uuid === 'string' ? rec.uuid : undefined;
    if (!uuid) return this.last;
    let root = this.rootOf.get(uuid);
    if (root === undefined) {
      const parent = typeof rec.parentUuid === 'string' ? this.rootOf.get(rec.parentUuid) : undefined;
      this.rootOf.set(uuid, (root = parent ?? uuid));
    }
    return (this.last = root);
  }
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
  const subagents = new SubagentKeys();
  const eventsOf = (rec: Record<string, unknown>, id: string): ClientEventsBuilder => {
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
  const convOf = (rec: Record<string, unknown>, id: string): RecordedConversation => {
    const sidechain = rec.isSidechain === true;
    // A 1.0.x subagent is named by the first line of its chain (sidechainText selects its lines by it).
    const agentId = sidechain ? id.slice('side:'.length) || undefined : undefined;
    let c = convs.get(id);
    if (!c) {
      const sessionId = typeof rec.sessionId === 'string' ? rec.sessionId : undefined;
      c = { sidechain, agentId, calls: [], duplicates: 0, sessionId };
      convs.set(id, c);
    }
    if (!c.firstTimestamp && typeof rec.timestamp === 'string') c.firstTimestamp = rec.timestamp;
    if (typeof rec.cwd === 'string' && rec.cwd) c.cwd = rec.cwd;
    // The session's own id is on its newest lines (a resumed file starts with its parent's lines and id).
    if (typeof rec.sessionId === 'string') c.sessionId = rec.sessionId;
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
    if (!isObj(rec)) continue;
    const convId = rec.isSidechain === true ? `side:${subagents.of(rec)}` : 'main';
    if (rec.type === 'system' && rec.subtype === 'microcompact_boundary') {
      eventsOf(rec, convId).microcompact(isObj(rec.microcompactMetadata) ? rec.microcompactMetadata : {});
    }
    const time = typeof rec.timestamp === 'string' ? rec.timestamp : undefined;
    const before = time === undefined ? undefined : lastTime.get(convId);
    if (time !== undefined) lastTime.set(convId, time);
    if (rec.type !== 'assistant' || !isObj(rec.message)) continue;
    const msg = rec.message;
    if (typeof msg.id === 'string') eventsOf(rec, convId).response(msg.id, rec.version);
    if (!isObj(msg.usage) || msg.model === SYNTHETIC_MODEL) continue;
    const conv = convOf(rec, convId);
    const requestId = typeof rec.requestId === 'string' ? rec.requestId : '';
    const key = `${typeof msg.id === 'string' ? msg.id : line}|${requestId}`;
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
    const model = typeof msg.model === 'string' ? msg.model : 'unknown';
    byKey.set(key, { conv, model, timestamp: time, requestTimestamp: before, endTimestamp: time, usage });
    order.push(key);
  }
  for (const key of order) {
    const p = byKey.get(key);
    if (!p) continue;
    const { model, timestamp, requestTimestamp, endTimestamp, usage } = p;
    p.conv.calls.push({ key, model, timestamp, requestTimestamp, endTimestamp, usage });
  }
  for (const [id, c] of convs) c.events = events.get(id);
  return { conversations: [...convs.values()], badLines, claudeCode, hasMain };
}

/** The lines of one subagent of a main file, as their own transcript. */
export function sidechainText(text: string, agentId: string | undefined): string {
  const out: string[] = [];
  const subagents = new SubagentKeys();
  for (const l of jsonLines(text)) {
    const r = l.rec;
    const side = isObj(r) && r.isSidechain === true;
    const ours = side && (agentId === undefined || subagents.of(r) === agentId);
    if (ours) out.push(l.raw);
  }
  return out.join('\n');
}

/**
 * `claudeCodeImporter.recorded`: each conversation of the file (main, subagents) with its billed calls; a
 * subagent of a main file replays its own lines only. A file of Claude Code records without any billed
 * response is left out of the report; other text holds no usage.
 */
export function claudeCodeRecorded(input: TranscriptInput, counted: Set<string>): RecordedTranscript {
  const { text, file } = input;
  const rec = readRecorded(text, counted);
  const conversations = rec.conversations.map((c) => ({
    ...c,
    session: (): ImportedSession =>
      detectAndParse(c.sidechain && rec.hasMain ? sidechainText(text, c.agentId) : text, file),
  }));
  return { conversations, badLines: rec.badLines, nothingBilled: rec.claudeCode && !conversations.length };
}
