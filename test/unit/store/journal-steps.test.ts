/**
 * A batch written in steps (issue 27: a 20 MB record must not stop the proxy for its whole write): the JSON is made
 * a slice at a time and the file gets the bytes one write would give it, over several event-loop turns; what is
 * appended meanwhile follows it; closing midway finishes it; a crash midway leaves only a torn last line.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Session } from '../../../src/core/session';
import { journalPath, loadJournal, loadJournalText, openJournal } from '../../../src/core/store';
import { jsonPieces } from '../../../src/core/store/json-slices';
import { TURN_CHARS } from '../../../src/core/store/stepped-batch';
import { tempDir } from './helpers';

let dir: string;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const turn = (): Promise<void> => new Promise((ok) => setImmediate(ok));
const lines = (file: string): string[] => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
/** A tool result of `chars` characters with quotes, backslashes, newlines, controls and surrogate pairs to escape. */
const bigText = (chars: number): string => {
  const unit = 'line "quoted" \\ path\tx\u0001 é 😀 end\n';
  return unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);
};

describe('jsonPieces', () => {
  const cases: [string, unknown][] = [
    ['a long string', 'ab"\\\n😀'.repeat(50)],
    ['a surrogate pair on every slice edge', 'x😀'.repeat(40)],
    ['lone surrogates', `a\ud800b\udc00${'\ud83d'.repeat(30)}`],
    ['a record', { v: 1, type: 'message', message: { content: [{ type: 'text', text: 'q"'.repeat(40) }] } }],
    ['skipped members and holes', { a: undefined, b: [undefined, () => 1, 'x'.repeat(40)], c: 'y'.repeat(33), d: 2 }],
    ['a toJSON object', { when: new Date(0), text: 'z'.repeat(40), nested: { toJSON: () => 'short' } }],
    ['short values', { a: 1, b: [true, null, 'x'] }],
  ];
  for (const [name, value] of cases) {
    it(`joins to JSON.stringify's text: ${name}`, () => {
      for (const slice of [2, 3, 7, 16]) expect([...jsonPieces(value, slice)].join('')).toBe(JSON.stringify(value));
    });
  }

  it('gives a long string in pieces of about the slice, a short record in one', () => {
    const pieces = [...jsonPieces({ text: 'a'.repeat(100) }, 10)];
    expect(pieces.length).toBeGreaterThan(10);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThanOrEqual(12);
    expect([...jsonPieces({ text: 'a'.repeat(5) }, 10)]).toHaveLength(1);
  });
});

describe('a batch written in steps', () => {
  const text = bigText(3 * TURN_CHARS);

  it('writes the big record over several turns, the same bytes as one write, and what came meanwhile after it', async () => {
    const journal = openJournal(dir, 's1');
    const s = new Session({ system: 'sys', model: 'm' });
    journal.attach(s);
    const file = journalPath(dir, 's1');
    const before = fs.statSync(file).size;
    const release = journal.hold();
    s.append('user', [{ type: 'tool_result', tool_use_id: 'toolu_1', content: text }]);
    const done = release.inSteps();
    // After the first turn part of the record is in the file: a torn line, not the whole.
    expect(fs.statSync(file).size).toBeGreaterThan(before);
    expect(fs.readFileSync(file, 'utf8').endsWith('\n')).toBe(false);
    journal.recordUsage(0, { input_tokens: 1, output_tokens: 2 });
    await turn();
    expect(lines(file).some((l) => l.includes('"usage"'))).toBe(false);
    await done;
    const records = lines(file).map((l) => JSON.parse(l) as { type: string; message?: { content: unknown[] } });
    expect(records.map((r) => r.type)).toEqual(['header', 'message', 'usage']);
    expect(records[1].message?.content).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_1', content: text }]);
    // Byte for byte what JSON.stringify gives the record.
    expect(lines(file)[1]).toBe(JSON.stringify(JSON.parse(lines(file)[1])));
    journal.close();
    const loaded = loadJournal(file);
    expect(loaded.issues).toEqual([]);
    expect(loaded.usage).toHaveLength(1);
    expect(loaded.session.messages[0].blocks[0].param).toEqual(s.messages[0].blocks[0].param);
  });

  it('a crash midway leaves the earlier records whole and a torn last line the next open cuts off', async () => {
    const journal = openJournal(dir, 's1');
    const s = new Session({ system: 'sys', model: 'm' });
    journal.attach(s);
    s.append('user', 'hello');
    const release = journal.hold();
    s.append('user', [{ type: 'tool_result', tool_use_id: 'toolu_1', content: text }]);
    const done = release.inSteps();
    // What the file holds if the process died now.
    const crashed = fs.readFileSync(journalPath(dir, 's1'), 'utf8');
    await done;
    journal.close();
    const copy = path.join(dir, 'copy');
    fs.mkdirSync(copy);
    fs.writeFileSync(journalPath(copy, 's1'), crashed);
    const seen = loadJournalText(crashed, 'crashed');
    expect(seen.session.messages.map((m) => m.blocks[0].param)).toEqual([{ type: 'text', text: 'hello' }]);
    const reopened = openJournal(copy, 's1');
    expect(fs.readFileSync(journalPath(copy, 's1'), 'utf8')).toBe(crashed.slice(0, crashed.lastIndexOf('\n') + 1));
    reopened.close();
  });

  it('closing midway writes the rest now; going idle midway waits for the batch', async () => {
    const journal = openJournal(dir, 's1');
    const s = new Session({ system: 'sys', model: 'm' });
    journal.attach(s);
    const release = journal.hold();
    s.append('user', [{ type: 'tool_result', tool_use_id: 'toolu_1', content: text }]);
    const done = release.inSteps();
    journal.idle();
    expect(journal.isOpen).toBe(true);
    journal.recordUsage(0, { input_tokens: 1, output_tokens: 2 });
    journal.close();
    expect(journal.isOpen).toBe(false);
    await done;
    const loaded = loadJournal(journalPath(dir, 's1'));
    expect(loaded.issues).toEqual([]);
    expect(loaded.session.messages).toHaveLength(1);
    expect(loaded.usage).toHaveLength(1);
  });
});
