/**
 * Claude Code lines → the messages the client sent.
 *
 * Claude Code writes every content block of one response on its own line
 * (same `message.id`, same `requestId`). With parallel tool calls it runs each
 * tool as soon as its `tool_use` block is complete, so `tool_result` lines can
 * sit between the `tool_use` lines of the response, in the order the tools
 * completed. The request it sent next held ONE assistant message with every
 * block of the response (thinking first, as produced) and ONE user message
 * with every result, in that completion order. Splitting the response instead
 * strips the thinking from the part that continues the loop, and the API
 * refuses such a request when thinking is enabled.
 *
 * Rules, applied to the selected lines (sidechain, synthetic and empty lines
 * already left out) in file order:
 * 1. An assistant line joins the previous message when that message is the
 *    same response (same `message.id`).
 * 2. An assistant line also joins its response across the one user message
 *    recorded after it, when that user message is the response's own answer
 *    so far: the response has a `tool_use`, the user message is not a compact
 *    summary, and each of its `tool_result`s answers a `tool_use` of the
 *    response. The user message stays right after the grown response.
 * 3. Otherwise an assistant line starts a new message. When its `message.id`
 *    was seen before (the response recorded again after other messages, e.g.
 *    a resumed or copied history) the copy is kept as a separate message, not
 *    merged: what lies between is another turn, and joining would move blocks
 *    across it. It is reported, and counted as one call with the first.
 * 4. A user line joins the previous message when that is a user message,
 *    except a compact summary (`isCompactSummary`), which always starts a new
 *    message: the recorded history restarts there.
 * 5. In a user message, the lines holding a `tool_result` come first, in
 *    recorded order (completion order: what was sent), then the other lines
 *    (text typed or injected during the turn) in recorded order. The blocks of
 *    one line are never reordered.
 * 7. Copies of the messages a partial compaction kept (`preserved`, see
 *    claude-code-preserved.ts) group among themselves by the same rules; a
 *    copied response is not reported as seen again.
 * 8. "Summarize from here" copies the messages it kept before its summary:
 *    the first copy always starts a new message and the epoch, the summary
 *    after them starts a new message but not an epoch.
 * 6. A content block identical to one already in its response (a retried
 *    write) is kept once; so is a `tool_result` identical to one already in its
 *    user message. Both are reported. A different second `tool_result` for the
 *    same id is kept and reported. A result that never arrived is not made up
 *    (the history check reports it; the request builder repairs it).
 */
import type { ContentBlockParam, ImportIssue, Role } from '../session/types';
import { SeenBlocks, type JsonRecord } from './util';

/** One conversation record of the file. */
export interface ConvLine {
  readonly line: number;
  readonly role: Role;
  readonly rec: JsonRecord;
  readonly message: JsonRecord;
  readonly blocks: readonly ContentBlockParam[];
  /** A copy of a line a partial compaction kept, re-sent after the summary (claude-code-preserved.ts). */
  readonly preserved?: boolean;
  /** The first copy of the messages "summarize from here" kept: it starts the new epoch (claude-code-preserved.ts). */
  readonly startsEpoch?: boolean;
  /** A compact summary right after the copies of the messages it kept: the epoch started at the first copy. */
  readonly keptBefore?: boolean;
}

/** Lines that become one log message: `lines` in file order, `blocks` in the order they were sent. */
export interface Group {
  readonly role: Role;
  readonly lines: readonly ConvLine[];
  readonly blocks: readonly ContentBlockParam[];
  readonly apiMessageId?: string;
  readonly compact: boolean;
  /** Copies of kept messages (rule 7): context only, never a call. */
  readonly preserved: boolean;
  /**
   * The history restarts here: a compact summary, or the first copy "summarize from here" kept before its summary (rule
   * 8).
   */
  readonly startsEpoch: boolean;
}

/** A group being built. */
interface Draft {
  readonly role: Role;
  readonly lines: ConvLine[];
  /** Assistant: every block; user: the blocks of the lines holding a tool_result (rule 5). */
  readonly head: ContentBlockParam[];
  /** User: the blocks of the other lines (rule 5). */
  readonly tail: ContentBlockParam[];
  /** Canonical JSON of the kept blocks (assistant) or kept tool_results (user) → first line (rule 6). */
  readonly seen: SeenBlocks<number>;
  /** Assistant: its tool_use ids. User: tool_use ids answered so far → first line. */
  readonly toolIds: Map<string, number>;
  readonly apiMessageId?: string;
  readonly compact: boolean;
  readonly preserved: boolean;
  readonly startsEpoch: boolean;
}

/** Lines → messages by the rules of the module doc; duplicates and repeated responses go to `issues`. */
export function groupLines(lines: readonly ConvLine[], issues: ImportIssue[]): Group[] {
  const drafts: Draft[] = [];
  const seenIds = new Set<string>();
  for (const l of lines) {
    if (l.role === 'assistant') addAssistantLine(drafts, l, seenIds, issues);
    else addUserLine(drafts, l, issues);
  }
  return drafts.map((d) => ({
    role: d.role,
    lines: d.lines,
    blocks: [...d.head, ...d.tail],
    apiMessageId: d.apiMessageId,
    compact: d.compact,
    preserved: d.preserved,
    startsEpoch: d.startsEpoch,
  }));
}

/** The `message.id` of an assistant line, when it has one. */
function messageIdOf(l: ConvLine): string | undefined {
  return typeof l.message.id === 'string' ? l.message.id : undefined;
}

function newDraft(
  role: Role,
  apiMessageId: string | undefined,
  compact: boolean,
  preserved: boolean,
  startsEpoch = false,
): Draft {
  return {
    role,
    lines: [],
    head: [],
    tail: [],
    seen: new SeenBlocks<number>(),
    toolIds: new Map(),
    apiMessageId,
    compact,
    preserved,
    startsEpoch,
  };
}

/** Rule 8: the line starts a new epoch (a compact summary not preceded by its kept copies, or the first such copy). */
function startsEpoch(l: ConvLine): boolean {
  return l.startsEpoch === true || (l.rec.isCompactSummary === true && l.preserved !== true && l.keptBefore !== true);
}

/** Rules 1–3. */
function addAssistantLine(drafts: Draft[], l: ConvLine, seenIds: Set<string>, issues: ImportIssue[]): void {
  const id = messageIdOf(l);
  const preserved = l.preserved === true;
  let target = id === undefined || l.startsEpoch === true ? undefined : responseToJoin(drafts, id);
  if (target && target.preserved !== preserved) target = undefined;
  if (!target) {
    if (id !== undefined && seenIds.has(id) && !preserved) {
      issues.push({
        line: l.line,
        message:
          `assistant message.id ${id} seen again after other messages: kept as a separate message, counted as one ` +
          'call',
      });
    }
    if (id !== undefined) seenIds.add(id);
    target = newDraft('assistant', id, false, preserved, startsEpoch(l));
    drafts.push(target);
  }
  target.lines.push(l);
  for (const b of l.blocks) {
    const first = target.seen.get(b);
    if (first !== undefined) {
      issues.push({
        line: l.line,
        message:
          `${b.type} block recorded twice under message.id ${id ?? '(none)'} ` + `(first on line ${first}): kept once`,
      });
      continue;
    }
    target.seen.set(b, l.line);
    target.head.push(b);
    if (b.type === 'tool_use') target.toolIds.set(b.id, l.line);
  }
}

/** The open response `id` continues: the last message (rule 1), or the one right before its own answer (rule 2). */
function responseToJoin(drafts: readonly Draft[], id: string): Draft | undefined {
  const last = drafts[drafts.length - 1];
  if (!last) return undefined;
  if (last.role === 'assistant') return last.apiMessageId === id ? last : undefined;
  const response = drafts[drafts.length - 2];
  if (response?.role !== 'assistant' || response.apiMessageId !== id) return undefined;
  return isAnswerSoFar(last, response) ? response : undefined;
}

/** The user message holds only this response's results so far, plus other content of the same turn. */
function isAnswerSoFar(user: Draft, response: Draft): boolean {
  if (user.compact || response.toolIds.size === 0) return false;
  return user.head.every((b) => b.type !== 'tool_result' || response.toolIds.has(b.tool_use_id));
}

/** Rules 4–6 for one user line. */
function addUserLine(drafts: Draft[], l: ConvLine, issues: ImportIssue[]): void {
  const compact = l.rec.isCompactSummary === true;
  const last = drafts[drafts.length - 1];
  const preserved = l.preserved === true;
  const target =
    last?.role === 'user' && !compact && l.startsEpoch !== true
      ? last
      : newDraft('user', undefined, compact, preserved, startsEpoch(l));
  if (target !== last) drafts.push(target);
  target.lines.push(l);
  const kept = l.blocks.filter((b) => keepUserBlock(target, b, l.line, issues));
  (kept.some((b) => b.type === 'tool_result') ? target.head : target.tail).push(...kept);
}

/** False for a tool_result identical to one already in the message; reports that and a different second result. */
function keepUserBlock(d: Draft, b: ContentBlockParam, line: number, issues: ImportIssue[]): boolean {
  if (b.type !== 'tool_result') return true;
  const same = d.seen.get(b);
  if (same !== undefined) {
    issues.push({
      line,
      message: `tool_result for ${b.tool_use_id} recorded twice (first on line ${same}): kept once`,
    });
    return false;
  }
  const other = d.toolIds.get(b.tool_use_id);
  if (other !== undefined)
    issues.push({
      line,
      message: `second, different tool_result for ${b.tool_use_id} (first on line ${other}): both kept`,
    });
  else d.toolIds.set(b.tool_use_id, line);
  d.seen.set(b, line);
  return true;
}
