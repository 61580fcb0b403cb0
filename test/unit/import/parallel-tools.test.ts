/**
 * A Claude Code 2.1 session with parallel tool calls (test/fixtures/claude-code/parallel-tools.jsonl):
 * every content block of a response on its own line, tool_result lines between the tool_use
 * lines in completion order. Replayed under `none`, every call must send exactly the messages
 * the client sent (parallel-tools.requests.json, written by hand from the conversation).
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importTranscript } from '../../../src/core/import';
import { FIXTURES, rawLines, replayNone, withoutCacheControl } from './helpers';

const FILE = path.join(FIXTURES, 'claude-code/parallel-tools.jsonl');

interface SentCall {
  call: number;
  message_id: string;
  messages: { role: string; content: unknown[] }[];
}

const EXPECTED = (
  JSON.parse(readFileSync(path.join(FIXTURES, 'claude-code/parallel-tools.requests.json'), 'utf8')) as {
    calls: SentCall[];
  }
).calls;

describe('Claude Code parallel tool calls (parallel-tools.jsonl)', () => {
  it('the fixture really interleaves: result lines sit between tool_use lines of one message.id', () => {
    const conv = rawLines(FILE).lines.filter((l) => l.rec.type === 'user' || l.rec.type === 'assistant');
    const ids = conv.map((l) => (l.rec.type === 'assistant' ? (l.rec.message as { id: string }).id : 'user'));
    const split = new Set(ids.filter((id, i) => id !== 'user' && ids.indexOf(id) < i && ids[i - 1] === 'user'));
    expect(split.size).toBe(2);
    expect(EXPECTED.length).toBe(8);
  });

  it('replayed with none, every call sends exactly the messages the client sent', async () => {
    const lines = await replayNone(FILE);
    expect(lines.map((l) => l.call)).toEqual(EXPECTED.map((c) => c.call));
    for (const [i, l] of lines.entries()) {
      expect(withoutCacheControl(l.request.messages), `call ${i}`).toEqual(EXPECTED[i].messages);
    }
  });

  it('one call per response, at the merged assistant message, with the final usage; no issue', () => {
    const s = importTranscript(FILE);
    expect(s.issues).toEqual([]);
    expect(s.calls.map((c) => c.apiMessageId)).toEqual(EXPECTED.map((c) => c.message_id));
    expect(s.calls.map((c) => c.at)).toEqual(EXPECTED.map((c) => c.messages.length));
    // the final record of each response: its largest output_tokens, never a message_start placeholder
    expect(s.calls.map((c) => c.usage?.output_tokens)).toEqual([214, 371, 268, 96, 163, 88, 77, 31]);
    // with the TTL split of the writes as recorded (this client wrote 1-hour entries)
    expect(s.calls[1].usage).toEqual({
      input_tokens: 9,
      output_tokens: 371,
      cache_creation_input_tokens: 1480,
      cache_read_input_tokens: 23786,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 1480 },
    });
    // a merged message is sourced and timed at its first line
    const b = s.messages[s.calls[1].at];
    expect(b.meta.source).toBe('parallel-tools.jsonl:9');
    expect(b.meta.timestamp).toBe(rawLines(FILE).lines.find((l) => l.line === 9)?.rec.timestamp);
  });
});
