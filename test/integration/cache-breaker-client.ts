/**
 * An SDK client (the real @anthropic-ai/sdk) that breaks its own prompt cache on purpose,
 * one way at a time, with clean calls in between: it reorders its tools, changes a system
 * block, edits an earlier user message and switches model. Every request's bytes are
 * captured as they leave the SDK, and so are its headers.
 */
import Anthropic from '@anthropic-ai/sdk';

export const BREAKER_SESSION = 'breaker-session-1';
export const MODEL_A = 'claude-sonnet-4-6';
export const MODEL_B = 'claude-opus-4-6';
export const CLIENT_BETA = 'interleaved-thinking-2025-05-14';

/** What each call of the script does, and the miss the verdict must name (null: a clean call). */
export const SCRIPT: readonly { readonly step: string; readonly expected: string | null }[] = [
  { step: 'first', expected: 'first_call' },
  { step: 'append', expected: null },
  { step: 'reorder-tools', expected: 'tools_changed' },
  { step: 'append', expected: null },
  { step: 'change-system', expected: 'system_changed' },
  { step: 'append', expected: null },
  { step: 'edit-earlier-message', expected: 'messages_changed' },
  { step: 'append', expected: null },
  { step: 'switch-model', expected: 'model_changed' },
  { step: 'append', expected: null },
];

/** A stable system block long enough to be cached by both models (Opus 4.6 needs 4,096 tokens). */
function rules(): string {
  return Array.from(
    { length: 420 },
    (_, i) => `Rule ${i}: keep the change small, explain it, and run the tests before you answer.`,
  ).join('\n');
}

function tools(): Anthropic.Tool[] {
  return ['Read', 'Grep', 'Edit', 'Bash'].map((name) => ({
    name,
    description: `${name}: ${'Use this tool when the task needs it and read its parameters carefully. '.repeat(8)}`,
    input_schema: { type: 'object' as const, properties: { path: { type: 'string' } }, required: [] },
  }));
}

export interface BreakerClient {
  /** Request bodies as sent, in order. */
  readonly sent: string[];
  /** Request headers as sent, in order. */
  readonly headers: Record<string, string>[];
  /** Ids of the responses, in order. */
  readonly replyIds: string[];
  /** Run the whole script (one call per step); `beforeCall` runs before each call (tests move a clock). */
  run(beforeCall?: (call: number) => void): Promise<void>;
}

export function breakerClient(baseURL: string): BreakerClient {
  const sent: string[] = [];
  const headers: Record<string, string>[] = [];
  const replyIds: string[] = [];
  const spy: typeof fetch = (input, init) => {
    if (typeof init?.body === 'string') sent.push(init.body);
    headers.push(Object.fromEntries(new Headers(init?.headers).entries()));
    return fetch(input, init);
  };
  const client = new Anthropic({
    apiKey: 'sk-ant-test-secret',
    baseURL,
    maxRetries: 0,
    fetch: spy,
    defaultHeaders: { 'anthropic-beta': CLIENT_BETA },
  });
  let model = MODEL_A;
  let toolList = tools();
  const system: Anthropic.TextBlockParam[] = [
    { type: 'text', text: rules(), cache_control: { type: 'ephemeral' } },
    { type: 'text', text: 'Today is Thursday.' },
  ];
  const messages: Anthropic.MessageParam[] = [];
  let turn = 0;
  // Like Claude Code: block arrays throughout, one breakpoint moved to the last block of the last message.
  const withTail = (): Anthropic.MessageParam[] =>
    messages.map((m, i) => {
      if (i !== messages.length - 1 || typeof m.content === 'string') return m;
      const content = m.content.map((b, j) =>
        j === m.content.length - 1 ? { ...b, cache_control: { type: 'ephemeral' as const } } : b,
      );
      return { ...m, content } as Anthropic.MessageParam;
    });
  const user = (text: string): Anthropic.MessageParam => ({ role: 'user', content: [{ type: 'text', text }] });

  const call = async (): Promise<void> => {
    const body = {
      model,
      max_tokens: 1024,
      system,
      tools: toolList,
      messages: withTail(),
      metadata: { user_id: JSON.stringify({ device_id: 'dev-1', account_uuid: 'acc-1', session_id: BREAKER_SESSION }) },
    };
    // Streaming and non-streaming in turn: the verdict must come from both response shapes.
    const reply =
      turn % 2 === 0 ? await client.messages.stream(body).finalMessage() : await client.messages.create(body);
    replyIds.push(reply.id);
    messages.push({
      role: 'assistant',
      content: reply.content.map((b) =>
        b.type === 'text' ? { type: 'text' as const, text: b.text } : b,
      ) as Anthropic.ContentBlockParam[],
    });
  };

  return {
    sent,
    headers,
    replyIds,
    async run(beforeCall?: (call: number) => void): Promise<void> {
      for (const [i, { step }] of SCRIPT.entries()) {
        beforeCall?.(i);
        if (step === 'reorder-tools') toolList = [...toolList.slice(1), toolList[0]];
        if (step === 'change-system') system[1] = { type: 'text', text: 'Today is Friday.' };
        if (step === 'edit-earlier-message') messages[0] = user('Prompt 1, reworded: look at the build.');
        if (step === 'switch-model') model = MODEL_B;
        messages.push(user(`Prompt ${++turn}: what next?`));
        await call();
      }
    },
  };
}
