/**
 * A scripted session of the real Claude Code 2.1.332 (test/fixtures/claude-code/trailing-whitespace-2.1.332.jsonl,
 * recorded against the local server: six Reads of files ending in a newline, seven calls). Replayed under `none`,
 * every call sends exactly the messages the client sent (…requests.json, captured at the server), which needs
 * the version's quirk: tool results sent without the trailing whitespace the transcript keeps.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importTranscript } from '../../../src/core/import';
import { FIXTURES, rawLines, replayNone, withoutCacheControl } from './helpers';

const FILE = path.join(FIXTURES, 'claude-code/trailing-whitespace-2.1.332.jsonl');
const EXPECTED = (
  JSON.parse(readFileSync(path.join(FIXTURES, 'claude-code/trailing-whitespace-2.1.332.requests.json'), 'utf8')) as {
    calls: { call: number; messages: unknown[] }[];
  }
).calls;

describe('Claude Code 2.1.332, scripted (trailing-whitespace-2.1.332.jsonl)', () => {
  it('the fixture records tool results with trailing whitespace the client did not send', () => {
    const results = rawLines(FILE).lines.filter(
      (l) => l.rec.type === 'user' && JSON.stringify(l.rec.message).includes('tool_result'),
    );
    expect(results).toHaveLength(6);
    for (const l of results) expect(l.rec.version).toBe('2.1.332');
    expect(JSON.stringify(results[0].rec.message)).toContain('\\n8\\t"');
    expect(JSON.stringify(EXPECTED[1].messages)).toContain('\\n8"');
  });

  it('replayed with none, 7 of 7 calls send exactly the messages the client sent', async () => {
    const lines = await replayNone(FILE);
    expect(lines.map((l) => l.call)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const identical = lines.filter(
      (l, i) => JSON.stringify(withoutCacheControl(l.request.messages)) === JSON.stringify(EXPECTED[i].messages),
    );
    expect(identical).toHaveLength(7);
  });

  it('imports without issues, one call per response', () => {
    const s = importTranscript(FILE);
    expect(s.issues).toEqual([]);
    expect(s.calls.map((c) => c.at)).toEqual(EXPECTED.map((c) => c.messages.length));
  });
});
