/**
 * A client that talks like Claude Code (reference, "What real clients send and record"),
 * driven by the real @anthropic-ai/sdk: 3 system blocks with breakpoints on the 2nd and 3rd,
 * 14 tools without breakpoints, `<system-reminder>` blocks before the first prompt and at the
 * end of some tool results, thinking enabled (31999 budget, 32000 max_tokens), the
 * `clear_thinking` context edit, `metadata.user_id` as JSON with the session id, the
 * `x-claude-code-session-id` header, `/v1/messages?beta=true`, one breakpoint on the last block
 * of the last message, and parallel tool results sent in completion order. The bytes of every
 * request are captured as they leave the SDK.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { ScriptedTurn } from '../../src/dev/types';

export const CC_MODEL = 'claude-sonnet-4-6';
const TOOL_NAMES = [
  'Agent',
  'Bash',
  'Edit',
  'Glob',
  'Grep',
  'Read',
  'Write',
  'Skill',
  'TodoWrite',
  'WebFetch',
  'WebSearch',
  'NotebookEdit',
  'BashOutput',
  'KillShell',
];

export function ccSystem(): Anthropic.TextBlockParam[] {
  const para = (seed: string, n: number): string =>
    Array.from(
      { length: n },
      (_, i) => `${seed} rule ${i}: follow the project's conventions, keep answers short, and use the tools.`,
    ).join('\n');
  return [
    { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude." },
    { type: 'text', text: para('Main', 160), cache_control: { type: 'ephemeral' } },
    { type: 'text', text: `${para('Env', 40)}\nWorking directory: /work/app`, cache_control: { type: 'ephemeral' } },
  ];
}

export function ccTools(): Anthropic.Tool[] {
  return TOOL_NAMES.map((name) => ({
    name,
    description: `${name}: ${'Use this tool when the task needs it; read its parameters carefully. '.repeat(12)}`,
    input_schema: {
      type: 'object',
      properties: { file_path: { type: 'string', description: 'absolute path' }, pattern: { type: 'string' } },
      required: [],
    },
  }));
}

/** A file as Read returns it: numbered lines, ~`lines` of them. */
export function fileContent(path: string, lines: number): string {
  return Array.from(
    { length: lines },
    (_, i) =>
      `${String(i + 1).padStart(6)}\u2192export const value_${i} = computeSomething("${path}", ${i}); // REF-${path.length}-${i}`,
  ).join('\n');
}

/** The model's side: turn k of a scripted Claude Code session (thinking, text, parallel reads). */
export function ccTurn(k: number, callsPerPrompt: number): ScriptedTurn {
  const last = k % callsPerPrompt === callsPerPrompt - 1;
  const thinking = { type: 'thinking' as const, thinking: `Step ${k}: decide what to read next.` };
  if (last)
    return {
      content: [
        thinking,
        { type: 'text', text: `Done with part ${Math.floor(k / callsPerPrompt)}: the files are consistent.` },
      ],
    };
  const n = 1 + (k % 3);
  const uses = Array.from({ length: n }, (_, i) => ({
    type: 'tool_use' as const,
    name: i === 1 ? 'Glob' : 'Read',
    input: i === 1 ? { pattern: `src/**/*${k}.ts` } : { file_path: `/work/app/src/mod${k}_${i}.ts` },
  }));
  return { content: [thinking, { type: 'text', text: `Reading ${n} file(s).` }, ...uses] };
}

export interface CcClient {
  readonly sent: string[];
  /** Run one user prompt to its end (tool loop included); returns the number of calls made. */
  prompt(text: string): Promise<number>;
  readonly messages: Anthropic.MessageParam[];
}

export interface CcClientOptions {
  maxRetries?: number;
  /** `<system-reminder>` blocks of the first user message, before the prompt (default: two). */
  firstReminders?: string[];
  /** Lines of a file as Read returns it (default 120). */
  readLines?: number;
}

export function ccClient(baseURL: string, sessionId: string, opts: CcClientOptions = {}): CcClient {
  const sent: string[] = [];
  const fetchSpy: typeof fetch = (input, init) => {
    if (typeof init?.body === 'string') sent.push(init.body);
    return fetch(input, init);
  };
  const client = new Anthropic({
    apiKey: 'sk-ant-test-secret',
    baseURL,
    maxRetries: opts.maxRetries ?? 0,
    fetch: fetchSpy,
    defaultHeaders: {
      'x-claude-code-session-id': sessionId,
      'x-app': 'cli',
      'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27',
    },
  });
  const messages: Anthropic.MessageParam[] = [];
  const system = ccSystem();
  const tools = ccTools();
  let first = true;
  const withTail = (msgs: Anthropic.MessageParam[]): Anthropic.MessageParam[] =>
    msgs.map((m, i) => {
      if (i !== msgs.length - 1 || typeof m.content === 'string') return m;
      const content = m.content.map((b, j) =>
        j === m.content.length - 1 ? { ...b, cache_control: { type: 'ephemeral' as const } } : b,
      );
      return { ...m, content } as Anthropic.MessageParam;
    });
  const call = async (): Promise<Anthropic.Message> => {
    const body = {
      model: CC_MODEL,
      max_tokens: 32000,
      system,
      tools,
      messages: withTail(messages),
      metadata: { user_id: JSON.stringify({ device_id: 'dev-1', account_uuid: 'acc-1', session_id: sessionId }) },
      thinking: { type: 'enabled' as const, budget_tokens: 31999 },
      context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
      stream: true as const,
    };
    const stream = client.beta.messages.stream(body as unknown as Anthropic.Beta.MessageCreateParamsStreaming);
    return (await stream.finalMessage()) as unknown as Anthropic.Message;
  };
  return {
    sent,
    messages,
    async prompt(text: string): Promise<number> {
      const content: Anthropic.ContentBlockParam[] = [];
      const reminders = opts.firstReminders ?? [
        '<system-reminder>\nAs you answer, use the context below.\n# claudeMd\nKeep answers short.\n</system-reminder>',
        '<system-reminder>\nToday is 2026-11-24.\n</system-reminder>',
      ];
      if (first) for (const text of reminders) content.push({ type: 'text', text });
      first = false;
      content.push({ type: 'text', text });
      messages.push({ role: 'user', content });
      let calls = 0;
      for (;;) {
        const reply = await call();
        calls++;
        messages.push({ role: 'assistant', content: reply.content as Anthropic.ContentBlockParam[] });
        const uses = reply.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
        if (!uses.length) return calls;
        // Parallel tools finish in their own order: the last call first.
        const results = [...uses].reverse().map((u, i): Anthropic.ToolResultBlockParam => {
          const path = String(
            (u.input as { file_path?: string }).file_path ?? (u.input as { pattern?: string }).pattern,
          );
          const body =
            u.name === 'Read' ? fileContent(path, opts.readLines ?? 120) : `/work/app/src/a.ts\n/work/app/src/b.ts`;
          return {
            type: 'tool_result',
            tool_use_id: u.id,
            content:
              i === 0
                ? `${body}\n\n<system-reminder>\nWhenever you read a file, consider whether it looks malicious.\n</system-reminder>`
                : body,
          };
        });
        messages.push({ role: 'user', content: results });
      }
    },
  };
}
