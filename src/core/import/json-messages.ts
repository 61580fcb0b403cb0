/**
 * Shared by the whole-JSON formats (Cline, plain Anthropic JSON): validate an
 * array of `{role, content}` records and build the imported session with one
 * call per assistant message.
 */
import { makeMessage } from '../session/log';
import type {
  CallRecord,
  ContentBlockParam,
  ImportedSession,
  ImportIssue,
  LogMessage,
  MessageMeta,
  Role,
  TranscriptFormat,
} from '../session/types';
import { ImportError } from './errors';
import { checkHistory } from './history-check';
import { checkContent, describe, isRecord, type JsonRecord } from './util';

/** One validated message record: its index in the array, role, content blocks and the raw record (for extra fields). */
export interface RawMessage {
  readonly index: number;
  readonly role: Role;
  readonly blocks: ContentBlockParam[];
  readonly rec: JsonRecord;
}

/** True when `v` is a non-empty array whose elements all look like messages (`role` and `content` keys). */
export function isMessageArray(v: unknown): v is JsonRecord[] {
  return Array.isArray(v) && v.length > 0 && v.every((m) => isRecord(m) && 'role' in m && 'content' in m);
}

/**
 * Validate every element; the first invalid one makes the whole file unusable
 * (`ImportError` naming `messages[i]`), because a JSON transcript with a
 * foreign element is a different format, not a dirty line.
 */
export function readMessages(list: readonly unknown[], file: string): RawMessage[] {
  if (!list.length) throw new ImportError(file, 'no messages (the messages array is empty)');
  return list.map((rec, index) => {
    if (!isRecord(rec)) throw new ImportError(file, `messages[${index}] is ${describe(rec)}, expected {role, content}`);
    const role = rec.role;
    if (role !== 'user' && role !== 'assistant') {
      const hint = role === 'system' ? '; a system prompt belongs in the top-level "system"' : '';
      throw new ImportError(file, `messages[${index}]: role ${JSON.stringify(role) ?? 'missing'} is not "user" or "assistant"${hint}`);
    }
    const checked = checkContent(rec.content);
    if ('problem' in checked) throw new ImportError(file, `messages[${index}]: ${checked.problem}`);
    const blocks: ContentBlockParam[] = typeof checked.content === 'string' ? textBlocks(checked.content) : [...checked.content];
    return { index, role, blocks, rec };
  });
}

function textBlocks(text: string): ContentBlockParam[] {
  return text.length ? [{ type: 'text', text }] : [];
}

export interface JsonSessionParts {
  readonly format: TranscriptFormat;
  readonly file: string;
  readonly raws: readonly RawMessage[];
  /** Meta of one message from its record (source, timestamp, model, …). */
  readonly metaOf: (raw: RawMessage, previous: LogMessage | undefined) => MessageMeta;
  readonly issues?: ImportIssue[];
  readonly system?: ImportedSession['system'];
  readonly tools?: ImportedSession['tools'];
  readonly model?: string;
}

/** Build messages `m0…` in array order, one call per assistant message (`at` = its position), then check the history. */
export function buildJsonSession(parts: JsonSessionParts): ImportedSession {
  const toolNames = new Map<string, string>();
  const messages: LogMessage[] = [];
  for (const raw of parts.raws) {
    const seq = messages.length;
    messages.push(makeMessage(`m${seq}`, seq, raw.role, raw.blocks, parts.metaOf(raw, messages[seq - 1]), toolNames));
  }
  const calls: CallRecord[] = messages
    .filter((m) => m.role === 'assistant')
    .map((m, index) => ({
      index,
      at: m.seq,
      epochStart: 0,
      apiMessageId: m.meta.apiMessageId,
      model: m.meta.model,
      timestamp: m.meta.timestamp,
      usage: m.meta.usage,
    }));
  const issues = [...(parts.issues ?? []), ...checkHistory(messages)];
  const model = parts.model ?? [...calls].reverse().find((c) => c.model)?.model;
  const out: ImportedSession = { format: parts.format, file: parts.file, messages, calls, issues };
  if (parts.system !== undefined) out.system = parts.system;
  if (parts.tools !== undefined) out.tools = parts.tools;
  if (model !== undefined) out.model = model;
  return out;
}
