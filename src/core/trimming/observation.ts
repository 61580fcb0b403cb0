/**
 * Observations of thought-action agent loops (SWE-agent without function calling,
 * mini-swe-agent): the environment's answer to the agent's action, recorded as a user
 * message the importer marks (MessageMeta.observation). Strategies treat an observation like
 * a tool result; these helpers give them what a tool result carries by itself.
 */
import type { LogBlock, LogMessage } from '../session/types';

/**
 * The observation blocks of a user message (LogBlock.observation): a thought-action loop's
 * observation, or a client's text-form tool output (session/client-text.ts).
 */
export function observationIds(m: LogMessage): string[] {
  if (m.role !== 'user') return [];
  return m.blocks.filter((b) => b.observation).map((b) => b.id);
}

/**
 * A client's text-form tool output (Cline, Roo: session/client-text.ts names the tool from the
 * header), as opposed to a thought-action loop's observation (no tool name).
 */
export function isClientToolOutput(b: LogBlock | undefined): boolean {
  return b?.observation === true && b.toolName !== undefined;
}

/** The message answers the agent's previous action (an observation, or text-form tool output): not a new prompt. */
export function answersAction(m: LogMessage): boolean {
  return m.role === 'user' && (m.meta.observation === true || m.blocks.some((b) => b.observation));
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
