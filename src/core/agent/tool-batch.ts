/**
 * Executing one assistant message's tool calls and answering them the way the
 * API requires: one user message, every tool_result first, in the order of the
 * tool_use blocks, each id answered exactly once.
 *
 * Concurrency: read-only calls next to each other run in parallel; a call that
 * changes something (a write, an edit, a command, a trim) waits for everything
 * before it and holds back everything after it, so parallel calls have the same
 * effect as the model's order.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { Session } from '../session/session';
import type { ContentBlockParam, ToolResultBlockParam } from '../session/types';
import { executeTool, type ToolContext, type ToolResult } from './tools';

/** Tools that only read: safe to run side by side. Anything else runs alone, in order. */
const READ_ONLY_TOOLS: ReadonlySet<string> = new Set(['read_file', 'list_files', 'search']);

/**
 * Result given to a tool call that never finished because the process stopped
 * (crash, kill) or the response was cut: the model decides whether to repeat it.
 */
export const INTERRUPTED_TOOL_TEXT =
  'interrupted: Trimline stopped before this tool call finished, so its result is unknown (it may or may not ' +
  'have taken effect). Check the current state before repeating it.';
/** Result for tool calls of a response cut at max_tokens: their input may be incomplete, so they were not run. */
export const MAX_TOKENS_TOOL_TEXT =
  'not run: your response reached max_tokens before this tool call was complete. Repeat the call with a shorter ' +
  'input if it is still needed.';

export interface BatchHooks {
  start(use: Anthropic.ToolUseBlockParam): void;
  done(use: Anthropic.ToolUseBlockParam, result: ToolResult, durationMs: number): void;
}

/** The tool_result block for one call (is_error only when set, as the API's own examples do). */
export function resultBlock(toolUseId: string, r: ToolResult): ToolResultBlockParam {
  const content = r.blocks?.length ? r.blocks.map((b) => ({ ...b })) : r.content || '(no output)';
  const block: ToolResultBlockParam = { type: 'tool_result', tool_use_id: toolUseId, content };
  if (r.is_error) block.is_error = true;
  return block;
}

/** Run every call of a batch; results come back in tool_use order. Never throws (executeTool never does). */
export async function runToolBatch(
  uses: readonly Anthropic.ToolUseBlockParam[],
  ctx: ToolContext,
  hooks: BatchHooks,
): Promise<ToolResultBlockParam[]> {
  const results: ToolResult[] = new Array<ToolResult>(uses.length);
  const runOne = async (i: number): Promise<void> => {
    const use = uses[i];
    hooks.start(use);
    const started = Date.now();
    results[i] = await executeTool(use.name, use.input, ctx);
    hooks.done(use, results[i], Date.now() - started);
  };
  let group: Promise<void>[] = [];
  for (let i = 0; i < uses.length; i++) {
    if (READ_ONLY_TOOLS.has(uses[i].name)) {
      group.push(runOne(i));
      continue;
    }
    await Promise.all(group);
    group = [];
    await runOne(i);
  }
  await Promise.all(group);
  return uses.map((u, i) => resultBlock(u.id, results[i]));
}

/**
 * Tool calls of the last message that have no result yet: the session ends with
 * an assistant message whose tool_use blocks were never answered (the process
 * stopped while they ran, or the response hit max_tokens).
 */
export function unansweredToolUses(session: Session): Anthropic.ToolUseBlockParam[] {
  const last = session.messages[session.messages.length - 1];
  if (!last || last.role !== 'assistant' || last.meta.interrupted) return [];
  const out: Anthropic.ToolUseBlockParam[] = [];
  for (const b of last.blocks) {
    if (b.param.type === 'tool_use' && session.toolResultBlockId(b.param.id) === undefined) out.push(b.param);
  }
  return out;
}

/** Error results for calls that will not run, with `text` as the reason. */
export function closingResults(uses: readonly Anthropic.ToolUseBlockParam[], text: string): ContentBlockParam[] {
  return uses.map((u) => resultBlock(u.id, { content: text, is_error: true }));
}
