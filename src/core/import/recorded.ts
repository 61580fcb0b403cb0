/**
 * What an importer hands the report: the calls a transcript records as billed,
 * with their usage and model, grouped by conversation. This is the contract
 * between import/ and report/ (docs/ARCHITECTURE.md, "How to add a client
 * format"): an importer that can read its client's usage implements
 * `TranscriptImporter.recorded` (detect.ts) and returns a `RecordedTranscript`;
 * the report prices whatever it gets and never asks which format it came from.
 *
 * Clients keep usage in different places: Claude Code on each assistant line
 * (claude-code-usage.ts), Cline in `ui_messages.json` beside the history
 * (cline-usage.ts). Each importer says where, and why when it cannot.
 */
import type { ImportedSession } from '../session/types';
import type { ClientEvents } from './client-events';

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

/** One billed response. */
export interface RecordedCall {
  /**
   * `<id>|<request id>`: unique over every file of a report (the dedupe key of copied responses). The part
   * before the last `|` is the `apiMessageId` of the call in the conversation's import that this bill belongs to.
   */
  readonly key: string;
  readonly model: string;
  /** ISO time of the response. */
  readonly timestamp?: string;
  /** Time of the conversation's last line before the response (when the client sent the request). */
  readonly requestTimestamp?: string;
  /** Time of the response's last line. */
  readonly endTimestamp?: string;
  readonly usage: RecordedUsage;
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

/** A recorded conversation as the report consumes it: its bill, its replayable import and what to tell the reader. */
export interface RecordedSession extends RecordedConversation {
  /**
   * The import whose calls the bill belongs to: each billed call's `apiMessageId` is its `RecordedCall.key`
   * before the last `|`, and it carries its usage (`CallRecord.usage`, and `meta.usage` on the response), off
   * which the replay sizes the blocks. May throw `ImportError`: the row then keeps its recorded spend, unreplayed.
   */
  session(): ImportedSession;
  /** Notes appended to the row's fit notes (e.g. requests billed but not in the history). */
  readonly notes?: readonly string[];
}

/** What a transcript records as billed: `TranscriptImporter.recorded`'s answer. */
export interface RecordedTranscript {
  /** Conversations with billed calls; empty when none could be read. */
  readonly conversations: readonly RecordedSession[];
  /** Lines that could not be read (line-oriented formats); 0 for a whole-JSON document. */
  readonly badLines: number;
  /** With no conversation: why usage cannot be read, shown on the file's row (a generic reason when absent). */
  readonly reason?: string;
  /** With no conversation: the file is the client's own but holds no billed response, so the report leaves it out. */
  readonly nothingBilled?: boolean;
  /** With no conversation: the import, when `recorded` made it already (saves a second parse). */
  readonly parsed?: ImportedSession;
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
  const iterations = Array.isArray(u.iterations)
    ? u.iterations
        .filter((it): it is Record<string, unknown> => isObj(it) && it.type !== 'message')
        .map((it) => recordedUsage({ ...it, iterations: undefined }))
    : [];
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
