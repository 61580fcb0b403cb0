/**
 * Observations of thought-action agent loops (SWE-agent without function calling,
 * mini-swe-agent): the environment's answer to the agent's action, recorded as a user
 * message the importer marks (MessageMeta.observation). Strategies treat an observation like
 * a tool result; these helpers give them what a tool result carries by itself.
 */
import type { LogMessage } from '../session/types';

/** The observation blocks of a user message (LogBlock.observation). */
export function observationIds(m: LogMessage): string[] {
  if (m.role !== 'user' || !m.meta.observation) return [];
  return m.blocks.filter((b) => b.observation).map((b) => b.id);
}

/** A fenced code block: its info string and body (the action of a thought-action reply). */
const FENCE = /```([^\n`]*)\n([\s\S]*?)```/g;
/** A command word worth naming: `create`, `python`, `find_file`, `cat`, … */
const WORD = /^[A-Za-z_][\w.-]{0,39}$/;

/**
 * The command word of an assistant message's action, as the observation's "tool name": the
 * first word of the last fenced block of its text (SWE-agent 0.x and mini-swe-agent put the
 * action there). Undefined when there is none.
 */
export function actionWord(m: LogMessage | undefined): string | undefined {
  if (!m || m.role !== 'assistant') return undefined;
  let body: string | undefined;
  for (const b of m.blocks) {
    if (b.param.type !== 'text') continue;
    for (const match of b.param.text.matchAll(FENCE)) body = match[2];
  }
  const word = body?.trim().split(/\s+/, 1)[0];
  return word && WORD.test(word) ? word : undefined;
}
