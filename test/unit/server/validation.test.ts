import Anthropic, { APIError } from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../src/dev/server';

type Msg = Anthropic.MessageParam;
const MODEL = 'claude-sonnet-4-6';
let server: TestServer;
let client: Anthropic;

beforeAll(async () => {
  server = await startTestServer({ fallback: 'echo' });
  client = new Anthropic({ apiKey: 'test', baseURL: server.url, maxRetries: 0 });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const use = (id: string, name = 'read_file'): Anthropic.ToolUseBlockParam => ({
  type: 'tool_use',
  id,
  name,
  input: { path: 'a.ts' },
});
const result = (id: string, content = 'ok'): Anthropic.ToolResultBlockParam => ({
  type: 'tool_result',
  tool_use_id: id,
  content,
});
const text = (t: string, cached = false): Anthropic.TextBlockParam =>
  cached ? { type: 'text', text: t, cache_control: { type: 'ephemeral' } } : { type: 'text', text: t };

async function rejection(
  messages: Msg[],
  extra: Partial<Anthropic.MessageCreateParamsNonStreaming> = {},
): Promise<APIError> {
  const err = await client.messages
    .create({ model: MODEL, max_tokens: 32, messages, ...extra })
    .catch((e: unknown) => e);
  if (!(err instanceof APIError)) throw new Error(`expected a rejection, got ${JSON.stringify(err)}`);
  return err;
}

async function badRequest(
  messages: Msg[],
  wording: string,
  extra: Partial<Anthropic.MessageCreateParamsNonStreaming> = {},
): Promise<void> {
  const err = await rejection(messages, extra);
  expect(err).toBeInstanceOf(Anthropic.BadRequestError);
  expect(err.type).toBe('invalid_request_error');
  // APIError.message is `400 <error JSON>`, so quotes in the wording appear escaped there.
  expect(err.message).toContain(JSON.stringify(wording).slice(1, -1));
  expect(err.apiMessage).toContain(wording);
  expect(err.requestID).toMatch(/^req_/);
  expect((err.error as { request_id?: string }).request_id).toBe(err.requestID);
  expect(err.headers?.get('x-should-retry')).toBe('false');
  const rec = server.requests[server.requests.length - 1];
  expect(rec.validation).toMatchObject({ ok: false, status: 400 });
  expect(rec.validation.message).toContain(wording);
}

describe('test server: request checks with the API wording', () => {
  it('accepts a well-formed parallel tool round trip', async () => {
    const msg = await client.messages.create({
      model: MODEL,
      max_tokens: 32,
      messages: [
        { role: 'user', content: 'look' },
        { role: 'assistant', content: [text('Reading.'), use('toolu_a'), use('toolu_b')] },
        { role: 'user', content: [result('toolu_b'), result('toolu_a'), text('thanks')] },
      ],
    });
    expect(msg.content[0]).toMatchObject({ type: 'text' });
    expect(server.requests[0].validation).toEqual({ ok: true, status: 200, warnings: [] });
  });

  it('tool_use without tool_result immediately after', async () => {
    await badRequest(
      [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [use('toolu_a'), use('toolu_b')] },
        { role: 'user', content: [result('toolu_a')] },
      ],
      'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_b. Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
    );
    await badRequest(
      [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [use('toolu_a')] },
        { role: 'user', content: 'never mind' },
      ],
      'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_a.',
    );
  });

  it('unexpected tool_use_id', async () => {
    await badRequest(
      [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [use('toolu_a')] },
        { role: 'user', content: [result('toolu_zzz')] },
      ],
      'messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_zzz. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
    );
    await badRequest(
      [{ role: 'user', content: [result('toolu_orphan')] }],
      'messages.0.content.0: unexpected `tool_use_id`',
    );
  });

  it('tool_result blocks must come first', async () => {
    await badRequest(
      [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [use('toolu_a')] },
        { role: 'user', content: [text('first'), result('toolu_a')] },
      ],
      'messages.2: Did not find 1 `tool_result` block(s) at the beginning of this message.',
    );
  });

  it('empty content and empty or blank text blocks', async () => {
    await badRequest(
      [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [] },
        { role: 'user', content: 'again' },
      ],
      'messages.1: all messages must have non-empty content except for the optional final assistant message',
    );
    await badRequest([{ role: 'user', content: '' }], 'messages.0: all messages must have non-empty content');
    await badRequest([{ role: 'user', content: [text('')] }], 'messages: text content blocks must be non-empty');
    await badRequest(
      [{ role: 'user', content: [text('  \n')] }],
      'messages: text content blocks must contain non-whitespace text',
    );
  });

  it('more than 4 cache_control blocks, counting automatic caching', async () => {
    const five: Msg[] = [
      { role: 'user', content: [text('a', true), text('b', true), text('c', true), text('d', true), text('e', true)] },
    ];
    await badRequest(five, 'A maximum of 4 blocks with cache_control may be provided. Found 5.');
    const four: Msg[] = [
      { role: 'user', content: [text('a', true), text('b', true), text('c', true), text('d', true), text('e')] },
    ];
    await badRequest(four, 'Found 5.', { cache_control: { type: 'ephemeral' } });
    await expect(client.messages.create({ model: MODEL, max_tokens: 8, messages: four })).resolves.toBeDefined();
  });

  it('conversation must end with a user message on 4.6+ models; older ones take a prefill', async () => {
    const prefill: Msg[] = [
      { role: 'user', content: 'Answer in JSON' },
      { role: 'assistant', content: '{' },
    ];
    await badRequest(
      prefill,
      'This model does not support assistant message prefill. The conversation must end with a user message.',
    );
    await badRequest(prefill, 'does not support assistant message prefill', { model: 'claude-opus-4-7' });
    await expect(
      client.messages.create({ model: 'claude-haiku-4-5', max_tokens: 8, messages: prefill }),
    ).resolves.toBeDefined();
    await badRequest(
      [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: 'The answer is ' },
      ],
      'messages: final assistant content cannot end with trailing whitespace',
      { model: 'claude-haiku-4-5' },
    );
  });

  it('thinking rules: no assistant message ends with thinking; with thinking on, no prefill and the loop head starts with thinking', async () => {
    const think: Anthropic.ThinkingBlockParam = { type: 'thinking', thinking: 'plan', signature: 'foreign-signature' };
    const on = { thinking: { type: 'enabled' as const, budget_tokens: 1024 }, max_tokens: 2048 };
    await badRequest(
      [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [think] },
      ],
      'messages.1: The final block in an assistant message cannot be `thinking`.',
      { model: 'claude-haiku-4-5' },
    );
    // An earlier thinking-only response is accepted (a real Claude Code session sent one).
    await expect(
      client.messages.create({
        model: MODEL,
        max_tokens: 32,
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: [think] },
          { role: 'user', content: 'more' },
        ],
      }),
    ).resolves.toBeDefined();
    await badRequest(
      [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [use('toolu_a')] },
        { role: 'user', content: [result('toolu_a')] },
      ],
      'messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block',
      on,
    );
    await badRequest(
      [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: 'Sure' },
      ],
      'When `thinking` is enabled, the conversation must end with a `user` message.',
      { ...on, model: 'claude-haiku-4-5' },
    );
    await badRequest(
      [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [think, text('Sure')] },
      ],
      'messages.1.content.0: When thinking is disabled, an `assistant` message in the final position cannot contain `thinking`.',
      { model: 'claude-haiku-4-5' },
    );
    // The same loop with its thinking first is accepted; thinking off, a loop head without thinking is fine.
    const loop: Msg[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [think, use('toolu_a')] },
      { role: 'user', content: [result('toolu_a')] },
    ];
    await expect(client.messages.create({ model: MODEL, messages: loop, ...on })).resolves.toBeDefined();
    await expect(
      client.messages.create({
        model: MODEL,
        max_tokens: 32,
        messages: [loop[0], { role: 'assistant', content: [use('toolu_a')] }, loop[2]],
      }),
    ).resolves.toBeDefined();
  });

  it('first message must be a user message', async () => {
    await badRequest(
      [
        { role: 'assistant', content: 'Hi' },
        { role: 'user', content: 'hello' },
      ],
      'messages: first message must use the "user" role',
    );
  });

  it('tool_use ids must be unique', async () => {
    await badRequest(
      [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [use('toolu_a')] },
        { role: 'user', content: [result('toolu_a')] },
        { role: 'assistant', content: [use('toolu_a')] },
        { role: 'user', content: [result('toolu_a')] },
      ],
      'messages.3.content.0: `tool_use` ids must be unique',
    );
  });

  it('prompt is too long', async () => {
    const small = await startTestServer({ contextWindow: 1000, fallback: 'echo' });
    try {
      const c = new Anthropic({ apiKey: 'test', baseURL: small.url, maxRetries: 0 });
      const err = await c.messages
        .create({ model: MODEL, max_tokens: 8, messages: [{ role: 'user', content: 'y'.repeat(3500 * 2) }] })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Anthropic.BadRequestError);
      expect((err as APIError).message).toContain('prompt is too long: 2000 tokens > 1000 maximum');
    } finally {
      await small.close();
    }
  });

  it('unknown model is a 404 and tool names must be unique', async () => {
    const err = await rejection([{ role: 'user', content: 'hi' }], { model: 'claude-nonexistent-9' });
    expect(err).toBeInstanceOf(Anthropic.NotFoundError);
    expect(err.message).toContain('model: claude-nonexistent-9');
    const tool: Anthropic.Tool = { name: 'read_file', input_schema: { type: 'object' } };
    await badRequest([{ role: 'user', content: 'hi' }], 'tools: Tool names must be unique.', { tools: [tool, tool] });
  });

  it('header and body shape checks (raw HTTP)', async () => {
    const post = (headers: Record<string, string>, body: unknown): Promise<Response> =>
      fetch(`${server.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const ok = { model: MODEL, max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] };
    const noVersion = await post({}, ok);
    expect(noVersion.status).toBe(400);
    expect(await noVersion.json()).toMatchObject({
      error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' },
    });
    const badVersion = await post({ 'anthropic-version': '2024-10-22' }, ok);
    expect((await badVersion.json()).error.message).toBe('anthropic-version: "2024-10-22" is not a valid version');
    const noMax = await post({ 'anthropic-version': '2023-06-01' }, { model: MODEL, messages: ok.messages });
    expect((await noMax.json()).error.message).toBe('max_tokens: Field required');
    const notFound = await fetch(`${server.url}/v1/nope`);
    expect(notFound.status).toBe(404);
  });

  it('accepts consecutive same-role messages (the API merges them) and records a warning', async () => {
    await client.messages.create({
      model: MODEL,
      max_tokens: 8,
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [use('toolu_a'), use('toolu_b')] },
        { role: 'user', content: [result('toolu_a')] },
        { role: 'user', content: [result('toolu_b')] },
      ],
    });
    expect(server.requests[0].validation.ok).toBe(true);
    expect(server.requests[0].validation.warnings).toEqual([
      'messages.3: consecutive "user" messages are merged into one turn by the API',
    ]);
  });
});
