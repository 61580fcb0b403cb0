/**
 * Applying and undoing a route on disk, for the editor and the CLI alike. The undo record
 * (src/core/route/journal.ts) is written, fsynced and renamed into place BEFORE any agent file
 * changes; each file is then written through a temporary file and a rename, so a crash leaves
 * either the old or the new content, and the record knows both.
 */
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { mergeRecords, parseRouteRecord, restoreAction, ROUTE_JOURNAL_VERSION } from '../../core/route/journal';
import type { FileChange, RouteRecord } from '../../core/route/journal';
import type { RouteScope } from '../../core/route/agents';

import { ROUTE_JOURNAL_FILE } from './journal-name';

export { ROUTE_JOURNAL_FILE };

/** A file's exact content, or null when it does not exist. */
export function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** Writes `text` durably: a temporary file beside it (the file's own mode, else `mode`), fsync, rename. */
export function writeDurably(file: string, text: string, mode = 0o644): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.trimline-${process.pid}.tmp`;
  let keep = mode;
  try {
    keep = statSync(file).mode & 0o777;
  } catch {
    // a new file
  }
  const fd = openSync(tmp, 'w', keep);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

export function journalFile(dir: string): string {
  return join(dir, ROUTE_JOURNAL_FILE);
}

/** The route record kept in `dir`, if any (an unreadable one is reported, never ignored silently). */
export function readRecord(dir: string): RouteRecord | undefined {
  const text = readText(journalFile(dir));
  if (text === null) return undefined;
  const r = parseRouteRecord(text);
  if (!r) throw new Error(`${journalFile(dir)} is not a Trimline route record; move it away to route again`);
  return r;
}

/**
 * Journals `changes` (merged with a route already in place) and then writes each file.
 * Returns the record as journaled.
 */
/** Replaces the journaled record (after a settle: see settleImport). */
export function writeRecord(dir: string, record: RouteRecord): void {
  writeDurably(journalFile(dir), `${JSON.stringify(record, null, 1)}\n`, 0o600);
}

export function applyRoute(
  dir: string,
  url: string,
  scope: RouteScope,
  changes: readonly FileChange[],
  now = Date.now(),
): RouteRecord {
  const record = mergeRecords(readRecord(dir), { version: ROUTE_JOURNAL_VERSION, url, scope, at: now, changes });
  writeRecord(dir, record);
  for (const c of changes) writeDurably(c.file, c.after);
  return record;
}

export interface RestoreReport {
  readonly restored: string[];
  readonly conflicts: string[];
}

/** Undoes the journaled route: every file back as it was; the journal is removed once all are done. */
export function restoreRoute(dir: string): RestoreReport | undefined {
  const record = readRecord(dir);
  if (!record) return undefined;
  const restored: string[] = [];
  const conflicts: string[] = [];
  for (const c of [...record.changes].reverse()) {
    const a = restoreAction(c, readText(c.file));
    if (a.kind === 'write') {
      writeDurably(c.file, a.text);
      restored.push(c.file);
    } else if (a.kind === 'delete') {
      rmSync(c.file, { force: true });
      restored.push(c.file);
    } else if (a.kind === 'conflict') conflicts.push(a.why);
  }
  rmSync(journalFile(dir), { force: true });
  return { restored, conflicts };
}
