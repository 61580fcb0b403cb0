/**
 * Claude Code's own normalizations between what it records and what it sends, one test per
 * quirk, named after it (src/core/import/claude-code-quirks.ts).
 */
import { describe, expect, it } from 'vitest';
import { parseTranscript } from '../../../src/core/import';
import { versionAtLeast } from '../../../src/core/import/claude-code-quirks';

/** A two-call session whose Read result ends in whitespace, recorded by Claude Code `version`. */
function session(version: string, result: unknown): string {
  const base = { sessionId: 's1', version, cwd: '/w', isSidechain: false };
  const lines = [
    {
      ...base,
      type: 'user',
      uuid: 'u1',
      timestamp: '2026-11-28T10:00:00.000Z',
      message: { role: 'user', content: 'Read a.ts' },
    },
    {
      ...base,
      type: 'assistant',
      uuid: 'a1',
      timestamp: '2026-11-28T10:00:01.000Z',
      message: {
        id: 'msg_1',
        role: 'assistant',
        model: 'claude-sonnet-4-6',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: '/w/a.ts' } }],
        usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      },
    },
    {
      ...base,
      type: 'user',
      uuid: 'u2',
      timestamp: '2026-11-28T10:00:02.000Z',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: result }] },
    },
    {
      ...base,
      type: 'assistant',
      uuid: 'a2',
      timestamp: '2026-11-28T10:00:03.000Z',
      message: {
        id: 'msg_2',
        role: 'assistant',
        model: 'claude-sonnet-4-6',
        content: [{ type: 'text', text: 'Done.' }],
        usage: { input_tokens: 20, output_tokens: 2, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      },
    },
  ];
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

const sentResult = (text: string): unknown => parseTranscript(text, 'q.jsonl').messages[2].blocks[0].param;
const READ = '     1\texport const a = 1;\n     2\t';

describe('Claude Code quirks', () => {
  it('2.1.332 trims tool_result trailing whitespace: sent without it, as the client sent it', () => {
    expect(sentResult(session('2.1.332', READ))).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_1',
      content: '     1\texport const a = 1;\n     2',
    });
    expect(
      sentResult(
        session('2.2.0', [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two \n' },
        ]),
      ),
    ).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_1',
      content: [
        { type: 'text', text: 'one' },
        { type: 'text', text: 'two' },
      ],
    });
  });

  it('before 2.1.332 the tool_result is sent as recorded; whitespace alone stays too', () => {
    expect(sentResult(session('2.1.331', READ))).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_1',
      content: READ,
    });
    expect(sentResult(session('2.1.332', '\n'))).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_1',
      content: '\n',
    });
  });

  it('compares versions by number, not text', () => {
    expect(versionAtLeast('2.1.332', [2, 1, 332])).toBe(true);
    expect(versionAtLeast('2.1.40', [2, 1, 332])).toBe(false);
    expect(versionAtLeast('2.10.0', [2, 1, 332])).toBe(true);
    expect(versionAtLeast(undefined, [2, 1, 332])).toBe(false);
  });
});
