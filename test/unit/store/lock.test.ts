/**
 * The journal lock: published whole (never seen empty), taken over only from a dead owner,
 * race-free among many processes, and reference counted within one process.
 */
import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { journalPath, openJournal } from '../../../src/core/store';
import { buildOpener, raceOpeners } from './child-opener';
import { tempDir } from './helpers';

/** A pid no process has (above the kernel's pid_max). */
const DEAD_PID = 2147483646;

let dir: string;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('journal lock', () => {
  it('an empty lock file (another writer between creating it and writing its pid) is not taken over', () => {
    const lock = `${journalPath(dir, 's1')}.lock`;
    fs.writeFileSync(lock, '');
    expect(() => openJournal(dir, 's1')).toThrow(/is being written by process/);
    expect(fs.readFileSync(lock, 'utf8')).toBe('');
    // Left like that for long (an older Trimline died in that window): then it is abandoned.
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(lock, old, old);
    openJournal(dir, 's1').close();
    expect(fs.existsSync(lock)).toBe(false);
  });

  it('a live owner keeps its lock; a dead owner\u2019s lock (and a dead breaker\u2019s guard) is taken over', () => {
    const lock = `${journalPath(dir, 's1')}.lock`;
    fs.writeFileSync(lock, '1 sometoken\n');
    expect(() => openJournal(dir, 's1')).toThrow(/is being written by process 1;/);
    fs.writeFileSync(lock, `${DEAD_PID} deadtoken\n`);
    fs.writeFileSync(`${lock}.break`, `${DEAD_PID} deadbreaker\n`);
    const journal = openJournal(dir, 's1');
    expect(fs.readFileSync(lock, 'utf8')).toMatch(new RegExp(`^${process.pid} [0-9a-f]+\\n$`));
    journal.close();
    expect(fs.readdirSync(dir).filter((f) => f.includes('.lock'))).toEqual([]);
  });

  it('is written 0600, and no temp file is left behind', () => {
    const journal = openJournal(dir, 's1');
    const lock = `${journalPath(dir, 's1')}.lock`;
    expect(fs.statSync(lock).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dir).sort()).toEqual(['s1.jsonl', 's1.jsonl.lock']);
    journal.close();
  });

  it('is reference counted within a process: one close does not drop a lock another journal relies on', () => {
    const lock = `${journalPath(dir, 's1')}.lock`;
    const a = openJournal(dir, 's1');
    const b = openJournal(dir, 's1');
    a.close();
    expect(fs.existsSync(lock)).toBe(true);
    expect(fs.readFileSync(lock, 'utf8').startsWith(`${process.pid} `)).toBe(true);
    b.close();
    expect(fs.existsSync(lock)).toBe(false);
  });

  it('many processes opening one journal at once, over a dead owner\u2019s lock: exactly one gets it each time', async () => {
    const bundle = buildOpener(dir);
    const lock = `${journalPath(dir, 'race')}.lock`;
    for (let round = 0; round < 4; round++) {
      fs.writeFileSync(lock, `${DEAD_PID} stale${round}\n`);
      const said = await raceOpeners(bundle, dir, 'race', 6);
      expect(
        said.filter((s) => s === 'owner'),
        said.join(', '),
      ).toHaveLength(1);
      expect(said.filter((s) => s === 'locked JournalLockedError')).toHaveLength(5);
      expect(fs.existsSync(lock)).toBe(false);
    }
  }, 120_000);
});
