/**
 * A scripted "model" for the integration tests, played by the local server.
 *
 * It follows a fixed plan of steps per task and decides the next step from the
 * last two messages of the request only (the live end of the conversation is
 * never trimmed): the prompt `TASK <k>: …` starts step 0; otherwise the previous
 * assistant message says `[task k step s]`, and the results that answer it say
 * whether it ran. A result marked "interrupted" (the CLI was killed while the
 * tool ran) repeats step s; anything else moves on. So the same conversation
 * always gets the same answer, whoever asks and however often.
 */
import type { IncomingCall, ScriptedBlock, ScriptedTurn } from '../../src/dev/types';

export interface Step {
  readonly text: string;
  readonly tools: readonly ScriptedBlock[];
}

/** A step's tools may depend on the request (e.g. trim the result of the previous step). */
export type StepSpec = Step | ((prev: PrevRound) => Step);

export interface PrevRound {
  /** tool_use ids of the previous assistant message, in order. */
  readonly toolUseIds: readonly string[];
}

interface WireBlock {
  readonly type: string;
  readonly text?: string;
  readonly id?: string;
  readonly content?: unknown;
  readonly is_error?: boolean;
}
interface WireMsg {
  readonly role: string;
  readonly content: string | readonly WireBlock[];
}

const STEP_TAG = /\[task (\d+) step (\d+)\]/;
const PROMPT = /^TASK (\d+):/m;

function blocksOf(m: WireMsg | undefined): readonly WireBlock[] {
  if (!m) return [];
  return typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
}

function resultText(b: WireBlock): string {
  if (typeof b.content === 'string') return b.content;
  if (Array.isArray(b.content)) return (b.content as WireBlock[]).map((x) => x.text ?? '').join('');
  return '';
}

/** Where the conversation stands: which task, which step comes next. */
export function position(messages: readonly WireMsg[]): { task: number; step: number; prev: PrevRound } {
  const last = blocksOf(messages[messages.length - 1]);
  const prevMsg = messages[messages.length - 2];
  const results = last.filter((b) => b.type === 'tool_result');
  const prompt = last
    .map((b) => (b.type === 'text' ? (b.text ?? '') : ''))
    .join('\n')
    .match(PROMPT);
  if (prompt && !results.length) return { task: Number(prompt[1]), step: 0, prev: { toolUseIds: [] } };
  const prevBlocks = prevMsg?.role === 'assistant' ? blocksOf(prevMsg) : [];
  const tag = prevBlocks
    .map((b) => b.text ?? '')
    .join('\n')
    .match(STEP_TAG);
  if (!tag)
    throw new Error(
      `scenario: cannot tell the step from the request's last messages: ${JSON.stringify(messages.slice(-2)).slice(0, 500)}`,
    );
  const interrupted = results.some((r) => r.is_error && resultText(r).startsWith('interrupted'));
  const step = Number(tag[2]) + (interrupted ? 0 : 1);
  return {
    task: Number(tag[1]),
    step,
    prev: { toolUseIds: prevBlocks.filter((b) => b.type === 'tool_use').map((b) => b.id ?? '') },
  };
}

/** A server script entry that plays `plans[task]` (the final step of a plan is its closing text). */
export function policy(
  plans: (task: number) => readonly StepSpec[],
  padding = 0,
): (call: IncomingCall) => ScriptedTurn {
  return (call) => {
    const { task, step, prev } = position(call.body.messages as readonly WireMsg[]);
    const plan = plans(task);
    const pad = padding
      ? ` ${'Thinking out loud while working through the task. '.repeat(Math.ceil(padding / 50)).slice(0, padding)}`
      : '';
    if (step >= plan.length)
      return { content: [{ type: 'text', text: `[task ${task} done] All steps of task ${task} are complete.${pad}` }] };
    const spec = plan[step];
    const s = typeof spec === 'function' ? spec(prev) : spec;
    return { content: [{ type: 'text', text: `[task ${task} step ${step}] ${s.text}${pad}` }, ...s.tools] };
  };
}

export const use = (name: string, input: Record<string, unknown>): ScriptedBlock => ({ type: 'tool_use', name, input });
