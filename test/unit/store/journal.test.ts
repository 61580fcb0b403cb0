import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Session } from '../../../src/core/session';
import { journalPath, listSessions, loadJournal, openJournal, resumeSession } from '../../../src/core/store';
import { buildSession, snapshot, tempDir } from './helpers';

let dir: string;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => {
  vi.restoreAllMocks();
  fs.rmSync(dir, { recursive: true, force: true });
});

const lines = (file: string): string[] => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);

describe('journal round trip', () => {
  it('rebuilds the exact session: messages, overlays (added and removed in order), calls, header', () => {
    const journal = openJournal(dir, 's1');
    const original = buildSession(journal);
    journal.close();
    const loaded = loadJournal(journalPath(dir, 's1'));
    expect(loaded.issues).toEqual([]);
    expect(loaded.sessionId).toBe('s1');
    expect(snapshot(loaded.session)).toEqual(snapshot(original));
    // The view is the same too (which overlay wins, what is sent).
    for (let p = 0; p < original.messages.length; p++) {
      expect(JSON.stringify(loaded.session.resolveMessage(p))).toBe(JSON.stringify(original.resolveMessage(p)));
    }
  });

  it('writes one record per event, every record with v, type, id and ts', () => {
    const journal = openJournal(dir, 's1');
    buildSession(journal);
    journal.close();
    const records = lines(journalPath(dir, 's1')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records[0]).toMatchObject({ v: 1, type: 'header', id: 'header', sessionId: 's1', model: 'claude-test' });
    for (const r of records) expect(Object.keys(r).slice(0, 3)).toEqual(['v', 'type', 'id']);
    for (const r of records) expect(typeof r.ts).toBe('string');
    const types = records.map((r) => r.type);
    expect(types.filter((t) => t === 'message')).toHaveLength(5);
    expect(types.filter((t) => t === 'call')).toHaveLength(2);
    expect(records.map((r) => r.id)).toContain('ov+:ov_strategy_r1#2');
    expect(new Set(records.map((r) => r.id)).size).toBe(records.length);
  });

  it('keeps usage, decisions and calibration records', () => {
    const journal = openJournal(dir, 's1');
    journal.attach(new Session());
    journal.recordUsage(0, { input_tokens: 1, output_tokens: 2 });
    journal.recordDecision({ id: 'd1', strategy: 'old-results', why: 'stale' });
    journal.recordDecision({ id: 'd1', strategy: 'old-results', why: 'stale' });
    journal.recordCalibration({ ratio: 1.35 }, 'c1');
    journal.close();
    const loaded = loadJournal(journalPath(dir, 's1'));
    expect(loaded.usage).toEqual([{ callIndex: 0, usage: { input_tokens: 1, output_tokens: 2 } }]);
    expect(loaded.decisions).toEqual([{ id: 'd1', strategy: 'old-results', why: 'stale' }]);
    expect(loaded.calibrations).toEqual([{ ratio: 1.35 }]);
  });

  it('keeps history-compression calls with their usage (billed, not part of the conversation)', () => {
    const journal = openJournal(dir, 's1');
    journal.attach(new Session());
    const usage = { input_tokens: 1200, output_tokens: 300, cache_read_input_tokens: 50 };
    expect(journal.recordCompression({ callIndex: 4, model: 'claude-haiku-4-5', usage }, 'c1')).toBe(true);
    expect(journal.recordCompression({ callIndex: 4, model: 'claude-haiku-4-5', usage }, 'c1')).toBe(false);
    journal.close();
    const loaded = loadJournal(journalPath(dir, 's1'));
    expect(loaded.compressions).toEqual([{ callIndex: 4, model: 'claude-haiku-4-5', usage }]);
    expect(loaded.session.calls).toEqual([]);
  });
});

describe('one writer per journal', () => {
  it("a second process cannot open a journal that a live process writes; a dead writer's lock is taken over", () => {
    const file = journalPath(dir, 's1');
    fs.writeFileSync(`${file}.lock`, '1');
    expect(() => openJournal(dir, 's1')).toThrow(/is being written by process 1; close that Trimline first/);
    fs.writeFileSync(`${file}.lock`, '2147483646');
    const journal = openJournal(dir, 's1');
    expect(fs.readFileSync(`${file}.lock`, 'utf8')).toMatch(new RegExp(`^${process.pid} [0-9a-f]+\n$`));
    journal.close();
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });
});

describe('durability', () => {
  it('fsyncs every record before the call returns', () => {
    const journal = openJournal(dir, 's1');
    const session = new Session();
    journal.attach(session);
    const w = vi.spyOn(fs, 'writeSync');
    const syncs = vi.spyOn(fs, 'fsyncSync');
    session.append('user', 'one');
    expect(syncs).toHaveBeenCalledTimes(1);
    session.append('assistant', 'two');
    expect(syncs).toHaveBeenCalledTimes(2);
    journal.recordCall(session.recordCall({ at: 2, epochStart: 0 }));
    expect(syncs).toHaveBeenCalledTimes(3);
    expect(w).toHaveBeenCalledTimes(3);
    // Each fsync follows its write.
    for (let i = 0; i < 3; i++) expect(w.mock.invocationCallOrder[i]).toBeLessThan(syncs.mock.invocationCallOrder[i]);
    journal.close();
  });

  it('attaching a long session catches up with one write and one fsync, and loads back whole', () => {
    const session = new Session({ model: 'claude-test' });
    for (let i = 0; i < 2000; i++) session.append(i % 2 ? 'assistant' : 'user', `message ${i}`, {}, `m${i}`);
    session.recordCall({ at: 1, epochStart: 0 });
    const journal = openJournal(dir, 's1');
    const syncs = vi.spyOn(fs, 'fsyncSync');
    journal.attach(session);
    expect(syncs).toHaveBeenCalledTimes(1);
    session.append('user', 'after');
    expect(syncs).toHaveBeenCalledTimes(2);
    journal.close();
    const loaded = loadJournal(journalPath(dir, 's1'));
    expect(loaded.session.messages).toHaveLength(2001);
    expect(loaded.session.calls).toHaveLength(1);
  });

  it('ignores a torn last line (no trailing newline), reporting it; reopening cuts it off', () => {
    const journal = openJournal(dir, 's1');
    const original = buildSession(journal);
    journal.close();
    const file = journalPath(dir, 's1');
    const intact = fs.readFileSync(file, 'utf8');
    fs.appendFileSync(file, '{"v":1,"type":"message","id":"msg:torn","message":{"id":"torn","role":"us');
    const loaded = loadJournal(file);
    expect(snapshot(loaded.session)).toEqual(snapshot(original));
    expect(loaded.issues).toHaveLength(1);
    expect(loaded.issues[0].message).toMatch(/torn last record \(no trailing newline\) ignored/);
    expect(loaded.issues[0].line).toBe(intact.split('\n').length);

    const reopened = openJournal(dir, 's1');
    expect(fs.readFileSync(file, 'utf8')).toBe(intact);
    reopened.recordDecision({ id: 'after-crash' });
    reopened.close();
    const again = loadJournal(file);
    expect(again.issues).toEqual([]);
    expect(again.decisions).toEqual([{ id: 'after-crash' }]);
  });

  it('ignores an unparseable last line and reports corrupt lines in the middle', () => {
    const journal = openJournal(dir, 's1');
    const original = buildSession(journal);
    journal.close();
    const file = journalPath(dir, 's1');
    const all = fs.readFileSync(file, 'utf8').split('\n');
    all.splice(2, 0, '{"v":2,"type":"message","id":"future"}');
    fs.writeFileSync(file, `${all.join('\n').trimEnd()}\n{"v":1,"type":"mess\n`);
    const loaded = loadJournal(file);
    expect(snapshot(loaded.session)).toEqual(snapshot(original));
    expect(loaded.issues.map((i) => i.message)).toEqual([
      'unsupported record version 2 (this build reads v1); record skipped',
      'torn last record (not valid JSON) ignored',
    ]);
  });

  it('a child killed with SIGKILL while appending leaves a loadable journal', async () => {
    const { spawnChildWriter } = await import('./child-writer');
    const { file, killedAfter } = await spawnChildWriter(dir, 'crash');
    const loaded = loadJournal(file);
    const n = loaded.session.messages.length;
    expect(n).toBeGreaterThanOrEqual(killedAfter);
    expect(loaded.issues.filter((i) => !/torn last record/.test(i.message))).toEqual([]);
    expect(loaded.issues.length).toBeLessThanOrEqual(1);
    // Every surviving message is complete and in order; overlays refer to messages that exist.
    loaded.session.messages.forEach((m, i) =>
      expect(m.blocks[0].param).toEqual({ type: 'text', text: `message ${i}` }),
    );
    // And the journal can be resumed and appended to.
    const resumed = resumeSession(dir, 'crash');
    resumed.session.append('user', 'after the crash');
    resumed.journal.close();
    const after = loadJournal(file);
    expect(after.issues).toEqual([]);
    expect(after.session.messages).toHaveLength(n + 1);
  });
});

describe('dedupe and resume', () => {
  it('a journal concatenated with itself loads without doubling history', () => {
    const journal = openJournal(dir, 's1');
    const original = buildSession(journal);
    journal.close();
    const file = journalPath(dir, 's1');
    const text = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, text + text);
    const loaded = loadJournal(file);
    expect(loaded.issues).toEqual([]);
    expect(loaded.duplicates).toBe(lines(file).length / 2);
    expect(snapshot(loaded.session)).toEqual(snapshot(original));
  });

  it('resume writes nothing it just loaded, then journals new events', () => {
    const journal = openJournal(dir, 's1');
    const original = buildSession(journal);
    journal.close();
    const file = journalPath(dir, 's1');
    const before = fs.readFileSync(file, 'utf8');
    const resumed = resumeSession(dir, 's1');
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
    expect(snapshot(resumed.session)).toEqual(snapshot(original));

    resumed.session.append('assistant', 'Tests pass.');
    const blockId = resumed.session.toolResultBlockId('toolu_1')!;
    resumed.session.restore(blockId, 'user');
    resumed.journal.recordCall(resumed.session.recordCall({ at: 6, epochStart: 0 }));
    resumed.journal.close();
    expect(snapshot(loadJournal(file).session)).toEqual(snapshot(resumed.session));
  });

  it('attaching catches up on what the session had before, once', () => {
    const session = buildSession();
    const journal = openJournal(dir, 's1');
    journal.attach(session);
    const size = journal.size;
    journal.attach(session)();
    expect(journal.size).toBe(size);
    journal.close();
    const loaded = loadJournal(journalPath(dir, 's1'));
    expect(JSON.stringify(loaded.session.messages)).toBe(JSON.stringify(session.messages));
    expect(JSON.stringify(loaded.session.allOverlays())).toBe(JSON.stringify(session.allOverlays()));
    expect(JSON.stringify(loaded.session.calls)).toBe(JSON.stringify(session.calls));
  });

  it('write errors go to onError when given, and are thrown otherwise', () => {
    const errors: Error[] = [];
    const journal = openJournal(dir, 's1', { onError: (e) => errors.push(e) });
    const session = new Session();
    journal.attach(session);
    vi.spyOn(fs, 'fsyncSync').mockImplementationOnce(() => {
      throw new Error('ENOSPC: no space left on device');
    });
    session.append('user', 'lost?');
    expect(errors.map((e) => e.message)).toEqual(['ENOSPC: no space left on device']);
    // Not marked as written: the next attempt writes it again.
    expect(journal.has(`msg:${session.messages[0].id}`)).toBe(false);
    journal.close();
    const strict = openJournal(dir, 's2');
    strict.close();
    expect(() => strict.recordDecision({ id: 'x' })).toThrow(/is closed/);
  });

  it('rejects session ids that are not safe file names', () => {
    expect(() => openJournal(dir, '../escape')).toThrow(/invalid session id/);
    expect(() => openJournal(dir, '.hidden')).toThrow(/invalid session id/);
  });
});

describe('listSessions', () => {
  it('lists sessions with title, update time and message count, newest first', () => {
    const a = openJournal(dir, 'older');
    buildSession(a);
    a.close();
    const b = openJournal(dir, 'newer');
    b.attach(new Session({ model: 'm2' }));
    b.close();
    fs.utimesSync(journalPath(dir, 'older'), new Date('2024-01-01'), new Date('2024-01-01'));
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'not a journal');
    const list = listSessions(dir);
    expect(list.map((s) => s.sessionId)).toEqual(['newer', 'older']);
    expect(list[1]).toMatchObject({
      title: 'Fix the failing test in src/app.ts please',
      messageCount: 5,
      model: 'claude-test',
      updatedAt: '2024-01-01T00:00:00.000Z',
    });
    expect(list[0]).toMatchObject({ title: '(no prompt yet)', messageCount: 0, model: 'm2' });
    expect(listSessions(path.join(dir, 'missing'))).toEqual([]);
  });
});
