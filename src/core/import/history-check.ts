/**
 * Find recorded histories the Messages API would reject, without repairing
 * them (the request builder repairs; importers stay faithful). Each finding is
 * a non-fatal `ImportIssue` worded after the API's own 400 messages.
 *
 * A compact boundary (Claude Code `isCompactSummary`) starts a new history:
 * messages before it are never sent together with messages after it, so no
 * rule looks across it. Kept messages a partial compaction copied next to its
 * summary that end on a user message are followed by a user message Claude
 * Code sends merged with them (the summary, or the new prompt): not reported.
 */
import type { ImportIssue, LogMessage } from '../session/types';
import { PRESERVED_FLAG } from './claude-code-preserved';

/** Maps a log position to the 1-based source line it came from, when the format has lines. */
export type LineOf = (position: number) => number | undefined;

/** Run every rule over the log; issues come out in log order. */
export function checkHistory(messages: readonly LogMessage[], lineOf: LineOf = () => undefined): ImportIssue[] {
  const issues: ImportIssue[] = [];
  const add = (pos: number, message: string): void => {
    const line = lineOf(pos);
    issues.push(
      line === undefined
        ? { message: `${where(messages, pos)}: ${message}` }
        : { line, message: `${where(messages, pos)}: ${message}` },
    );
  };
  const toolUseOwner = new Map<string, number>();
  for (let pos = 0; pos < messages.length; pos++) {
    const m = messages[pos];
    const epochStart = pos === 0 || m.meta.compactBoundary === true;
    const prev = epochStart ? undefined : messages[pos - 1];
    if (epochStart && m.role === 'assistant')
      add(pos, 'history starts with an assistant message (the first message must be a user message)');
    const afterKeptUser =
      m.role === 'user' &&
      prev?.meta.flags?.includes(PRESERVED_FLAG) === true &&
      m.meta.flags?.includes(PRESERVED_FLAG) !== true;
    if (prev && prev.role === m.role && !afterKeptUser)
      add(pos, `two ${m.role} messages in a row (${prev.id}, ${m.id})`);
    const isFinalAssistant = pos === messages.length - 1 && m.role === 'assistant';
    if (!m.blocks.length && !isFinalAssistant)
      add(
        pos,
        'empty content (all messages must have non-empty content except for the optional final assistant message)',
      );
    if (m.role === 'user') checkResults(m, prev, toolUseOwner, messages, (msg) => add(pos, msg));
    if (m.role === 'assistant') {
      for (const id of toolUseIds(m)) toolUseOwner.set(id, pos);
      checkAnswered(m, nextInEpoch(messages, pos), (msg) => add(pos, msg));
    }
  }
  return issues;
}

/** `messages.N (mN)`: the request index the API would name, plus the log id. */
function where(messages: readonly LogMessage[], pos: number): string {
  return `messages.${pos} (${messages[pos].id})`;
}

function toolUseIds(m: LogMessage): string[] {
  return m.blocks.filter((b) => b.kind === 'tool_use' && b.toolUseId).map((b) => b.toolUseId!);
}

function nextInEpoch(messages: readonly LogMessage[], pos: number): LogMessage | undefined {
  const next = messages[pos + 1];
  return next && !next.meta.compactBoundary ? next : undefined;
}

/** Every tool_use of an assistant message needs a tool_result in the very next (user) message. */
function checkAnswered(m: LogMessage, next: LogMessage | undefined, add: (msg: string) => void): void {
  const ids = toolUseIds(m);
  if (!ids.length) return;
  const answered = new Set(
    next?.role === 'user' ? next.blocks.filter((b) => b.kind === 'tool_result').map((b) => b.toolUseId) : [],
  );
  const missing = ids.filter((id) => !answered.has(id));
  if (!missing.length) return;
  let why: string;
  if (!next) why = 'the recorded history ends before the results';
  else if (next.role !== 'user') why = 'the next message is another assistant message';
  else if (next.meta.unansweredToolUses) why = 'the next message answers with text instead (Cline-style results)';
  else why = 'the next message does not contain them';
  add(`\`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')} (${why})`);
}

/** tool_result blocks must answer a tool_use of the immediately preceding assistant message, and come first. */
function checkResults(
  m: LogMessage,
  prev: LogMessage | undefined,
  owner: ReadonlyMap<string, number>,
  messages: readonly LogMessage[],
  add: (msg: string) => void,
): void {
  const expected = new Set(prev?.role === 'assistant' ? toolUseIds(prev) : []);
  let seenOther = false;
  for (const b of m.blocks) {
    if (b.kind !== 'tool_result') {
      seenOther = true;
      continue;
    }
    if (seenOther) add(`content.${b.index}: \`tool_result\` after other content (tool results must come first)`);
    const id = b.toolUseId ?? '';
    if (expected.has(id)) continue;
    const at = owner.get(id);
    const detail =
      at === undefined ? 'no such tool_use in the history' : `out of order: it answers ${where(messages, at)}`;
    add(`content.${b.index}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id} (${detail})`);
  }
}
