/**
 * One writer per journal: `<file>.lock` names the process that writes `<file>`.
 *
 * - Atomic publish: the owner line (`<pid> <token>`) is written to a private temp file first,
 *   then `link()`ed to the lock name. link fails with EEXIST atomically, so a lock file is
 *   never seen empty or half written by another opener.
 * - Takeover only of a provably dead owner: `process.kill(pid, 0)` fails with ESRCH. A live
 *   owner (or one we may not signal: EPERM) keeps its lock. A lock that cannot be parsed (an
 *   older Trimline's, cut by a crash between its create and its write) is taken over only
 *   once it is older than UNREADABLE_STALE_MS.
 * - Race-free takeover: breakers of a stale lock are serialized by `<file>.lock.break`
 *   (itself published with link), and the stale lock is renamed to a unique name and its
 *   token checked before it is removed, so a lock that a live process has just published is
 *   never deleted.
 * - Reference counted within one process: every `acquireLock` needs its `releaseLock`; the
 *   file goes when the last holder releases it.
 * Lock and temp files are 0600.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';

/** A lock nobody can parse is abandoned after this long (a writer publishes its owner line at once). */
export const UNREADABLE_STALE_MS = 10_000;
const ATTEMPTS = 8;

/** Another live process is writing this journal. */
export class JournalLockedError extends Error {
  constructor(
    readonly file: string,
    readonly pid: number,
  ) {
    super(`journal ${file} is being written by process ${pid}; close that Trimline first`);
    this.name = 'JournalLockedError';
  }
}

interface Owner {
  readonly pid: number;
  readonly token: string;
}

/** Locks this process holds: lock path → token and holder count. */
const held = new Map<string, { token: string; count: number }>();

/** Whether a process may still exist: only ESRCH proves it gone. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

function errno(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException).code;
}

function newToken(): string {
  return randomBytes(8).toString('hex');
}

/** Publish `file` with `<pid> <token>` atomically; false if it exists. No temp file is left, whatever fails. */
function publish(file: string, token: string): boolean {
  const tmp = `${file}.${process.pid}.${newToken()}.tmp`;
  try {
    // A write that fails (a full disk) may leave the file created and empty: the finally removes it.
    fs.writeFileSync(tmp, `${process.pid} ${token}\n`, { mode: 0o600, flag: 'wx' });
    fs.linkSync(tmp, file);
    return true;
  } catch (e) {
    if (errno(e) === 'EEXIST') return false;
    throw e;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/** The owner written in a lock file; undefined when it is gone, 'unreadable' when it cannot be parsed. */
function readOwner(file: string): Owner | 'unreadable' | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if (errno(e) === 'ENOENT') return undefined;
    throw e;
  }
  const [pidText, token = ''] = text.trim().split(/\s+/);
  const pid = Number(pidText);
  return Number.isInteger(pid) && pid > 0 ? { pid, token } : 'unreadable';
}

function ageMs(file: string): number {
  try {
    return Date.now() - fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * Remove `file` if it still is the lock with this owner line: rename it to a unique name
 * (atomic), check, then delete it, or put it back when it turned out to be another one.
 */
function removeIf(file: string, owner: Owner | 'unreadable'): void {
  const aside = `${file}.${process.pid}.${newToken()}.stale`;
  try {
    fs.renameSync(file, aside);
  } catch (e) {
    if (errno(e) === 'ENOENT') return;
    throw e;
  }
  const seen = readOwner(aside);
  if (seen === undefined || !sameOwner(seen, owner)) {
    try {
      fs.linkSync(aside, file);
    } catch {
      // Someone published a new lock meanwhile: theirs stands.
    }
  }
  fs.rmSync(aside, { force: true });
}

function sameOwner(a: Owner | 'unreadable', b: Owner | 'unreadable'): boolean {
  if (a === 'unreadable' || b === 'unreadable') return a === b;
  return a.pid === b.pid && a.token === b.token;
}

/** The owner is gone (or, for an unreadable lock, it has been abandoned long enough). */
function stale(file: string, owner: Owner | 'unreadable'): boolean {
  if (owner === 'unreadable') return ageMs(file) > UNREADABLE_STALE_MS;
  // Our own pid on a lock this process does not hold: an earlier process that had our pid.
  if (owner.pid === process.pid) return !held.has(file);
  return !processAlive(owner.pid);
}

/** Break a stale lock, serialized with other breakers by `<lock>.break`. */
function breakStale(lock: string, owner: Owner | 'unreadable'): void {
  const guard = `${lock}.break`;
  const token = newToken();
  if (!publish(guard, token)) {
    const g = readOwner(guard);
    if (g !== undefined && stale(guard, g)) removeIf(guard, g);
    return; // another breaker is at work (or was, and died): the caller tries again
  }
  try {
    // Under the guard only a dead owner's lock can be here unchanged: nobody else removes it,
    // nobody can publish over it, and its owner will not release it.
    const now = readOwner(lock);
    if (now !== undefined && sameOwner(now, owner)) removeIf(lock, owner);
  } finally {
    removeIf(guard, { pid: process.pid, token });
  }
}

/** Take `lock` for this process (see the module doc). Throws JournalLockedError when a live process holds it. */
export function acquireLock(lock: string, file: string): void {
  const mine = held.get(lock);
  if (mine) {
    mine.count++;
    return;
  }
  const token = newToken();
  let last: Owner | 'unreadable' | undefined;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (publish(lock, token)) {
      held.set(lock, { token, count: 1 });
      return;
    }
    last = readOwner(lock);
    if (last === undefined) continue; // released meanwhile
    if (!stale(lock, last)) throw new JournalLockedError(file, last === 'unreadable' ? -1 : last.pid);
    breakStale(lock, last);
  }
  throw new JournalLockedError(file, typeof last === 'object' ? last.pid : -1);
}

/** Give back one hold of `lock`; the last one removes the file (if it is still this process's). */
export function releaseLock(lock: string): void {
  const mine = held.get(lock);
  if (!mine) return;
  if (--mine.count > 0) return;
  held.delete(lock);
  removeIf(lock, { pid: process.pid, token: mine.token });
}
