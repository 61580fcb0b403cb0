/**
 * Which records of an OpenAI-style trajectory are observations: the environment's answer to
 * the agent's action (command output, a file view, the harness's complaint about the action),
 * which thought-action agent loops record as role-`user` messages. They are marked
 * (MessageMeta.observation) so they are trimmed like tool results rather than protected as the
 * user's words (session/user-text.ts). Only what the recording's own structure says is marked:
 *
 * - SWE-agent (`{history: [...]}`, 0.x and 1.x without function calling): a `user` record right
 *   after an assistant record that carries its parsed `action` (a string). Demonstrations
 *   (`is_demo: true`) are never marked; a 1.x record with a `message_type` other than
 *   `observation` is not either. The task (first user record) follows no action.
 * - mini-swe-agent (`{messages, trajectory_format: "mini-swe-agent…"}`, or a bare message list
 *   with its signature: no tool calls, an observation in its `<returncode>` template or an
 *   action in an `mswea_bash_command` block): a `user` record right after an assistant record
 *   whose text holds exactly one action block (```bash or ```mswea_bash_command).
 *
 * Anything else (plain chats, function-calling trajectories, whose results are tool messages,
 * Claude Code, Cline, Anthropic JSON) gets no marks.
 */
import { isRecord, type JsonRecord } from './util';

/** mini-swe-agent's action blocks: the default ```bash and the `mswea_bash_command` of its GitHub-issue config. */
const MINI_ACTION = /```(?:bash|mswea_bash_command)[ \t]*\n/g;
/** mini-swe-agent's observation template (`<returncode>N</returncode>\n<output>…`). */
const MINI_OBSERVATION = /^<returncode>-?\d+<\/returncode>/;

/** Indexes (into `list`) of the records that are observations; empty unless the trajectory is one of the above. */
export function observationIndexes(
  list: readonly JsonRecord[],
  key: 'history' | 'messages' | undefined,
  top: JsonRecord | undefined,
): Set<number> {
  const out = new Set<number>();
  if (key === 'history' && list.some((r) => r.role === 'assistant' && typeof r.action === 'string')) {
    list.forEach((rec, i) => {
      const prev = list[i - 1];
      if (rec.role !== 'user' || rec.is_demo === true || prev?.role !== 'assistant' || prev.is_demo === true) return;
      if (typeof prev.action !== 'string' || !prev.action.trim()) return;
      if (rec.message_type !== undefined && rec.message_type !== 'observation') return;
      out.add(i);
    });
  } else if (key !== 'history' && isMiniSweAgent(list, top)) {
    list.forEach((rec, i) => {
      const prev = list[i - 1];
      if (rec.role === 'user' && prev?.role === 'assistant' && actionBlocks(prev.content) === 1) out.add(i);
    });
  }
  return out;
}

function isMiniSweAgent(list: readonly JsonRecord[], top: JsonRecord | undefined): boolean {
  const format = top?.trajectory_format;
  if (typeof format === 'string') return format.startsWith('mini-swe-agent');
  if (list.some((r) => r.role === 'tool' || r.role === 'function' || 'tool_calls' in r || 'function_call' in r))
    return false;
  const firstUser = list.findIndex((r) => r.role === 'user');
  return list.some(
    (r, i) =>
      (r.role === 'user' && i > firstUser && MINI_OBSERVATION.test(textOf(r.content))) ||
      (r.role === 'assistant' && textOf(r.content).includes('```mswea_bash_command')),
  );
}

/** How many action blocks an assistant message's text holds. */
function actionBlocks(content: unknown): number {
  return textOf(content).match(MINI_ACTION)?.length ?? 0;
}

/** The text of a message's content: a string, or its text parts joined. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p: unknown) => (typeof p === 'string' ? p : isRecord(p) && typeof p.text === 'string' ? p.text : ''))
    .join('\n');
}
