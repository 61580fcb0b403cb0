/**
 * Claude Code session JSONL → session log.
 *
 * One JSON record per line. Only `type: "user" | "assistant"` records with a
 * `message` are conversation; everything else (summary, system, progress,
 * file-history-snapshot, queue-operation, attachment, pr-link, …) is skipped
 * (but see the cleared attachments below).
 * Lines are selected, then grouped into the messages the client sent:
 * - sub-agent (`isSidechain`) lines are skipped in a main conversation, but a
 *   file holding only sidechain lines (`agent-*.jsonl`) is that sub-agent's
 *   own conversation and is imported as such;
 * - synthetic assistant entries (`model: "<synthetic>"`, e.g. "Request timed
 *   out" API-error placeholders) were never produced by, nor sent to, the
 *   model: they are left out of the log and reported as issues;
 * - one response is one message, even when its lines are interleaved with the
 *   tool results that answer it; those results, with the other user content of
 *   the turn after them, are one user message; a compact summary starts a new
 *   message and history; a response recorded again after other turns stays a
 *   separate message (claude-code-group.ts has the exact rules);
 * - a partial compaction (`compactMetadata.preservedSegment`) kept messages
 *   that stay before its boundary in the file: they are copied after the
 *   compact summary, flagged `preserved`, without usage and never a call
 *   (claude-code-preserved.ts); "summarize from here" (`messagesSummarized`,
 *   `userContext`) kept the messages up to its `logicalParentUuid`: they are
 *   copied the same way, but before the summary, and start the new epoch;
 * - `attachment` records are left out (their size is absorbed from the
 *   usage), except those a microcompact later cleared, imported as user text
 *   so the clearing can be followed (claude-code-attachments.ts);
 * - one call per distinct `message.id`, at the position of its message, with
 *   the final usage record of the response (`finalUsage`);
 * - a block is kept as the line's client version sent it, where that differs from
 *   what it recorded (claude-code-quirks.ts: 2.1.332 trims tool results' trailing whitespace).
 * Unparseable lines are skipped and reported with their line numbers.
 */
import { makeMessage } from '../session/log';
import type {
  CallRecord,
  ContentBlockParam,
  ImportedSession,
  ImportIssue,
  LogMessage,
  MessageMeta,
} from '../session/types';
import type { TranscriptImporter, TranscriptInput } from './detect';
import { groupLines, type ConvLine, type Group } from './claude-code-group';
import { claudeCodeRecorded } from './claude-code-usage';
import { AttachmentLines } from './claude-code-attachments';
import {
  PRESERVED_FLAG,
  readLinks,
  withPreservedCopies,
  type ParentLinks,
  type PreservedBoundary,
} from './claude-code-preserved';
import { ImportError, oneLine } from './errors';
import { jsonLines } from './json-lines';
import { checkHistory } from './history-check';
import { toolResultAsSent } from './claude-code-quirks';
import { baseName, checkContent, finalUsage, isRecord, withoutFields } from './util';

/**
 * Fields removed from content blocks before they enter the log, because the
 * API would refuse them on input. Empty on purpose: every block in the
 * Claude Code 2.0–2.1 data (shared/data/transcripts/m-claude) carries only API
 * fields (text: type/text; thinking: type/thinking/signature; tool_use:
 * type/id/name/input; tool_result: tool_use_id/type/content/is_error; image:
 * type/source), and the extras newer versions write (`caller` on tool_use,
 * `citations: null` on text) are accepted as input (SDK 1.12
 * `ToolUseBlockParam.caller`, nullable `TextBlockParam.citations`). Keeping the
 * blocks untouched keeps thinking signatures valid.
 */
export const CLAUDE_CODE_STRIPPED_BLOCK_FIELDS: readonly string[] = [];

/** Claude Code's model name for entries it made up itself (API errors, timeouts): not model calls. */
export const SYNTHETIC_MODEL = '<synthetic>';

/** Non-empty lines examined by `detect`; a few leading lines may be corrupt or foreign. */
const DETECT_SNIFF_LINES = 20;

export { PRESERVED_FLAG };

/** The user text Claude Code writes when the user stops a streaming response (not the "for tool use" variant). */
const INTERRUPTED_MARKER = '[Request interrupted by user]';

export const claudeCodeImporter: TranscriptImporter = {
  format: 'claude-code',
  label: 'Claude Code JSONL',
  expects: 'JSON lines with "type":"user"|"assistant" and a "message"',
  detect: detectClaudeCode,
  parse: parseClaudeCode,
  recorded: claudeCodeRecorded,
};

/** Record kinds Claude Code writes (conversation and bookkeeping); used only to recognise the format. */
const CLAUDE_CODE_RECORD_TYPES: ReadonlySet<string> = new Set([
  'user',
  'assistant',
  'summary',
  'system',
  'progress',
  'file-history-snapshot',
  'queue-operation',
  'attachment',
  'pr-link',
]);

/** Keys that tie a record to a Claude Code session (one of them is on every record kind above). */
const CLAUDE_CODE_ID_KEYS = ['sessionId', 'uuid', 'leafUuid', 'messageId'] as const;

/** A Claude Code record: a known `type` plus a `message` or one of the session/record id keys. */
function isClaudeCodeRecord(v: unknown): boolean {
  if (!isRecord(v) || typeof v.type !== 'string' || !CLAUDE_CODE_RECORD_TYPES.has(v.type)) return false;
  return isRecord(v.message) || CLAUDE_CODE_ID_KEYS.some((k) => typeof v[k] === 'string');
}

/** Any of the first `DETECT_SNIFF_LINES` non-empty lines is a Claude Code record. */
function detectClaudeCode(input: TranscriptInput): boolean {
  let seen = 0;
  const text = input.text;
  // The first lines only: found by indexOf, not by splitting the whole file.
  for (let at = 0; at < text.length;) {
    const nl = text.indexOf('\n', at);
    const end = nl < 0 ? text.length : nl;
    const line = text.slice(at, end).trim();
    at = end + 1;
    if (!line) continue;
    if (++seen > DETECT_SNIFF_LINES) return false;
    if (line[0] !== '{') continue;
    try {
      if (isClaudeCodeRecord(JSON.parse(line))) return true;
    } catch {
      // a corrupt line: keep looking
    }
  }
  return false;
}

/** Lines → messages → calls, then the history checks; issues sorted by line. */
function parseClaudeCode(input: TranscriptInput): ImportedSession {
  const issues: ImportIssue[] = [];
  const base = baseName(input.file);
  const { conv, kinds, links, boundaries, attachments } = readLines(input.text, issues);
  const kept = withPreservedCopies(selectLines(conv, issues), boundaries, links, issues);
  if (!kept.length) {
    const what = conv.length ? 'no usable user or assistant messages' : 'no user or assistant messages';
    throw new ImportError(input.file, `${what} (${describeKinds(kinds)})`);
  }
  const groups = groupLines(kept, issues);
  const toolNames = new Map<string, string>();
  const messages: LogMessage[] = groups.map((g, i) =>
    makeMessage(`m${i}`, i, g.role, g.blocks, groupMeta(g, groups[i + 1], base), toolNames),
  );
  const calls = callsOf(messages);
  const attachmentBlocks = new Map<string, string>();
  const firstBlock = new Map<ContentBlockParam, string>();
  const copiedBlocks = new Map<string, string>();
  groups.forEach((g, i) =>
    g.blocks.forEach((b, j) => {
      const uuid = attachments.uuidOf.get(b);
      const block = messages[i].blocks[j];
      if (!block) return;
      if (uuid !== undefined) attachmentBlocks.set(uuid, block.id);
      // A copy holds the very block objects of the line it copies.
      const orig = firstBlock.get(b);
      if (g.preserved && orig !== undefined) copiedBlocks.set(block.id, orig);
      else if (!g.preserved && orig === undefined) firstBlock.set(b, block.id);
    }),
  );
  issues.push(...checkHistory(messages, (pos) => groups[pos]?.lines[0].line));
  issues.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  const model = calls.length ? calls[calls.length - 1].model : undefined;
  return {
    format: 'claude-code',
    file: input.file,
    model,
    messages,
    calls,
    issues,
    ...(attachmentBlocks.size ? { attachmentBlocks } : {}),
    ...(copiedBlocks.size ? { copiedBlocks } : {}),
  };
}

/** Parse every line; collect conversation lines, count record kinds, report unparseable and malformed lines. */
function readLines(
  text: string,
  issues: ImportIssue[],
): {
  conv: ConvLine[];
  kinds: Map<string, number>;
  links: ParentLinks;
  boundaries: PreservedBoundary[];
  attachments: AttachmentLines;
} {
  const conv: ConvLine[] = [];
  const kinds = new Map<string, number>();
  const links: ParentLinks = new Map();
  const boundaries: PreservedBoundary[] = [];
  const attachments = new AttachmentLines();
  for (const l of jsonLines(text)) {
    const line = l.line;
    if (l.error !== undefined) {
      issues.push({ line, message: `unparseable line skipped (${oneLine(l.error, 100)})` });
      continue;
    }
    const rec = l.rec;
    const kind = isRecord(rec) && typeof rec.type === 'string' ? rec.type : 'unknown';
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    const boundary = isRecord(rec) ? readLinks(rec, line, links) : undefined;
    if (boundary) boundaries.push(boundary);
    if (isRecord(rec)) attachments.read(rec, line);
    if (!isRecord(rec) || (kind !== 'user' && kind !== 'assistant') || !isRecord(rec.message)) continue;
    const checked = checkContent(rec.message.content);
    if ('problem' in checked) {
      issues.push({ line, message: `${kind} line skipped: message.${checked.problem}` });
      continue;
    }
    // As the line's client version sent them (claude-code-quirks.ts).
    const c = checked.content;
    const blocks = typeof c === 'string' ? stringBlocks(c) : c.map((b) => toolResultAsSent(stripBlock(b), rec.version));
    conv.push({ line, role: kind, rec, message: rec.message, blocks });
  }
  return { conv: attachments.merge(conv), kinds, links, boundaries, attachments };
}

/** String content as blocks: one text block, none for an empty string. */
function stringBlocks(text: string): ContentBlockParam[] {
  return text.length ? [{ type: 'text', text }] : [];
}

/** The block without `CLAUDE_CODE_STRIPPED_BLOCK_FIELDS` (today: unchanged). */
function stripBlock(b: ContentBlockParam): ContentBlockParam {
  return withoutFields(b, CLAUDE_CODE_STRIPPED_BLOCK_FIELDS);
}

/** "3 parseable lines: 2 system, 1 summary", for the no-conversation error. */
function describeKinds(kinds: Map<string, number>): string {
  let total = 0;
  for (const n of kinds.values()) total += n;
  const parts = [...kinds].map(([k, n]) => `${n} ${k}`);
  return `${total} parseable line${total === 1 ? '' : 's'}${parts.length ? `: ${parts.join(', ')}` : ''}`;
}

/** Drop sidechain lines of a main conversation, synthetic entries and empty lines; report what was dropped. */
function selectLines(conv: ConvLine[], issues: ImportIssue[]): ConvLine[] {
  const hasMain = conv.some((l) => l.rec.isSidechain !== true);
  const out: ConvLine[] = [];
  for (const l of conv) {
    if (hasMain && l.rec.isSidechain === true) continue;
    if (l.role === 'assistant' && l.message.model === SYNTHETIC_MODEL) {
      const text = l.blocks.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join(' ');
      issues.push({
        line: l.line,
        message: `synthetic Claude Code entry left out (not a model call): ${oneLine(text, 80)}`,
      });
      continue;
    }
    if (!l.blocks.length) {
      issues.push({ line: l.line, message: `${l.role} line with empty content skipped` });
      continue;
    }
    out.push(l);
  }
  return out;
}

/** Meta of one message: source line, first timestamp; for assistants the API id, model and the final usage. */
function groupMeta(g: Group, next: Group | undefined, base: string): MessageMeta {
  const first = g.lines[0];
  const meta: MessageMeta = { source: `${base}:${first.line}` };
  if (typeof first.rec.timestamp === 'string') meta.timestamp = first.rec.timestamp;
  if (g.startsEpoch) meta.compactBoundary = true;
  if (g.preserved) meta.flags = [PRESERVED_FLAG];
  if (g.role !== 'assistant') return meta;
  if (g.apiMessageId) meta.apiMessageId = g.apiMessageId;
  const model = g.lines.map((l) => l.message.model).find((m): m is string => typeof m === 'string');
  if (model) meta.model = model;
  // A kept response re-sent after a partial compaction: Claude Code zeroes its usage (counted once, where it was
  // produced).
  if (g.preserved) return meta;
  const usage = finalUsage(g.lines.map((l) => l.message.usage));
  if (usage) meta.usage = usage;
  if (next && isInterruption(next)) meta.interrupted = true;
  return meta;
}

/**
 * The next message starts with Claude Code's "[Request interrupted by user]": this response was cut while streaming.
 */
function isInterruption(next: Group): boolean {
  const b = next.blocks[0];
  return next.role === 'user' && b?.type === 'text' && b.text.trim() === INTERRUPTED_MARKER;
}

/**
 * One call per distinct assistant `message.id`, in file order: `at` is the
 * message's position (the request held the messages before it), `epochStart`
 * the position of the last compact boundary at or before it.
 */
function callsOf(messages: readonly LogMessage[]): CallRecord[] {
  const calls: CallRecord[] = [];
  const seen = new Set<string>();
  let epochStart = 0;
  for (const m of messages) {
    if (m.meta.compactBoundary) epochStart = m.seq;
    if (m.role !== 'assistant' || m.meta.flags?.includes(PRESERVED_FLAG)) continue;
    const id = m.meta.apiMessageId;
    if (id !== undefined) {
      if (seen.has(id)) continue;
      seen.add(id);
    }
    calls.push({
      index: calls.length,
      at: m.seq,
      epochStart,
      apiMessageId: id,
      model: m.meta.model,
      timestamp: m.meta.timestamp,
      usage: m.meta.usage,
    });
  }
  return calls;
}
