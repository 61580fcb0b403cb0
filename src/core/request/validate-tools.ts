/** The validator's tool rules: tool_use ids unique and answered next; each tool_result answers the message before. */
import type { ContentBlockParam } from '../session/types';
import { RULE, v, type Messages } from './validate-rules';
import type { Violation } from '../api/wire';

/** Whether an assistant message calls `id` (a scan: a round has a handful of calls, no set per message). */
export function callsTool(m: Messages[number] | undefined, id: string): boolean {
  if (!m || m.role !== 'assistant' || typeof m.content === 'string') return false;
  for (const b of m.content) if (b.type === 'tool_use' && b.id === id) return true;
  return false;
}

/** Whether a user message answers `id`. */
export function answersTool(m: Messages[number] | undefined, id: string): boolean {
  if (!m || m.role !== 'user' || typeof m.content === 'string') return false;
  for (const b of m.content) if (b.type === 'tool_result' && b.tool_use_id === id) return true;
  return false;
}

/** Number of distinct tool_use ids of an assistant message (only asked when a message is out of order). */
function callCount(m: Messages[number] | undefined): number {
  const ids = new Set<string>();
  if (m && m.role === 'assistant' && typeof m.content !== 'string')
    for (const b of m.content) if (b.type === 'tool_use') ids.add(b.id);
  return ids.size;
}

/**
 * tool_use ids are unique and answered by tool_result blocks in the immediately
 * following user message; each tool_result answers a tool_use of the immediately
 * preceding assistant message; results come first in their message.
 */
export function checkToolPairing(msgs: Messages, out: Violation[]): void {
  const seenUses = new Set<string>();
  for (let i = 0; i < msgs.length; i++) checkPairingAt(msgs, i, seenUses, out);
}

/**
 * Whether a tool_result for `id` comes before block j (a message has a handful of results: a scan, no set per message).
 */
function resultBefore(content: readonly ContentBlockParam[], j: number, id: string): boolean {
  for (let k = 0; k < j; k++) {
    const b = content[k];
    if (b.type === 'tool_result' && b.tool_use_id === id) return true;
  }
  return false;
}

/** {@link checkToolPairing} for message i. */
function checkPairingAt(msgs: Messages, i: number, seenUses: Set<string>, out: Violation[]): void {
  const m = msgs[i];
  if (typeof m.content === 'string') return;
  if (m.role === 'assistant') {
    let missing: string[] | undefined;
    let uses = 0;
    for (let j = 0; j < m.content.length; j++) {
      const b = m.content[j];
      if (b.type !== 'tool_use') continue;
      if (seenUses.has(b.id))
        out.push(v(RULE.duplicateToolUse, `messages.${i}.content.${j}: \`tool_use\` ids must be unique`, i, j));
      seenUses.add(b.id);
      uses++;
      if (!answersTool(msgs[i + 1], b.id)) (missing ??= []).push(b.id);
    }
    if (uses === 0) return;
    if (missing) {
      out.push(
        v(
          RULE.toolUseWithoutResult,
          `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ` +
            `${missing.join(', ')}. ` +
            'Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
          i,
        ),
      );
    }
    return;
  }
  const prev = msgs[i - 1];
  let firstOther = -1;
  let resultAfterOther = false;
  let results = 0;
  for (let j = 0; j < m.content.length; j++) {
    const b = m.content[j];
    if (b.type !== 'tool_result') {
      if (firstOther < 0) firstOther = j;
      continue;
    }
    results++;
    if (firstOther >= 0) resultAfterOther = true;
    if (!callsTool(prev, b.tool_use_id)) {
      out.push(
        v(
          RULE.unexpectedToolResult,
          `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${b.tool_use_id}. ` +
            'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
          i,
          j,
        ),
      );
    } else if (resultBefore(m.content, j, b.tool_use_id)) {
      // Wording ours: a second result for one call.
      out.push(
        v(
          RULE.duplicateToolResult,
          `messages.${i}.content.${j}: \`tool_use\` id ${b.tool_use_id} ` +
            'is answered by more than one `tool_result` block',
          i,
          j,
        ),
      );
    }
  }
  if (resultAfterOther) {
    const k = callCount(prev) || results;
    out.push(
      v(
        RULE.toolResultsFirst,
        `messages.${i}: Did not find ${k} \`tool_result\` block(s) at the beginning of this message. ` +
          'Messages following `tool_use` blocks must begin with a matching number of `tool_result` blocks.',
        i,
        firstOther,
      ),
    );
  }
}
