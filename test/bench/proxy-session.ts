/**
 * Claude-Code-shaped request bodies of any length for the proxy bench: the client's
 * system (3 blocks, 2 breakpoints) and 14 tools, a first prompt with `<system-reminder>`
 * blocks, then tool rounds: an assistant message (signed thinking, a line of text, one to
 * three parallel calls) and the user message with their results (numbered file listings of
 * varied length, a reminder on the last one), a new prompt every PROMPT_EVERY rounds.
 * Deterministic: the same `messages` count gives the same bytes.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { ccSystem, ccTools, CC_MODEL, fileContent } from '../integration/claude-code-client';

/** A user prompt every this many rounds (Claude Code sessions run ~5–15 calls per prompt). */
const PROMPT_EVERY = 12;
/** File listings cycle through these lengths (lines): most reads are short, some whole files. */
const READ_LINES = [6, 12, 20, 9, 30, 14, 70, 10];
const REMINDER =
  '\n\n<system-reminder>\nWhenever you read a file, consider whether it looks malicious.\n</system-reminder>';

/** A signature-shaped opaque string (the test server accepts signatures it did not issue). */
function signature(k: number): string {
  return Buffer.from(`sig-${k}-${'x'.repeat(180)}`).toString('base64');
}

export function roundAssistant(k: number): Anthropic.MessageParam {
  const n = 1 + (k % 3);
  const uses: Anthropic.ToolUseBlockParam[] = Array.from({ length: n }, (_, i) => ({
    type: 'tool_use',
    id: `toolu_${k.toString(36).padStart(6, '0')}_${i}`,
    name: i === 1 ? 'Glob' : 'Read',
    input: i === 1 ? { pattern: `src/**/*${k}.ts` } : { file_path: `/work/app/src/mod${k}_${i}.ts` },
  }));
  return {
    role: 'assistant',
    content: [
      {
        type: 'thinking',
        thinking: `Step ${k}: the last read settles part ${k % 7}; next, check the modules it imports.`,
        signature: signature(k),
      },
      { type: 'text', text: `Reading ${n} file(s).` },
      ...uses,
    ],
  };
}

export function roundResults(k: number): Anthropic.MessageParam {
  const n = 1 + (k % 3);
  const content: Anthropic.ToolResultBlockParam[] = Array.from({ length: n }, (_, i) => {
    const id = `toolu_${k.toString(36).padStart(6, '0')}_${i}`;
    const body =
      i === 1
        ? `/work/app/src/a${k}.ts\n/work/app/src/b${k}.ts`
        : fileContent(`/work/app/src/mod${k}_${i}.ts`, READ_LINES[(k + i) % READ_LINES.length]);
    return { type: 'tool_result', tool_use_id: id, content: i === n - 1 ? body + REMINDER : body };
  });
  // Parallel results arrive in completion order: the last call first.
  return { role: 'user', content: content.reverse() };
}

function prompt(p: number): Anthropic.MessageParam {
  const content: Anthropic.TextBlockParam[] = [];
  if (p === 0)
    content.push({
      type: 'text',
      text: '<system-reminder>\nAs you answer, use the context below.\n# claudeMd\nKeep answers short.\n</system-reminder>',
    });
  content.push({ type: 'text', text: `Task ${p}: read the modules of part ${p} and check them against the tests.` });
  return { role: 'user', content };
}

/** The conversation of a session `messages` long, ending with a user message (ready to send). */
export function ccMessages(messages: number): Anthropic.MessageParam[] {
  const out: Anthropic.MessageParam[] = [prompt(0)];
  let k = 0;
  while (out.length < messages) {
    out.push(roundAssistant(k));
    out.push(roundResults(k));
    k++;
    // A finished task: the model's closing text, then the next prompt.
    if (k % PROMPT_EVERY === 0 && out.length + 2 <= messages) {
      out.push({ role: 'assistant', content: [{ type: 'text', text: `Part ${k / PROMPT_EVERY - 1} is consistent.` }] });
      out.push(prompt(k / PROMPT_EVERY));
    }
  }
  // Keep the exact length and end on a user turn: drop a trailing assistant message.
  if (out.length > messages) out.length = messages;
  if (out[out.length - 1].role === 'assistant') out.pop();
  return out;
}

/** The request body as Claude Code sends it: one breakpoint on the last block of the last message. */
export function ccBody(messages: readonly Anthropic.MessageParam[], sessionId: string): Record<string, unknown> {
  const last = messages[messages.length - 1];
  const content = typeof last.content === 'string' ? [{ type: 'text' as const, text: last.content }] : last.content;
  const tail = {
    ...last,
    content: content.map((b, j) =>
      j === content.length - 1 ? { ...b, cache_control: { type: 'ephemeral' as const } } : b,
    ),
  } as Anthropic.MessageParam;
  return {
    model: CC_MODEL,
    max_tokens: 32000,
    system: ccSystem(),
    tools: ccTools(),
    messages: [...messages.slice(0, -1), tail],
    metadata: { user_id: JSON.stringify({ device_id: 'dev-1', account_uuid: 'acc-1', session_id: sessionId }) },
    thinking: { type: 'enabled', budget_tokens: 31999 },
    context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
    stream: true,
  };
}

/** A text of `mb` MB of log lines (varied words and numbers): what a tool result of a big file or a build log holds. */
export function bigLog(mb: number): string {
  const lines: string[] = [];
  let n = 0;
  for (let i = 0; n < mb * 1e6; i++) {
    const line = `${String(i).padStart(7, '0')} INFO worker-${i % 13} handled request ${(i * 7919) % 100_003} in ${i % 97} ms\n`;
    lines.push(line);
    n += line.length;
  }
  return lines.join('');
}

/** The body of a call of session `sessionId` whose last tool result is `text`. */
export function bigBody(text: string, sessionId = 'stall-big'): string {
  const messages = [...ccMessages(20), roundAssistant(9_000)];
  const results = roundResults(9_000);
  const content = results.content as { type: 'tool_result'; tool_use_id: string; content: string }[];
  content[0] = { ...content[0], content: text };
  return JSON.stringify(ccBody([...messages, results], sessionId));
}
