/**
 * Journal records: one JSON object per line in `<dir>/<sessionId>.jsonl`.
 *
 * Every record has `v` (format version), `type`, `id` and `ts`. Ids are
 * deterministic for session records (derived from the message, overlay or call
 * they describe), so writing or loading the same fact twice is recognized and
 * skipped: replaying a journal never doubles history.
 */
import { isCallVerdict, type CallVerdict } from '../../protocol/verdicts';
import { isPrintDelta, type PrintDelta } from '../cache/print-delta';
import type {
  Author,
  CallRecord,
  CallUsage,
  ContentBlockParam,
  LogMessage,
  MessageMeta,
  Overlay,
  Role,
  TextBlockParam,
  ToolDefinition,
} from '../session';

export const JOURNAL_VERSION = 1;
export const JOURNAL_EXTENSION = '.jsonl';

export type RecordType =
  | 'header'
  | 'message'
  | 'overlay-added'
  | 'overlay-removed'
  | 'call'
  | 'usage'
  | 'decision'
  | 'calibration'
  | 'compression'
  | 'verdict';

interface RecordBase {
  readonly v: typeof JOURNAL_VERSION;
  readonly id: string;
  /** When the record was written (ISO 8601). */
  readonly ts: string;
}

export interface HeaderRecord extends RecordBase {
  readonly type: 'header';
  readonly sessionId: string;
  readonly system?: string | TextBlockParam[];
  readonly tools?: ToolDefinition[];
  readonly model?: string;
}

/** A log message without what the Session derives (seq, block ids, tool names). */
export interface StoredMessage {
  readonly id: string;
  readonly role: Role;
  readonly content: readonly ContentBlockParam[];
  readonly meta: MessageMeta;
}

export interface MessageRecord extends RecordBase {
  readonly type: 'message';
  readonly message: StoredMessage;
}

export interface OverlayAddedRecord extends RecordBase {
  readonly type: 'overlay-added';
  readonly overlay: Overlay;
}

export interface OverlayRemovedRecord extends RecordBase {
  readonly type: 'overlay-removed';
  readonly overlayId: string;
  readonly by: Author;
}

export interface CallJournalRecord extends RecordBase {
  readonly type: 'call';
  readonly call: CallRecord;
}

/** Usage that arrived after its call was recorded (e.g. at the end of a stream). */
export interface UsageRecord extends RecordBase {
  readonly type: 'usage';
  readonly callIndex: number;
  readonly usage: CallUsage;
}

/** A trimming decision (the "why" log); its shape belongs to src/core/trimming. */
export interface DecisionRecord extends RecordBase {
  readonly type: 'decision';
  readonly decision: unknown;
}

/** A token calibration sample; its shape belongs to src/core/tokens. */
export interface CalibrationRecord extends RecordBase {
  readonly type: 'calibration';
  readonly calibration: unknown;
}

/** A history-compression (summary) call: billed like any call, not part of the conversation. */
export interface CompressionRecord extends RecordBase {
  readonly type: 'compression';
  /** The conversation call it was made before. */
  readonly callIndex: number;
  readonly model: string;
  readonly usage: CallUsage;
}

/** A call's cache verdict (src/core/cache/verdict.ts): numbered in its lineage (the client's session across epochs). */
export interface VerdictRecord extends RecordBase {
  readonly type: 'verdict';
  /** The client session the call belongs to across epochs (`key:<id>` or `anon:<first session>`). */
  readonly lineage: string;
  readonly verdict: CallVerdict;
  /**
   * The fingerprint of the call's request, delta-encoded against the previous one of the
   * lineage in this file (cache/print-delta.ts): a restarted proxy compares the next call with it.
   * Absent in journals written before it was kept (the next call is then a first call).
   */
  readonly print?: PrintDelta;
  /** The response's id (the next call's `diagnostics.previous_message_id`). */
  readonly responseId?: string;
}

export type JournalRecord =
  | HeaderRecord
  | MessageRecord
  | OverlayAddedRecord
  | OverlayRemovedRecord
  | CallJournalRecord
  | UsageRecord
  | DecisionRecord
  | CalibrationRecord
  | CompressionRecord
  | VerdictRecord;

/** Distributive Omit of the fields every record gets when written. */
export type NewRecord = JournalRecord extends infer R ? (R extends JournalRecord ? Omit<R, 'v' | 'ts'> : never) : never;

/**
 * Record ids. The n-th add (or removal) of the same overlay id gets `#n` (strategies may reuse ids after a restore).
 */
export const recordIds = {
  header: (): string => 'header',
  message: (messageId: string): string => `msg:${messageId}`,
  overlayAdded: (overlayId: string, nth: number): string => `ov+:${overlayId}${nth > 1 ? `#${nth}` : ''}`,
  overlayRemoved: (overlayId: string, nth: number): string => `ov-:${overlayId}${nth > 1 ? `#${nth}` : ''}`,
  call: (index: number): string => `call:${index}`,
  usage: (callIndex: number): string => `usage:${callIndex}`,
  decision: (id: string): string => `decision:${id}`,
  calibration: (id: string): string => `calibration:${id}`,
  compression: (id: string): string => `compression:${id}`,
  verdict: (callIndex: number): string => `verdict:${callIndex}`,
};

export function storedMessage(m: LogMessage): StoredMessage {
  return { id: m.id, role: m.role, content: m.blocks.map((b) => b.param), meta: m.meta };
}

const RECORD_TYPES: ReadonlySet<string> = new Set<RecordType>([
  'header',
  'message',
  'overlay-added',
  'overlay-removed',
  'call',
  'usage',
  'decision',
  'calibration',
  'compression',
  'verdict',
]);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What a record of each type must carry beyond v/type/id; the problem, or undefined. */
function checkPayload(r: Record<string, unknown>): string | undefined {
  switch (r.type) {
    case 'header':
      return typeof r.sessionId === 'string' ? undefined : 'header without sessionId';
    case 'message': {
      const m = r.message;
      if (
        !isObject(m) ||
        typeof m.id !== 'string' ||
        (m.role !== 'user' && m.role !== 'assistant') ||
        !Array.isArray(m.content)
      ) {
        return 'message record without id, role or content';
      }
      return isObject(m.meta) ? undefined : 'message record without meta';
    }
    case 'overlay-added':
      return isObject(r.overlay) && typeof r.overlay.id === 'string' && typeof r.overlay.kind === 'string'
        ? undefined
        : 'overlay record without id or kind';
    case 'overlay-removed':
      return typeof r.overlayId === 'string' && typeof r.by === 'string'
        ? undefined
        : 'overlay removal without overlayId or by';
    case 'call':
      return isObject(r.call) && typeof r.call.index === 'number' && typeof r.call.at === 'number'
        ? undefined
        : 'call record without index or at';
    case 'usage':
      return typeof r.callIndex === 'number' && isObject(r.usage)
        ? undefined
        : 'usage record without callIndex or usage';
    case 'compression':
      return typeof r.callIndex === 'number' && typeof r.model === 'string' && isObject(r.usage)
        ? undefined
        : 'compression record without callIndex, model or usage';
    case 'verdict':
      return typeof r.lineage === 'string' && isCallVerdict(r.verdict)
        ? undefined
        : 'verdict record without lineage or a valid verdict';
    default:
      return undefined;
  }
}

/** Optional fields of a verdict record that do not have their shape: left out (the verdict itself is kept). */
function dropInvalidVerdictFields(r: Record<string, unknown>): string | undefined {
  const bad = [
    r.print !== undefined && !isPrintDelta(r.print) ? 'print' : '',
    r.responseId !== undefined && typeof r.responseId !== 'string' ? 'responseId' : '',
  ].filter(Boolean);
  for (const k of bad) delete r[k];
  return bad.length ? `verdict record with an invalid ${bad.join(' and ')}; ignored` : undefined;
}

/** Parse one line into a record (with a warning when part of it was left out), or say what is wrong with it. */
export function parseRecord(line: string): { record: JournalRecord; warning?: string } | { error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return { error: 'not valid JSON' };
  }
  if (!isObject(raw)) return { error: 'not a JSON object' };
  if (raw.v !== JOURNAL_VERSION)
    return { error: `unsupported record version ${JSON.stringify(raw.v)} (this build reads v${JOURNAL_VERSION})` };
  if (typeof raw.type !== 'string' || !RECORD_TYPES.has(raw.type))
    return { error: `unknown record type ${JSON.stringify(raw.type)}` };
  if (typeof raw.id !== 'string' || !raw.id) return { error: 'record without id' };
  const problem = checkPayload(raw);
  if (problem) return { error: problem };
  const warning = raw.type === 'verdict' ? dropInvalidVerdictFields(raw) : undefined;
  return warning ? { record: raw as unknown as JournalRecord, warning } : { record: raw as unknown as JournalRecord };
}

export interface JournalLine {
  /** 1-based line number in the file. */
  readonly line: number;
  readonly text: string;
}

/**
 * Split a journal file into complete lines. A last line without its newline
 * is torn (the writer died mid-append) and returned separately.
 */
export function splitJournal(text: string): { lines: JournalLine[]; torn?: JournalLine } {
  const parts = text.split('\n');
  const tail = parts.pop() ?? '';
  const lines: JournalLine[] = [];
  parts.forEach((t, i) => {
    if (t.trim()) lines.push({ line: i + 1, text: t });
  });
  return tail ? { lines, torn: { line: parts.length + 1, text: tail } } : { lines };
}
