/** The regrouping rules of src/core/import/claude-code-group.ts, on small hand-made Claude Code files. */
import { describe, expect, it } from 'vitest';
import { parseTranscript } from '../../../src/core/import';
import type { ImportedSession } from '../../../src/core/session/types';

type Block = Record<string, unknown>;

/** Usage as Claude Code repeats it on every line of a response. */
function usage(output: number): Block {
  return { input_tokens: 9, cache_creation_input_tokens: 100, cache_read_input_tokens: 2000, output_tokens: output };
}

const a = (id: string, block: Block, output = 2, extra: Block = {}): Block => ({
  type: 'assistant',
  isSidechain: false,
  uuid: `a-${id}-${JSON.stringify(block).length}`,
  requestId: `req_${id}`,
  message: {
    id,
    model: 'claude-sonnet-4-5-20250929',
    role: 'assistant',
    content: [block],
    stop_reason: null,
    usage: usage(output),
  },
  ...extra,
});
const u = (content: string | Block[], extra: Block = {}): Block => ({
  type: 'user',
  isSidechain: false,
  message: { role: 'user', content },
  ...extra,
});
const thinking = (t: string): Block => ({ type: 'thinking', thinking: t, signature: `sig-${t}` });
const text = (t: string): Block => ({ type: 'text', text: t });
const use = (id: string, name = 'Read'): Block => ({ type: 'tool_use', id, name, input: { file_path: `/${id}` } });
const result = (id: string, content = `out ${id}`): Block => ({ type: 'tool_result', tool_use_id: id, content });

function parse(...records: Block[]): ImportedSession {
  return parseTranscript(records.map((r) => JSON.stringify(r)).join('\n'), 'group.jsonl');
}

/** Each message as `role: block, block` with short block names (tool ids, texts). */
function shape(s: ImportedSession): string[] {
  return s.messages.map((m) => `${m.role}: ${m.blocks.map((b) => describeBlock(b.param)).join(', ')}`);
}

function describeBlock(b: { type: string }): string {
  const r = b as Block;
  if (b.type === 'tool_use') return `use ${String(r.id)}`;
  if (b.type === 'tool_result') return `res ${String(r.tool_use_id)}`;
  if (b.type === 'thinking') return `think ${String(r.thinking)}`;
  if (b.type === 'text') return `"${String(r.text)}"`;
  return b.type;
}

describe('Claude Code regrouping: one response is one message', () => {
  it('puts a response interleaved with its results back together: all blocks, then all results', () => {
    const s = parse(
      u('go'),
      a('msg_1', thinking('plan')),
      a('msg_1', text('looking')),
      a('msg_1', use('t1')),
      u([result('t1')]),
      a('msg_1', use('t2', 'Glob'), 90),
      u([result('t2')]),
      a('msg_2', text('done'), 12),
    );
    expect(shape(s)).toEqual([
      'user: "go"',
      'assistant: think plan, "looking", use t1, use t2',
      'user: res t1, res t2',
      'assistant: "done"',
    ]);
    expect(s.calls.map((c) => [c.apiMessageId, c.at])).toEqual([
      ['msg_1', 1],
      ['msg_2', 3],
    ]);
    expect(s.issues).toEqual([]);
    // source and timestamp of the merged message: its first line; usage: the final record
    expect(s.messages[1].meta.source).toBe('group.jsonl:2');
    expect(s.calls[0].usage?.output_tokens).toBe(90);
  });

  it('keeps parallel results in completion order, not call order', () => {
    const s = parse(
      u('go'),
      a('msg_1', use('t1')),
      a('msg_1', use('t2')),
      u([result('t2')]),
      a('msg_1', use('t3')),
      u([result('t3')]),
      u([result('t1')]),
      a('msg_2', text('ok')),
    );
    expect(shape(s)[2]).toBe('user: res t2, res t3, res t1');
    expect(shape(s)[1]).toBe('assistant: use t1, use t2, use t3');
    expect(s.issues).toEqual([]);
  });

  it('puts user text of the turn after the results, wherever it was recorded', () => {
    const s = parse(
      u('go'),
      a('msg_1', use('t1')),
      u('typed before any result'),
      u([result('t1')]),
      a('msg_1', use('t2')),
      u('typed between'),
      u([result('t2')]),
      u([text('[Request interrupted by user for tool use]')]),
      a('msg_2', text('ok')),
    );
    expect(shape(s)).toEqual([
      'user: "go"',
      'assistant: use t1, use t2',
      'user: res t1, res t2, "typed before any result", "typed between", "[Request interrupted by user for tool use]"',
      'assistant: "ok"',
    ]);
    expect(s.issues).toEqual([]);
  });

  it('never reorders the blocks of one line', () => {
    const s = parse(u('go'), a('msg_1', use('t1')), u([text('note'), result('t1')]), a('msg_2', text('ok')));
    expect(shape(s)[2]).toBe('user: "note", res t1');
    expect(s.issues.map((i) => i.message)).toEqual([expect.stringMatching(/tool_result` after other content/)]);
  });

  it('keeps the largest output count of the response, even when a later line repeats a placeholder', () => {
    const s = parse(
      u('go'),
      a('msg_1', thinking('p'), 3),
      a('msg_1', use('t1'), 250),
      u([result('t1')]),
      a('msg_1', use('t2'), 4),
    );
    expect(s.calls).toHaveLength(1);
    expect(s.calls[0].usage).toEqual({
      input_tokens: 9,
      output_tokens: 250,
      cache_creation_input_tokens: 100,
      cache_read_input_tokens: 2000,
    });
  });
});

describe('Claude Code regrouping: what is not merged', () => {
  it('keeps a response seen again after another turn as a separate message, reported, one call', () => {
    const s = parse(
      u('go'),
      a('msg_1', use('t1')),
      u([result('t1')]),
      a('msg_2', text('first answer')),
      u('next'),
      a('msg_1', use('t9')),
    );
    expect(shape(s)).toEqual([
      'user: "go"',
      'assistant: use t1',
      'user: res t1',
      'assistant: "first answer"',
      'user: "next"',
      'assistant: use t9',
    ]);
    expect(s.calls.map((c) => c.apiMessageId)).toEqual(['msg_1', 'msg_2']);
    expect(s.issues.find((i) => i.line === 6)?.message).toMatch(
      /message\.id msg_1 seen again after other messages: kept as a separate message/,
    );
  });

  it('does not merge across user content when the response has no tool_use (a new turn)', () => {
    const s = parse(
      u('go'),
      a('msg_1', text('part one')),
      u('[Request interrupted by user]'),
      a('msg_1', text('part two')),
    );
    expect(shape(s)).toEqual([
      'user: "go"',
      'assistant: "part one"',
      'user: "[Request interrupted by user]"',
      'assistant: "part two"',
    ]);
    expect(s.messages[1].meta.interrupted).toBe(true);
    expect(s.issues.some((i) => /seen again/.test(i.message))).toBe(true);
  });

  it('does not merge across results that answer another response', () => {
    const s = parse(
      u('go'),
      a('msg_0', use('t0')),
      u([result('t0')]),
      a('msg_1', use('t1')),
      u([result('t0', 'again')]),
      a('msg_1', use('t2')),
    );
    expect(shape(s).slice(3)).toEqual(['assistant: use t1', 'user: res t0', 'assistant: use t2']);
    expect(s.issues.some((i) => /msg_1 seen again/.test(i.message))).toBe(true);
  });

  it('a compact summary starts a new message and history even right after results', () => {
    const summary = u('This session is being continued from a previous conversation…', { isCompactSummary: true });
    const s = parse(
      u('go'),
      a('msg_1', use('t1')),
      u([result('t1')]),
      summary,
      u('continue'),
      a('msg_1', use('t2')),
      a('msg_3', text('ok')),
    );
    expect(shape(s)).toEqual([
      'user: "go"',
      'assistant: use t1',
      'user: res t1',
      'user: "This session is being continued from a previous conversation…", "continue"',
      'assistant: use t2',
      'assistant: "ok"',
    ]);
    expect(s.messages[3].meta.compactBoundary).toBe(true);
    expect(s.calls.map((c) => [c.apiMessageId, c.at, c.epochStart])).toEqual([
      ['msg_1', 1, 0],
      ['msg_3', 5, 3],
    ]);
  });

  it('sidechain lines in a main conversation are skipped before grouping, even between lines of one response', () => {
    const side = { isSidechain: true };
    const s = parse(
      u('go'),
      a('msg_1', use('t1', 'Task')),
      u('sub-agent prompt', side),
      a('msg_side', use('s1'), 5, side),
      u([result('s1')], side),
      a('msg_1', use('t2')),
      u([result('t2')]),
      u([result('t1')]),
      a('msg_2', text('ok')),
    );
    expect(shape(s)).toEqual(['user: "go"', 'assistant: use t1, use t2', 'user: res t2, res t1', 'assistant: "ok"']);
    expect(s.calls.map((c) => c.apiMessageId)).toEqual(['msg_1', 'msg_2']);
    expect(s.issues).toEqual([]);
  });

  it('a synthetic entry between lines is left out and does not split the response', () => {
    const synthetic = {
      type: 'assistant',
      message: { id: 'msg_syn', model: '<synthetic>', role: 'assistant', content: [text('Request timed out')] },
    };
    const s = parse(u('go'), a('msg_1', use('t1')), synthetic, a('msg_1', use('t2')), u([result('t1'), result('t2')]));
    expect(shape(s)).toEqual(['user: "go"', 'assistant: use t1, use t2', 'user: res t1, res t2']);
    expect(s.issues.map((i) => i.line)).toEqual([3]);
  });
});

describe('Claude Code regrouping: a response recorded twice keeps one copy', () => {
  it('drops a content block recorded twice under one message.id and reports it', () => {
    const s = parse(
      u('go'),
      a('msg_1', thinking('p')),
      a('msg_1', use('t1')),
      a('msg_1', use('t1')),
      u([result('t1')]),
      a('msg_1', thinking('p')),
      a('msg_2', text('ok')),
    );
    expect(shape(s)).toEqual(['user: "go"', 'assistant: think p, use t1', 'user: res t1', 'assistant: "ok"']);
    expect(s.issues.map((i) => [i.line, i.message])).toEqual([
      [4, 'tool_use block recorded twice under message.id msg_1 (first on line 3): kept once'],
      [6, 'thinking block recorded twice under message.id msg_1 (first on line 2): kept once'],
    ]);
  });

  it('recognises the copy whatever its key order', () => {
    const reordered = { input: { file_path: '/t1' }, name: 'Read', id: 't1', type: 'tool_use' };
    const s = parse(u('go'), a('msg_1', use('t1')), a('msg_1', reordered), u([result('t1')]));
    expect(shape(s)[1]).toBe('assistant: use t1');
    expect(s.issues).toHaveLength(1);
  });

  it('keeps an identical tool_result once, and keeps (and reports) a different second one', () => {
    const s = parse(
      u('go'),
      a('msg_1', use('t1')),
      a('msg_1', use('t2')),
      u([result('t1')]),
      u([result('t1')]),
      u([result('t2')]),
      u([result('t2', 'other')]),
    );
    expect(shape(s)[2]).toBe('user: res t1, res t2, res t2');
    expect(s.issues.map((i) => [i.line, i.message])).toEqual([
      [5, 'tool_result for t1 recorded twice (first on line 4): kept once'],
      [7, 'second, different tool_result for t2 (first on line 6): both kept'],
    ]);
  });

  it('a lost tool result is reported by the history check, not made up', () => {
    const s = parse(u('go'), a('msg_1', use('t1')), a('msg_1', use('t2')), u([result('t2')]), a('msg_2', text('ok')));
    expect(shape(s)[2]).toBe('user: res t2');
    expect(s.issues.map((i) => i.message)).toEqual([
      expect.stringMatching(
        /^messages\.1 \(m1\): `tool_use` ids were found without `tool_result` blocks immediately after: t1 /,
      ),
    ]);
  });
});
