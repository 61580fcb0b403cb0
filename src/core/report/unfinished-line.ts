/**
 * A JSONL transcript whose last line has no newline and does not parse: its
 * client was killed mid-write, or is writing it right now. The report reads a
 * file up to its last complete line (`completeLines` in jobs.ts); this names
 * the line it left out, unless the file may still be being written.
 *
 * The rule: a file modified less than {@link STILL_WRITING_MS} before the report
 * runs is taken as still being written (a live Claude Code session appends a
 * line per event, every few seconds), and its unfinished last line is left out
 * quietly. In an older file the unfinished line is named, as a note on the file.
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { completeLines } from './jobs';
import type { Skipped } from '../../protocol/report-types';

/** Files modified more recently than this (2 minutes) may still be being written. */
export const STILL_WRITING_MS = 120_000;

/** Does the file end with a newline (or is it empty)? Reads one byte. */
function endsWithNewline(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return true;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } finally {
    closeSync(fd);
  }
}

/**
 * The note for a file whose unfinished last line the report left out, or
 * undefined (complete file, a file still being written, or unreadable: that is
 * reported elsewhere). Reads the whole file only when its last byte is not a newline.
 */
export function unfinishedLastLine(path: string, mtimeMs: number, now: number = Date.now()): Skipped | undefined {
  if (now - mtimeMs < STILL_WRITING_MS) return undefined;
  try {
    if (endsWithNewline(path)) return undefined;
    const text = readFileSync(path, 'utf8');
    const kept = completeLines(text);
    if (kept.length === text.length) return undefined;
    const line = kept.split('\n').length;
    const bytes = Buffer.byteLength(text) - Buffer.byteLength(kept);
    return {
      file: path,
      reason: `line ${line} (the last, ${bytes} bytes) is unfinished (no final newline, not valid JSON): left out`,
    };
  } catch {
    return undefined;
  }
}
