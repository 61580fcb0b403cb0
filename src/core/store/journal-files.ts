/**
 * The file side of journals: the private directory, directory fsync, torn-tail repair, and
 * the per-process bound on journals that hold a descriptor (least recently written first).
 */
import fs from 'node:fs';
import path from 'node:path';

/** Journals with an open descriptor (and their lock) at once, per process. */
export const MAX_OPEN_JOURNALS = 24;

interface Idler {
  idle(): void;
}

/** Journals holding a descriptor, least recently written first (a Set keeps insertion order). */
const open = new Set<Idler>();

/** How many journals of this process hold a descriptor now. */
export function openJournalCount(): number {
  return open.size;
}

/**
 * A journal took or used its descriptor (`true`) or gave it back (`false`). Past
 * MAX_OPEN_JOURNALS the least recently used others are told to go idle.
 */
export function touchOpen(j: Idler, isOpen: boolean): void {
  open.delete(j);
  if (!isOpen) return;
  open.add(j);
  for (const other of open) {
    if (open.size <= MAX_OPEN_JOURNALS) break;
    if (other === j) continue;
    try {
      other.idle();
    } catch {
      // Its descriptor is gone either way (idle forgets it first); its own next write reports what is wrong.
    }
  }
}

/** Make a new directory entry durable (POSIX; a no-op where directories cannot be opened). */
export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Windows cannot fsync a directory; the file's own fsync is what we can do there.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Cut a torn last line off so the next append starts on a fresh line. */
export function repairTornTail(file: string, text: string): void {
  const keep = Buffer.byteLength(text.slice(0, text.lastIndexOf('\n') + 1));
  const fd = fs.openSync(file, 'r+');
  try {
    fs.ftruncateSync(fd, keep);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Names Trimline keeps in a journal directory (journals, locks and their temp files). */
const OWN_ENTRY = /\.(jsonl|lock|break|tmp|stale)$/;

/**
 * Create `dir` (0700, parents too), or make an existing one 0700 when it is provably a journal
 * directory (an older version's 0755 one): ours, not sticky, holding nothing but journal files.
 * A directory that also holds other things (`--journal ~`, `/tmp`) is not ours to change: its
 * journals are still 0600.
 */
export function ensurePrivateDir(dir: string): void {
  const abs = path.resolve(dir);
  fs.mkdirSync(abs, { recursive: true, mode: 0o700 });
  try {
    const st = fs.statSync(abs);
    if ((st.mode & 0o7777) === 0o700) return;
    const mine = process.getuid === undefined || st.uid === process.getuid();
    if (mine && (st.mode & 0o1000) === 0 && fs.readdirSync(abs).every((f) => OWN_ENTRY.test(f)))
      fs.chmodSync(abs, 0o700);
  } catch {
    // A platform without modes, or not ours to change: the files themselves are still 0600.
  }
}
