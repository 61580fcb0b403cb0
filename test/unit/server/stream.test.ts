import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { faults, startTestServer, type TestServer } from '../../../src/dev/server';
import { signThinking } from '../../../src/dev/sse';

const MODEL = 'claude-sonnet-4-6';
let server: TestServer;
let client: Anthropic;

beforeAll(async () => {
  server = await startTestServer({ fallback: 'fail' });
  client = new Anthropic({ apiKey: 'test', baseURL: server.url, maxRetries: 0 });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const ask = (text: string): Anthropic.MessageParam[] => [{ role: 'user', content: text }];

describe('test server: streaming with the real SDK', () => {
  it('streams text deltas and finalMessage() carries usage', async () => {
    server.script({
      content: [{ type: 'text', text: 'Hello there! This reply is streamed in several small chunks.' }],
    });
    const stream = client.messages.stream({ model: MODEL, max_tokens: 256, messages: ask('Say hello') });
    const deltas: string[] = [];
    stream.on('text', (d) => deltas.push(d));
    const msg = await stream.finalMessage();
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Hello there! This reply is streamed in several small chunks.');
    expect(msg.stop_reason).toBe('end_turn');
    expect(msg.id).toMatch(/^msg_[0-9A-Za-z]{24}$/);
    expect(msg.usage.input_tokens).toBe(Math.ceil('Say hello'.length / 3.5));
    expect(msg.usage.output_tokens).toBeGreaterThan(1);
    expect(msg.usage.cache_read_input_tokens).toBe(0);
    const rec = server.requests[0];
    expect(rec.validation.ok).toBe(true);
    expect(rec.headers['x-api-key']).toBeUndefined();
    expect(rec.headers['anthropic-version']).toBeDefined();
    expect(rec.response?.kind).toBe('stream');
  });

  it('frames events exactly as the API does', async () => {
    server.script({ content: [{ type: 'text', text: 'ok' }] });
    const res = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': 'k' },
      body: JSON.stringify({ model: MODEL, max_tokens: 10, stream: true, messages: ask('hi') }),
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('request-id')).toMatch(/^req_/);
    const raw = await res.text();
    const frames = raw.split('\n\n').filter((f) => f !== '');
    expect(frames.every((f) => /^event: [a-z_]+\ndata: \{.*\}$/s.test(f))).toBe(true);
    const names = frames.map((f) => f.split('\n')[0].slice('event: '.length));
    expect(names).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    for (const f of frames) {
      const data = JSON.parse(f.split('\n')[1].slice('data: '.length)) as { type: string };
      expect(data.type).toBe(f.split('\n')[0].slice('event: '.length));
    }
  });

  it('parses parallel tool_use inputs streamed as split input_json_delta chunks', async () => {
    const first = {
      path: 'src/core/session/log.ts',
      range: { start: 1, end: 80 },
      note: 'quotes " and \\ and ünïcödé 😀',
    };
    const second = { pattern: 'cache_control', paths: ['src', 'test'], max: 50 };
    server.script({
      content: [
        { type: 'text', text: 'Reading two things at once.' },
        { type: 'tool_use', name: 'read_file', input: first },
        { type: 'tool_use', name: 'search', input: second, id: 'toolu_fixed_id' },
      ],
    });
    const stream = client.messages.stream({ model: MODEL, max_tokens: 256, messages: ask('look around') });
    const partials: string[] = [];
    stream.on('inputJson', (p) => partials.push(p));
    const msg = await stream.finalMessage();
    expect(msg.stop_reason).toBe('tool_use');
    const uses = msg.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
    expect(uses.map((u) => u.input)).toEqual([first, second]);
    expect(uses[0].id).toMatch(/^toolu_[0-9A-Za-z]{24}$/);
    expect(uses[1].id).toBe('toolu_fixed_id');
    expect(partials.length).toBeGreaterThan(6);
  });

  it('streams thinking with a signature the server later verifies', async () => {
    server.script({
      content: [
        { type: 'thinking', thinking: 'Let me think about this carefully.' },
        { type: 'text', text: 'Done.' },
      ],
    });
    const msg = await client.messages
      .stream({
        model: MODEL,
        max_tokens: 2048,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: ask('think'),
      })
      .finalMessage();
    const thinking = msg.content[0] as Anthropic.ThinkingBlock;
    expect(thinking.type).toBe('thinking');
    expect(thinking.signature).toBe(signThinking('Let me think about this carefully.'));
    // Sending it back modified is rejected like the API does.
    const tampered: Anthropic.MessageParam[] = [
      ...ask('think'),
      {
        role: 'assistant',
        content: [
          { ...thinking, thinking: 'edited' },
          { type: 'text', text: 'Done.' },
        ],
      },
      { role: 'user', content: 'and now?' },
    ];
    server.script({ content: [{ type: 'text', text: 'x' }] });
    await expect(client.messages.create({ model: MODEL, max_tokens: 10, messages: tampered })).rejects.toThrow(
      'messages.1.content.0: Invalid `signature` in `thinking` block',
    );
  });

  it('answers non-streaming requests with a complete Message', async () => {
    server.script({
      content: [
        { type: 'text', text: 'plain' },
        { type: 'tool_use', name: 'list_files', input: { path: '.' } },
      ],
    });
    const msg = await client.messages.create({ model: MODEL, max_tokens: 64, messages: ask('list') });
    expect(msg.type).toBe('message');
    expect(msg.content[1]).toMatchObject({ type: 'tool_use', name: 'list_files', input: { path: '.' } });
    expect(msg.stop_reason).toBe('tool_use');
    expect(msg.usage.input_tokens).toBeGreaterThan(0);
  });

  it('reports cache writes and reads from the simulator', async () => {
    const system: Anthropic.TextBlockParam[] = [
      { type: 'text', text: 'You are a careful agent. '.repeat(200), cache_control: { type: 'ephemeral' } },
    ];
    const body = { model: MODEL, max_tokens: 32, system, messages: ask('first question') };
    server.script({ content: [{ type: 'text', text: 'a' }] }, { content: [{ type: 'text', text: 'b' }] });
    const first = await client.messages.stream(body).finalMessage();
    const second = await client.messages.stream(body).finalMessage();
    const systemTokens = Math.ceil(system[0].text.length / 3.5);
    expect(first.usage.cache_creation_input_tokens).toBe(systemTokens);
    expect(first.usage.cache_read_input_tokens).toBe(0);
    expect(second.usage.cache_read_input_tokens).toBe(systemTokens);
    expect(second.usage.cache_creation_input_tokens).toBe(0);
    expect(second.usage.input_tokens).toBe(Math.ceil('first question'.length / 3.5));
  });

  it('counts tokens and lists models', async () => {
    const tools: Anthropic.Tool[] = [
      {
        name: 'read_file',
        description: 'Read a file',
        input_schema: { type: 'object', properties: { path: { type: 'string' } } },
      },
    ];
    const counted = await client.messages.countTokens({
      model: MODEL,
      messages: ask('How many tokens is this?'),
      tools,
    });
    const toolChars = JSON.stringify(tools[0]).length;
    expect(counted.input_tokens).toBe(Math.ceil('How many tokens is this?'.length / 3.5) + Math.ceil(toolChars / 3.5));
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toContain(MODEL);
    expect((await client.models.retrieve('claude-haiku-4-5')).display_name).toBe('Claude Haiku 4.5');
  });

  it('uses queued function entries with the request they answer', async () => {
    server.script(({ body }) => ({ content: [{ type: 'text', text: `you sent ${body.messages.length} message(s)` }] }));
    const msg = await client.messages.create({ model: MODEL, max_tokens: 10, messages: ask('count') });
    expect(msg.content[0]).toMatchObject({ type: 'text', text: 'you sent 1 message(s)' });
    expect(server.pending()).toBe(0);
  });

  it('notices a client that aborts mid-stream', async () => {
    server.fault(faults.slow(20));
    server.script({ content: [{ type: 'text', text: 'a long answer that keeps going for quite a while '.repeat(4) }] });
    const stream = client.messages.stream({ model: MODEL, max_tokens: 64, messages: ask('go') });
    stream.on('text', () => stream.abort());
    await expect(stream.finalMessage()).rejects.toThrow();
    await vi.waitFor(() => expect(server.requests[0].response?.interrupted).toBe(true));
    expect(server.requests[0].response?.cache?.blockCount).toBe(1);
  });
});
