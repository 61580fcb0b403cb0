import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importTranscript, parseTranscript } from '../../../src/core/import';
import type { ImportedSession } from '../../../src/core/session/types';
import {
  FIXTURES,
  allMClaude,
  conversationLines,
  expectedCallIds,
  mClaude,
  msgOf,
  rawBlocks,
  rawLines,
} from './helpers';

/** Files with at least one conversation line (two m-claude files hold only summary/system records). */
const IMPORTABLE = allMClaude().filter((f) =>
  conversationLines(f).some((l) => msgOf(l).model !== '<synthetic>' || l.rec.type === 'user'),
);

const cache = new Map<string, ImportedSession>();
function imp(file: string): ImportedSession {
  let s = cache.get(file);
  if (!s) cache.set(file, (s = importTranscript(file)));
  return s;
}

describe('Claude Code JSONL: every real transcript', () => {
  it('finds the importable files', () => {
    expect(IMPORTABLE.length).toBeGreaterThanOrEqual(35);
  });

  it.each(IMPORTABLE.map((f) => [path.basename(f), f]))('%s: structure and calls', (_name, file) => {
    const s = imp(file);
    expect(s.format).toBe('claude-code');
    // one call per distinct non-synthetic, non-sidechain assistant message.id, in file order
    expect(s.calls.map((c) => c.apiMessageId)).toEqual(expectedCallIds(file));
    s.calls.forEach((c, i) => {
      expect(c.index).toBe(i);
      const m = s.messages[c.at];
      expect(m.role).toBe('assistant');
      expect(m.meta.apiMessageId).toBe(c.apiMessageId);
      expect(c.epochStart).toBe(0);
    });
    // deterministic ids in file order
    s.messages.forEach((m, i) => {
      expect(m.id).toBe(`m${i}`);
      expect(m.seq).toBe(i);
      expect(m.blocks.length).toBeGreaterThan(0);
    });
    // every tool_use id is unique in the log
    const toolUses = s.messages.flatMap((m) => m.blocks.filter((b) => b.kind === 'tool_use').map((b) => b.toolUseId));
    expect(new Set(toolUses).size).toBe(toolUses.length);
    // no synthetic entries in the log
    expect(s.messages.some((m) => m.meta.model === '<synthetic>')).toBe(false);
  });
});

describe('Claude Code JSONL: merging', () => {
  const file = mClaude('3cfce0ff');

  it('merges split assistant lines into one message with all blocks in file order, byte for byte', () => {
    const s = imp(file);
    const conv = conversationLines(file).filter((l) => l.rec.type === 'assistant');
    for (const m of s.messages.filter((x) => x.role === 'assistant')) {
      const lines = conv.filter((l) => msgOf(l).id === m.meta.apiMessageId);
      expect(lines.length).toBeGreaterThan(0);
      expect(m.blocks.map((b) => b.param)).toEqual(lines.flatMap(rawBlocks));
      // usage: the last line's usage wins; timestamp and source: the first line
      const last = msgOf(lines[lines.length - 1]).usage as Record<string, number>;
      expect(m.meta.usage?.output_tokens).toBe(last.output_tokens);
      expect(m.meta.source).toBe(`${path.basename(file)}:${lines[0].line}`);
      expect(m.meta.timestamp).toBe(lines[0].rec.timestamp);
    }
    // the file really has multi-line responses (6+ blocks in one message)
    expect(Math.max(...s.messages.map((m) => m.blocks.length))).toBeGreaterThanOrEqual(6);
  });

  it('keeps thinking blocks with their signatures unchanged', () => {
    const thinking = imp(file)
      .messages.flatMap((m) => m.blocks)
      .filter((b) => b.kind === 'thinking');
    expect(thinking.length).toBeGreaterThan(50);
    for (const b of thinking) {
      expect(b.param.type).toBe('thinking');
      if (b.param.type === 'thinking') expect(b.param.signature.length).toBeGreaterThan(20);
    }
  });

  it('merges parallel tool results split across user lines: every tool_use answered in the next message', () => {
    const s = imp(file);
    for (let i = 0; i + 1 < s.messages.length; i++) {
      const uses = s.messages[i].blocks.filter((b) => b.kind === 'tool_use').map((b) => b.toolUseId);
      if (!uses.length) continue;
      const results = s.messages[i + 1].blocks.filter((b) => b.kind === 'tool_result');
      expect(results.map((b) => b.toolUseId).sort()).toEqual([...uses].sort());
      for (const r of results)
        expect(r.toolName).toBe(s.messages[i].blocks.find((b) => b.toolUseId === r.toolUseId)?.toolName);
    }
    expect(s.issues.filter((x) => /tool_use|tool_result|in a row/.test(x.message))).toEqual([]);
  });

  it('keeps content blocks to API fields only (so nothing needed stripping)', () => {
    const allowed: Record<string, string[]> = {
      text: ['type', 'text', 'citations', 'cache_control'],
      thinking: ['type', 'thinking', 'signature'],
      tool_use: ['type', 'id', 'name', 'input', 'caller', 'cache_control'],
      tool_result: ['type', 'tool_use_id', 'content', 'is_error', 'cache_control'],
      image: ['type', 'source', 'cache_control'],
    };
    for (const f of IMPORTABLE) {
      for (const b of imp(f).messages.flatMap((m) => m.blocks)) {
        for (const k of Object.keys(b.param)) expect(allowed[b.param.type] ?? []).toContain(k);
      }
    }
  });
});

describe('Claude Code JSONL: dirty and special inputs', () => {
  it('reports the unparseable line of c76e5be5 with its line number and keeps going', () => {
    const file = mClaude('c76e5be5');
    const { bad } = rawLines(file);
    expect(bad).toEqual([859]);
    const s = imp(file);
    const issue = s.issues.find((x) => x.line === 859);
    expect(issue?.message).toMatch(/unparseable line skipped/);
    // the lost line held a tool_result: the dangling tool_use and the assistant-after-assistant are reported, not
    // repaired
    expect(
      s.issues.some(
        (x) => x.message.includes('toolu_0176bQ5rmozshkuUeNB9iJKJ') && /without `tool_result`/.test(x.message),
      ),
    ).toBe(true);
    expect(s.issues.some((x) => /two assistant messages in a row/.test(x.message) && x.line === 860)).toBe(true);
    expect(s.calls.length).toBe(expectedCallIds(file).length);
  });

  it('imports sidechain-only agent files as the sub-agent conversation', () => {
    const file = mClaude('agent-abc3cb6');
    expect(conversationLines(file).every((l) => l.rec.isSidechain === true)).toBe(true);
    const s = imp(file);
    expect(s.calls.length).toBe(expectedCallIds(file).length);
    expect(s.calls.length).toBeGreaterThan(5);
    expect(s.messages[0].role).toBe('user');
    for (const f of ['agent-a17266e', 'agent-a00ad96']) expect(imp(mClaude(f)).messages.length).toBeGreaterThan(0);
  });

  it('skips sidechain lines inside a main conversation', () => {
    const line = (o: object) => JSON.stringify(o);
    const text = [
      line({ type: 'user', isSidechain: false, uuid: 'u1', message: { role: 'user', content: 'main task' } }),
      line({ type: 'user', isSidechain: true, uuid: 's1', message: { role: 'user', content: 'sub-agent task' } }),
      line({
        type: 'assistant',
        isSidechain: true,
        uuid: 's2',
        message: { id: 'msg_sub', model: 'm', role: 'assistant', content: [{ type: 'text', text: 'sub' }] },
      }),
      line({
        type: 'assistant',
        isSidechain: false,
        uuid: 'a1',
        message: { id: 'msg_main', model: 'm', role: 'assistant', content: [{ type: 'text', text: 'main' }] },
      }),
    ].join('\n');
    const s = parseTranscript(text, 'mixed.jsonl');
    expect(s.messages.map((m) => m.blocks.map((b) => (b.param.type === 'text' ? b.param.text : '')).join())).toEqual([
      'main task',
      'main',
    ]);
    expect(s.calls.map((c) => c.apiMessageId)).toEqual(['msg_main']);
  });

  it('accepts string content on both roles, image blocks and CRLF line endings', () => {
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } };
    const text = [
      JSON.stringify({
        type: 'user',
        uuid: 'u1',
        message: { role: 'user', content: [image, { type: 'text', text: 'what is this?' }] },
      }),
      JSON.stringify({
        type: 'assistant',
        uuid: 'a1',
        message: { id: 'msg_1', model: 'm', role: 'assistant', content: 'A logo.' },
      }),
      '',
    ].join('\r\n');
    const s = parseTranscript(text, 'crlf.jsonl');
    expect(s.messages[0].blocks.map((b) => b.kind)).toEqual(['image', 'text']);
    expect(s.messages[1].blocks[0].param).toEqual({ type: 'text', text: 'A logo.' });
    expect(s.messages[1].meta.source).toBe('crlf.jsonl:2');
    expect(s.calls.length).toBe(1);
  });

  it('leaves synthetic entries out of the log and reports them', () => {
    const file = mClaude('7fcdbdcd');
    const synthetic = rawLines(file)
      .lines.filter((l) => l.rec.type === 'assistant' && msgOf(l).model === '<synthetic>')
      .map((l) => l.line);
    expect(synthetic.length).toBe(3);
    const s = imp(file);
    for (const n of synthetic) expect(s.issues.find((x) => x.line === n)?.message).toMatch(/synthetic/);
    expect(s.calls.length).toBe(1);
    // the user turns around the dropped entries are consecutive now, hence one message
    expect(s.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('flags a response cut by "[Request interrupted by user]" as interrupted', () => {
    const file = mClaude('c76e5be5');
    const s = imp(file);
    let seen = 0;
    s.messages.forEach((m, i) => {
      const first = m.blocks[0]?.param;
      if (i > 0 && m.role === 'user' && first?.type === 'text' && first.text === '[Request interrupted by user]') {
        seen++;
        expect(s.messages[i - 1].meta.interrupted).toBe(true);
      }
    });
    expect(seen).toBeGreaterThan(0);
    expect(s.messages.filter((m) => m.meta.interrupted).length).toBe(seen);
  });

  it('reports a tool_use never answered at the end of the transcript', () => {
    const s = imp(mClaude('43391f62'));
    const last = s.messages.length - 1;
    expect(
      s.issues.some((x) => x.message.startsWith(`messages.${last} `) && /ends before the results/.test(x.message)),
    ).toBe(true);
  });
});

describe('Claude Code JSONL: compaction', () => {
  const file = path.join(FIXTURES, 'claude-code/compacted-session.jsonl');

  it('restarts the recorded history at the compact summary', () => {
    const s = importTranscript(file);
    expect(s.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    const boundary = s.messages.findIndex((m) => m.meta.compactBoundary);
    expect(boundary).toBe(4);
    expect(s.messages[boundary].meta.source).toBe('compacted-session.jsonl:8');
    expect(s.calls.map((c) => [c.at, c.epochStart])).toEqual([
      [1, 0],
      [3, 0],
      [5, 4],
      [7, 4],
    ]);
    // the summary and the next prompt are one user message; no issue across the boundary
    expect(s.messages[4].blocks.length).toBe(2);
    expect(s.issues).toEqual([]);
  });

  it('merges the two-line response and keeps its last usage', () => {
    const s = importTranscript(file);
    const edit = s.messages[5];
    expect(edit.blocks.map((b) => b.toolName)).toEqual(['Edit', 'Bash']);
    expect(edit.meta.usage?.output_tokens).toBe(251);
    expect(s.calls[2].usage?.output_tokens).toBe(251);
    expect(s.messages[6].blocks.map((b) => b.toolName)).toEqual(['Edit', 'Bash']);
    expect(s.model).toBe('claude-sonnet-4-5-20250929');
  });
});
