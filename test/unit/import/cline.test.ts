import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importTranscript, parseTranscript } from '../../../src/core/import';
import { FIXTURES } from './helpers';

const FILE = path.join(FIXTURES, 'cline/api_conversation_history.json');

describe('Cline api_conversation_history.json', () => {
  it('detects and imports the fixture', () => {
    const s = importTranscript(FILE);
    expect(s.format).toBe('cline');
    expect(s.messages.length).toBe(8);
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
    expect(s.calls.map((c) => c.at)).toEqual([1, 3, 5, 7]);
    expect(s.calls.every((c) => c.usage === undefined && c.epochStart === 0)).toBe(true);
    expect(s.calls[0].model).toBe('claude-sonnet-4-5-20250929');
    expect(s.messages[0].meta.timestamp).toBe(new Date(1768409712031).toISOString());
  });

  it('keeps text-form tool results as text and flags the message that answers a tool_use with text', () => {
    const s = importTranscript(FILE);
    const flagged = s.messages.filter((m) => m.meta.unansweredToolUses).map((m) => m.id);
    expect(flagged).toEqual(['m4']);
    const first = s.messages[4].blocks[0].param;
    expect(first).toEqual({ type: 'text', text: "[replace_in_file for 'src/stats.ts'] Result:" });
    // classic XML-era result (m2) answers no tool_use block: not flagged, kept verbatim
    expect(s.messages[2].blocks[0].param).toEqual({ type: 'text', text: "[read_file for 'src/stats.ts'] Result:" });
    // the native result (m6) is a real tool_result with its tool name
    expect(s.messages[6].blocks[0].toolName).toBe('execute_command');
    // reported as something the API would reject, not repaired
    expect(s.issues.map((i) => i.message)).toEqual([
      'messages.3 (m3): `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01Rk3mXbqkVd8Z6o9uKAYw1T (the next message answers with text instead (Cline-style results))',
    ]);
  });

  it('strips Cline-only block fields and message fields', () => {
    const raw = JSON.parse(readFileSync(FILE, 'utf8')) as { content: { call_id?: string }[] }[];
    expect(raw[3].content[1].call_id).toBeDefined();
    const s = importTranscript(FILE);
    for (const b of s.messages.flatMap((m) => m.blocks)) {
      expect(Object.keys(b.param)).not.toContain('call_id');
      expect(Object.keys(b.param)).not.toContain('ts');
    }
    expect(s.messages[3].blocks[1].param).toEqual({
      type: 'tool_use',
      id: 'toolu_01Rk3mXbqkVd8Z6o9uKAYw1T',
      name: 'replace_in_file',
      input: expect.objectContaining({ path: 'src/stats.ts' }) as unknown,
    });
  });

  it('detects Cline by its texts when the file has another name', () => {
    const text = readFileSync(FILE, 'utf8');
    expect(parseTranscript(text, 'export.json').format).toBe('cline');
    // without Cline marks the same shape is plain Anthropic JSON
    const plain = JSON.stringify([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ]);
    expect(parseTranscript(plain, 'export.json').format).toBe('anthropic-json');
    expect(parseTranscript(plain, 'api_conversation_history.json').format).toBe('cline');
  });

  it('drops thinking blocks without a signature and signatures on non-thinking blocks, as Cline does', () => {
    const history = [
      { role: 'user', content: '<task>\nsay hi\n</task>', ts: 1 },
      {
        role: 'assistant',
        ts: 2,
        content: [
          { type: 'thinking', thinking: 'no signature' },
          { type: 'thinking', thinking: 'signed', signature: 'sig' },
          { type: 'text', text: 'hi', signature: 'gemini-thought', reasoning_details: [] },
        ],
      },
    ];
    const s = parseTranscript(JSON.stringify(history), 'api_conversation_history.json');
    expect(s.messages[1].blocks.map((b) => b.param)).toEqual([
      { type: 'thinking', thinking: 'signed', signature: 'sig' },
      { type: 'text', text: 'hi' },
    ]);
    expect(s.issues.map((i) => i.message)).toEqual([
      'messages[1].content[0]: thinking block without signature left out (Cline drops it before sending)',
    ]);
  });

  it("merges consecutive records of one response (Cline's response id) and keeps the id", () => {
    const history = [
      { role: 'user', content: [{ type: 'text', text: '<task>\nlist files\n</task>' }], ts: 1 },
      { role: 'assistant', id: 'resp_1', content: [{ type: 'text', text: 'Listing.' }], ts: 2 },
      {
        role: 'assistant',
        id: 'resp_1',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'list_files', input: { path: '.' } }],
        ts: 3,
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.ts' }], ts: 4 },
    ];
    const s = parseTranscript(JSON.stringify(history), 'api_conversation_history.json');
    expect(s.format).toBe('cline');
    expect(s.messages.map((m) => m.blocks.map((b) => b.kind))).toEqual([
      ['text'],
      ['text', 'tool_use'],
      ['tool_result'],
    ]);
    expect(s.messages[1].meta.timestamp).toBe(new Date(2).toISOString());
    expect(s.calls.map((c) => [c.apiMessageId, c.at])).toEqual([['resp_1', 1]]);
    expect(s.issues).toEqual([]);
  });
});
