/**
 * trim_tool_result: the model replaces one earlier tool result with its own
 * summary. It runs against the Session, not the workspace: it adds a `trim`
 * overlay authored by `agent`. The original stays in the log and the user can
 * restore it. Pins win (a result the user pinned is refused), and results of the
 * batch being executed right now cannot be trimmed (they are not in the log yet,
 * and the model has not seen them).
 */
import { toolResultText, type Session } from '../../session';
import type { ObjectSchema } from './schema';
import { fail, ok, type ToolContext, type ToolResult, type ToolSpec } from './types';

/** Prefix of the trimmed text, so the model later knows it reads its own summary, not the tool's output. */
export const AGENT_TRIM_MARKER =
  '[Summary by the agent of an earlier tool result; the original is kept and the user can restore it]';
/** Recent tool_use ids listed when the model names an unknown one. */
const LISTED_RECENT_IDS = 5;
/** Characters of the summary's first line used in the overlay's reason. */
const REASON_MAX_CHARS = 120;

export interface TrimToolResultInput {
  tool_use_id: string;
  summary: string;
}

const schema: ObjectSchema = {
  type: 'object',
  properties: {
    tool_use_id: {
      type: 'string',
      description: 'The id of the tool_use whose result to replace (toolu_…).',
      minLength: 1,
    },
    summary: {
      type: 'string',
      description:
        'What you still need from that result: the facts, paths, line numbers and snippets that matter. It ' +
        'replaces the result in your context.',
      minLength: 1,
    },
  },
  required: ['tool_use_id', 'summary'],
  additionalProperties: false,
};

/** The tool_use ids of the assistant message being executed now (the last message, if it is the assistant's). */
export function currentBatch(session: Session): Set<string> {
  const last = session.messages[session.messages.length - 1];
  const ids = new Set<string>();
  if (last?.role !== 'assistant') return ids;
  for (const b of last.blocks) if (b.kind === 'tool_use' && b.toolUseId) ids.add(b.toolUseId);
  return ids;
}

/** The latest tool results' ids, newest first, to help a model that named a wrong one. */
function recentResultIds(session: Session): string[] {
  const out: string[] = [];
  for (let p = session.messages.length - 1; p >= 0 && out.length < LISTED_RECENT_IDS; p--) {
    for (const b of session.messages[p].blocks) {
      if (b.kind === 'tool_result' && b.toolUseId && out.length < LISTED_RECENT_IDS)
        out.push(`${b.toolUseId} (${b.toolName ?? 'tool'})`);
    }
  }
  return out;
}

/** "agent: <first line of the summary>", kept short. */
export function trimReason(summary: string): string {
  const first = summary.trim().split('\n')[0].trim();
  return `agent: ${first.length > REASON_MAX_CHARS ? `${first.slice(0, REASON_MAX_CHARS)}…` : first}`;
}

async function run(input: TrimToolResultInput, ctx: ToolContext): Promise<ToolResult> {
  const { session } = ctx;
  const id = input.tool_use_id.trim();
  if (currentBatch(session).has(id)) {
    return fail(
      `${id} belongs to the tool calls being executed right now; you have not seen its result yet. Trim it in a ` +
        'later turn.',
    );
  }
  const blockId = session.toolResultBlockId(id);
  const block = blockId ? session.block(blockId) : undefined;
  if (!blockId || !block) {
    const recent = recentResultIds(session);
    return fail(
      `no tool result with tool_use_id ${JSON.stringify(id)} in this ` +
        `conversation.${recent.length ? ` Recent results: ${recent.join(', ')}.` : ''}`,
    );
  }
  if (session.isPinned(blockId)) {
    return fail(
      `the result of ${id} is pinned by the user, so it stays verbatim (pins win). Do not try to trim it again.`,
    );
  }
  const own = session.overlaysOnBlock(blockId);
  if (own.some((o) => o.kind === 'trim' && o.author === 'user')) {
    return fail(`the result of ${id} was already trimmed by the user; the user's trim stays.`);
  }
  const original = toolResultText(block.param);
  const text = `${AGENT_TRIM_MARKER}\n${input.summary.trim()}`;
  const tokensBefore = ctx.tokens(original);
  const tokensAfter = ctx.tokens(text);
  if (tokensAfter >= tokensBefore) {
    return fail(
      `the summary (~${tokensAfter} tokens) is not shorter than the result (~${tokensBefore} tokens); nothing ` +
        'was trimmed.',
    );
  }
  // Re-trimming replaces the agent's previous summary instead of stacking on it.
  for (const o of own) if (o.kind === 'trim' && o.author === 'agent') session.removeOverlay(o.id, 'agent');
  session.addOverlay({
    kind: 'trim',
    blockId,
    text,
    author: 'agent',
    reason: trimReason(input.summary),
    callIndex: ctx.callIndex,
    tokensBefore,
    tokensAfter,
    createdAt: new Date().toISOString(),
  });
  const tool = block.toolName ? ` (${block.toolName})` : '';
  return ok(
    `Trimmed the result of ${id}${tool}: ~${tokensBefore} → ~${tokensAfter} tokens. The original stays in the ` +
      'log; the user can restore it.',
  );
}

export const trimToolResultTool: ToolSpec<TrimToolResultInput> = {
  name: 'trim_tool_result',
  description:
    'Replace one earlier tool result in your context with your own short summary, to free context. ' +
    'Use it for large results you have finished with (file dumps, long command output), keeping what you still need. ' +
    'The original is kept in the log and the user can restore it. Results the user pinned cannot be trimmed, ' +
    'and neither can results of the tool calls you are making in the same turn.',
  schema,
  requiresTrust: false,
  run,
};
