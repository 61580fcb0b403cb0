/**
 * Shared by the whole-JSON formats (Cline, plain Anthropic JSON): validate an
 * array of `{role, content}` records and build the imported session.
 *
 * In these formats each record is a message as the client kept it, so records
 * are not regrouped, with one exception: one response is one message.
 * Consecutive assistant records with the same string `id` (a saved response,
 * `msg_…`, or Cline's response id, split over several records) become one
 * message: blocks in record order, a block identical to one already in it kept
 * once (reported), the final usage (`finalUsage`). The same `id` again after
 * other messages stays a separate message, reported. One call per assistant
 * message, except that a repeated `id` counts once.
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
import { checkContent, SeenBlocks, describe, finalUsage, isRecord, type JsonRecord } from './util';

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
      throw new ImportError(
        file,
        `messages[${index}]: role ${JSON.stringify(role) ?? 'missing'} is not "user" or "assistant"${hint}`,
      );
    }
    const checked = checkContent(rec.content);
    if ('problem' in checked) throw new ImportError(file, `messages[${index}]: ${checked.problem}`);
    const blocks: ContentBlockParam[] =
      typeof checked.content === 'string' ? textBlocks(checked.content) : [...checked.content];
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

/**
 * Merge responses, build messages `m0…` in array order, one call per response (`at` = its position), then check the
 * history.
 */
export function buildJsonSession(parts: JsonSessionParts): ImportedSession {
  const issues = [...(parts.issues ?? [])];
  const toolNames = new Map<string, string>();
  const messages: LogMessage[] = [];
  for (const raw of mergeResponses(parts.raws, issues)) {
    const seq = messages.length;
    messages.push(makeMessage(`m${seq}`, seq, raw.role, raw.blocks, parts.metaOf(raw, messages[seq - 1]), toolNames));
  }
  const calls: CallRecord[] = [];
  const seenIds = new Set<string>();
  for (const m of messages) {
    const id = m.meta.apiMessageId;
    if (m.role !== 'assistant' || (id !== undefined && seenIds.has(id))) continue;
    if (id !== undefined) seenIds.add(id);
    calls.push({
      index: calls.length,
      at: m.seq,
      epochStart: 0,
      apiMessageId: id,
      model: m.meta.model,
      timestamp: m.meta.timestamp,
      usage: m.meta.usage,
    });
  }
  issues.push(...checkHistory(messages));
  const model = parts.model ?? [...calls].reverse().find((c) => c.model)?.model;
  const out: ImportedSession = { format: parts.format, file: parts.file, messages, calls, issues };
  if (parts.system !== undefined) out.system = parts.system;
  if (parts.tools !== undefined) out.tools = parts.tools;
  if (model !== undefined) out.model = model;
  return out;
}

/** The string `id` of an assistant record (a response id), if any. */
export function responseIdOf(raw: RawMessage): string | undefined {
  return raw.role === 'assistant' && typeof raw.rec.id === 'string' ? raw.rec.id : undefined;
}

/**
 * Consecutive assistant records with the same `id` → one record (see the
 * module doc): the first record's fields, every distinct block, the final
 * usage. A repeated `id` after other messages is reported and left alone.
 */
function mergeResponses(raws: readonly RawMessage[], issues: ImportIssue[]): RawMessage[] {
  const out: RawMessage[] = [];
  const seen = new Set<string>();
  let run: RawMessage[] = [];
  const flush = (): void => {
    if (run.length) out.push(run.length === 1 ? run[0] : mergeRun(run, issues));
    run = [];
  };
  for (const raw of raws) {
    const id = responseIdOf(raw);
    if (id !== undefined && run.length && responseIdOf(run[0]) === id) {
      run.push(raw);
      continue;
    }
    flush();
    if (id !== undefined && seen.has(id)) {
      issues.push({
        message:
          `messages[${raw.index}]: assistant id ${id} seen again after other messages: kept as a separate message, ` +
          'counted as one call',
      });
    }
    if (id !== undefined) seen.add(id);
    run = [raw];
  }
  flush();
  return out;
}

/** One record for a run of records of one response. */
function mergeRun(run: readonly RawMessage[], issues: ImportIssue[]): RawMessage {
  const first = run[0];
  const blocks: ContentBlockParam[] = [];
  const firstIndex = new SeenBlocks<number>();
  for (const raw of run) {
    for (const b of raw.blocks) {
      const at = firstIndex.get(b);
      if (at !== undefined) {
        issues.push({
          message:
            `messages[${raw.index}]: ${b.type} block recorded twice under id ${String(first.rec.id)} (first in ` +
            `messages[${at}]): kept once`,
        });
        continue;
      }
      firstIndex.set(b, raw.index);
      blocks.push(b);
    }
  }
  const usage = finalUsage(run.map((r) => r.rec.usage));
  return { index: first.index, role: first.role, blocks, rec: usage ? { ...first.rec, usage } : first.rec };
}
