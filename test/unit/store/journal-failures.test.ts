/**
 * The journal under failure and at scale: a failed write is retried (never marked as written),
 * files are private, and open descriptors stay bounded however many journals a process has.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Session } from '../../../src/core/session';
import { journalPath, loadJournal, MAX_OPEN_JOURNALS, openJournal, type Journal } from '../../../src/core/store';
import { tempDir } from './helpers';

let dir: string;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => {
  vi.restoreAllMocks();
  fs.rmSync(dir, { recursive: true, force: true });
});

const enospc = (): never => {
  throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
};

/** Descriptors of this process open on files under `d`. */
function fdsUnder(d: string): number {
  let n = 0;
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      if (fs.readlinkSync(`/proc/self/fd/${fd}`).startsWith(d)) n++;
    } catch {
      // closed meanwhile
    }
  }
  return n;
}

describe('journal write errors', () => {
  it('a batch whose write fails is reported, kept, and written whole by the next write', () => {
    const errors: string[] = [];
    const journal = openJournal(dir, 's1', { onError: (e) => errors.push(e.message) });
    const session = new Session();
    journal.attach(session);
    const release = journal.hold();
    session.append('user', 'one');
    session.append('assistant', 'two');
    journal.recordCall(session.recordCall({ at: 2, epochStart: 0 }));
    // The write gets half way, then the disk is full.
    const real = fs.writeSync.bind(fs) as (fd: number, b: Buffer, off: number, len: number) => number;
    vi.spyOn(fs, 'writeSync')
      .mockImplementationOnce(((fd: number, b: Buffer, off: number) => real(fd, b, off, 40)) as typeof fs.writeSync)
      .mockImplementationOnce(enospc);
    release();
    expect(errors).toEqual(['ENOSPC: no space left on device, write']);
    expect(journal.unwritten).toBe(3);
    expect(journal.has(`msg:${session.messages[0].id}`)).toBe(false);
    vi.restoreAllMocks();
    session.append('user', 'three');
    expect(journal.unwritten).toBe(0);
    journal.close();
    const loaded = loadJournal(journalPath(dir, 's1'));
    expect(loaded.issues).toEqual([]);
    expect(loaded.session.messages.map((m) => m.blocks[0].param)).toEqual(
      ['one', 'two', 'three'].map((text) => ({ type: 'text', text })),
    );
    expect(loaded.session.calls).toHaveLength(1);
  });

  it('without onError the error is thrown, and the records are still retried (not marked as written)', () => {
    const journal = openJournal(dir, 's1');
    const session = new Session();
    journal.attach(session);
    const release = journal.hold();
    session.append('user', 'one');
    session.append('assistant', 'two');
    vi.spyOn(fs, 'fsyncSync').mockImplementationOnce(enospc);
    expect(release).toThrow(/ENOSPC/);
    // Not stuck in batch mode: the next record is written at once, with the two before it.
    session.append('user', 'three');
    expect(journal.unwritten).toBe(0);
    journal.close();
    expect(loadJournal(journalPath(dir, 's1')).session.messages).toHaveLength(3);
  });

  it('a long outage keeps at most maxQueuedBytes of records, dropping the oldest and saying so', () => {
    const errors: string[] = [];
    const journal = openJournal(dir, 's1', { onError: (e) => errors.push(e.message), maxQueuedBytes: 2_000 });
    vi.spyOn(fs, 'fsyncSync').mockImplementation(enospc);
    for (let i = 0; i < 30; i++) journal.recordDecision({ id: `d${i}`, note: 'x'.repeat(200) });
    expect(journal.unwritten).toBeLessThan(10);
    expect(errors.some((e) => /ENOSPC.*older unwritten records dropped/.test(e))).toBe(true);
    vi.restoreAllMocks();
    journal.recordDecision({ id: 'after' });
    journal.close();
    const ids = loadJournal(journalPath(dir, 's1')).decisions.map((d) => (d as { id: string }).id);
    expect(ids.at(-1)).toBe('after');
    expect(ids).toContain('d29');
    expect(ids).not.toContain('d0');
  });

  it('one journal\u2019s failure leaves another journal of the process writing', () => {
    const errors: string[] = [];
    const bad = openJournal(dir, 'bad', { onError: (e) => errors.push(e.message) });
    const good = openJournal(dir, 'good', { onError: (e) => errors.push(e.message) });
    const a = new Session();
    const b = new Session();
    bad.attach(a);
    good.attach(b);
    const real = fs.writeSync.bind(fs) as (fd: number, b: Buffer, off: number, len: number) => number;
    vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, buf: Buffer, off: number, len: number) =>
      buf.includes('for the bad one') ? enospc() : real(fd, buf, off, len)) as typeof fs.writeSync);
    a.append('user', 'for the bad one');
    b.append('user', 'for the good one');
    expect(errors).toHaveLength(1);
    expect(good.unwritten).toBe(0);
    expect(bad.unwritten).toBe(1);
    vi.restoreAllMocks();
    bad.close();
    good.close();
    expect(loadJournal(journalPath(dir, 'good')).session.messages).toHaveLength(1);
    expect(loadJournal(journalPath(dir, 'bad')).session.messages).toHaveLength(1);
  });
});

describe('journal files', () => {
  it('are 0600 in a 0700 directory, also when an older version left them 0644 / 0755 (a shared directory is left alone)', () => {
    const fresh = path.join(dir, 'new', 'journals');
    openJournal(fresh, 's1').close();
    expect(fs.statSync(fresh).mode & 0o777).toBe(0o700);
    expect(fs.statSync(journalPath(fresh, 's1')).mode & 0o777).toBe(0o600);
    const old = path.join(dir, 'old');
    fs.mkdirSync(old, { mode: 0o755 });
    fs.chmodSync(old, 0o755);
    fs.writeFileSync(journalPath(old, 's2'), '', { mode: 0o644 });
    fs.chmodSync(journalPath(old, 's2'), 0o644);
    openJournal(old, 's2').close();
    expect(fs.statSync(old).mode & 0o777).toBe(0o700);
    expect(fs.statSync(journalPath(old, 's2')).mode & 0o777).toBe(0o600);
    // A directory that holds other things too is not the journal's to close: only the files are made private.
    const shared = path.join(dir, 'shared');
    fs.mkdirSync(shared, { mode: 0o755 });
    fs.chmodSync(shared, 0o755);
    fs.writeFileSync(path.join(shared, 'notes.txt'), 'not a journal');
    openJournal(shared, 's3').close();
    expect(fs.statSync(shared).mode & 0o777).toBe(0o755);
    expect(fs.statSync(journalPath(shared, 's3')).mode & 0o777).toBe(0o600);
  });

  it('a process with many journals keeps few descriptors and locks; idle ones reopen on their next write', () => {
    const journals: { journal: Journal; session: Session }[] = [];
    for (let i = 0; i < 120; i++) {
      const journal = openJournal(dir, `s${i}`);
      const session = new Session();
      journal.attach(session);
      session.append('user', `first ${i}`);
      journals.push({ journal, session });
    }
    expect(fdsUnder(dir)).toBeLessThanOrEqual(MAX_OPEN_JOURNALS);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.lock')).length).toBeLessThanOrEqual(MAX_OPEN_JOURNALS);
    // The first ones went idle; writing to them again works, and nothing is written twice.
    for (const { session } of journals.slice(0, 10)) session.append('assistant', 'again');
    expect(fdsUnder(dir)).toBeLessThanOrEqual(MAX_OPEN_JOURNALS);
    for (const { journal } of journals) journal.close();
    expect(fdsUnder(dir)).toBe(0);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.lock'))).toEqual([]);
    for (let i = 0; i < 120; i++) {
      const loaded = loadJournal(journalPath(dir, `s${i}`));
      expect(loaded.issues).toEqual([]);
      expect(loaded.duplicates).toBe(0);
      expect(loaded.session.messages).toHaveLength(i < 10 ? 2 : 1);
    }
  }, 60_000);

  it('an idle journal that another writer appended to meanwhile re-reads the file before writing', () => {
    const first = openJournal(dir, 's1');
    const session = new Session();
    first.attach(session);
    session.append('user', 'one');
    first.idle();
    const other = openJournal(dir, 's1');
    other.recordDecision({ id: 'd1' });
    other.close();
    expect(first.recordDecision({ id: 'd1' })).toBe(true); // queued; the write finds it already there
    first.close();
    const loaded = loadJournal(journalPath(dir, 's1'));
    expect(loaded.duplicates).toBe(0);
    expect(loaded.decisions).toEqual([{ id: 'd1' }]);
  });
});
