import { describe, expect, it } from 'vitest';
import { parseTranscript } from '../../../src/core/import';

const conversation = [
  { role: 'user', content: 'List the files.' },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Listing.' },
      { type: 'tool_use', id: 'toolu_1', name: 'list_files', input: { path: '.' } },
    ],
  },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.ts\nb.ts' }] },
  { role: 'assistant', content: 'Two files: a.ts and b.ts.' },
];

describe('Anthropic JSON', () => {
  it('an array of MessageParam', () => {
    const s = parseTranscript(JSON.stringify(conversation), 'history.json');
    expect(s.format).toBe('anthropic-json');
    expect(s.messages.map((m) => [m.id, m.role])).toEqual([
      ['m0', 'user'],
      ['m1', 'assistant'],
      ['m2', 'user'],
      ['m3', 'assistant'],
    ]);
    expect(s.calls.map((c) => [c.index, c.at, c.epochStart])).toEqual([
      [0, 1, 0],
      [1, 3, 0],
    ]);
    expect(s.messages[2].blocks[0].toolName).toBe('list_files');
    expect(s.messages[3].blocks[0].param).toEqual({ type: 'text', text: 'Two files: a.ts and b.ts.' });
    expect(s.messages[1].meta.source).toBe('history.json:messages[1]');
    expect(s.issues).toEqual([]);
    expect(s.system).toBeUndefined();
  });

  it('a request-like object with system, tools and model', () => {
    const body = {
      model: 'claude-sonnet-4-5',
      system: [{ type: 'text', text: 'You are terse.' }],
      tools: [{ name: 'list_files', description: 'List files', input_schema: { type: 'object', properties: {} } }],
      messages: conversation,
    };
    const s = parseTranscript(JSON.stringify(body, null, 2), 'request.json');
    expect(s.format).toBe('anthropic-json');
    expect(s.model).toBe('claude-sonnet-4-5');
    expect(s.system).toEqual(body.system);
    expect(s.tools?.map((t) => t.name)).toEqual(['list_files']);
    expect(s.calls.length).toBe(2);
  });

  it('keeps saved API responses\u2019 id, model and usage', () => {
    const response = {
      id: 'msg_01X',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content: [{ type: 'text', text: 'Hi.', citations: null }],
      usage: { input_tokens: 12, output_tokens: 3, cache_read_input_tokens: 1000 },
    };
    const s = parseTranscript(JSON.stringify([{ role: 'user', content: 'Hello' }, response]), 'saved.json');
    expect(s.calls[0]).toMatchObject({
      apiMessageId: 'msg_01X',
      model: 'claude-sonnet-4-5-20250929',
      usage: { input_tokens: 12, output_tokens: 3, cache_read_input_tokens: 1000 },
    });
    expect(s.model).toBe('claude-sonnet-4-5-20250929');
  });

  it('imports an invalid history faithfully and reports what the API would reject', () => {
    const broken = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_a', name: 'x', input: {} }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'oops' },
          { type: 'tool_result', tool_use_id: 'toolu_zz', content: '?' },
        ],
      },
      { role: 'assistant', content: 'a' },
      { role: 'assistant', content: 'b' },
    ];
    const s = parseTranscript(JSON.stringify(broken), 'broken.json');
    expect(s.messages.length).toBe(5);
    const text = s.issues.map((i) => i.message).join('\n');
    expect(text).toMatch(
      /messages\.1 \(m1\): `tool_use` ids were found without `tool_result` blocks immediately after: toolu_a/,
    );
    expect(text).toMatch(/messages\.2 \(m2\): content\.1: `tool_result` after other content/);
    expect(text).toMatch(/unexpected `tool_use_id` found in `tool_result` blocks: toolu_zz \(no such tool_use/);
    expect(text).toMatch(/messages\.4 \(m4\): two assistant messages in a row/);
  });

  it('a one-line minified array is JSON, not JSONL', () => {
    expect(parseTranscript(JSON.stringify(conversation), 'one-line.jsonl').format).toBe('anthropic-json');
  });

  it('reports results that answer an earlier tool_use (out of order)', () => {
    const history = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_a', name: 'x', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_a', content: '1' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_b', name: 'x', input: {} }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', content: 'again' },
          { type: 'tool_result', tool_use_id: 'toolu_b', content: '2' },
        ],
      },
    ];
    const s = parseTranscript(JSON.stringify(history), 'order.json');
    expect(s.issues.map((i) => i.message)).toEqual([
      'messages.4 (m4): content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_a (out of order: it answers messages.1 (m1))',
    ]);
  });

  it('consecutive elements of one saved response (same id) are one message: distinct blocks, final usage, one call', () => {
    const part = (content: unknown[], output: number) => ({
      id: 'msg_01P',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content,
      usage: { input_tokens: 9, output_tokens: output },
    });
    const think = { type: 'thinking', thinking: 'plan', signature: 'sig' };
    const useA = { type: 'tool_use', id: 'toolu_a', name: 'x', input: {} };
    const useB = { type: 'tool_use', id: 'toolu_b', name: 'y', input: {} };
    const history = [
      { role: 'user', content: 'go' },
      part([think], 2),
      part([useA], 120),
      part([useA, useB], 3),
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_b', content: 'b' },
          { type: 'tool_result', tool_use_id: 'toolu_a', content: 'a' },
        ],
      },
      { role: 'assistant', content: 'Done.' },
    ];
    const s = parseTranscript(JSON.stringify(history), 'split.json');
    expect(s.messages.map((m) => m.blocks.map((b) => b.toolUseId ?? b.kind))).toEqual([
      ['text'],
      ['thinking', 'toolu_a', 'toolu_b'],
      ['toolu_b', 'toolu_a'],
      ['text'],
    ]);
    expect(s.messages[1].meta.source).toBe('split.json:messages[1]');
    expect(s.calls.map((c) => [c.apiMessageId, c.at, c.usage?.output_tokens])).toEqual([
      ['msg_01P', 1, 120],
      [undefined, 3, undefined],
    ]);
    expect(s.issues.map((i) => i.message)).toEqual([
      'messages[3]: tool_use block recorded twice under id msg_01P (first in messages[2]): kept once',
    ]);
  });

  it('the same response id after other messages stays a separate message, reported, counted once', () => {
    const response = { id: 'msg_01R', role: 'assistant', content: 'Hi.' };
    const s = parseTranscript(
      JSON.stringify([{ role: 'user', content: 'a' }, response, { role: 'user', content: 'b' }, response]),
      'again.json',
    );
    expect(s.messages.length).toBe(4);
    expect(s.calls.map((c) => c.at)).toEqual([1]);
    expect(s.issues.map((i) => i.message)).toEqual([
      'messages[3]: assistant id msg_01R seen again after other messages: kept as a separate message, counted as one call',
    ]);
  });
});
