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
import { completeLines, lineParses } from './jobs';
import type { Skipped } from '../../protocol/report-types';

/** Files modified more recently than this (2 minutes) may still be being written. */
export const STILL_WRITING_MS = 120_000;

/** Bytes read at a time from the end of a file, looking for its last line. */
const TAIL_CHUNK = 64 * 1024;

/**
 * Is the file whole as far as `completeLines` can tell from its ends: empty, ending with a
 * newline, not starting with `{`, one line, or with a last line that parses? Reads the first
 * byte and the last line, not the file.
 */
function wholeAtEnds(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return true;
    const one = Buffer.alloc(1);
    readSync(fd, one, 0, 1, size - 1);
    if (one[0] === 0x0a) return true;
    readSync(fd, one, 0, 1, 0);
    if (one[0] !== 0x7b) return true;
    const chunks: Buffer[] = [];
    for (let end = size; end > 0;) {
      const start = Math.max(0, end - TAIL_CHUNK);
      const chunk = Buffer.alloc(end - start);
      readSync(fd, chunk, 0, chunk.length, start);
      chunks.unshift(chunk);
      const nl = chunk.lastIndexOf(0x0a);
      if (nl >= 0)
        return lineParses(
          Buffer.concat(chunks)
            .subarray(nl + 1)
            .toString('utf8'),
        );
      end = start;
    }
    return true;
  } finally {
    closeSync(fd);
  }
}

/**
 * The note for a file whose unfinished last line the report left out, or
 * undefined (complete file, a file still being written, or unreadable: that is
 * reported elsewhere). Reads the whole file only when its last line does not parse.
 */
export function unfinishedLastLine(path: string, mtimeMs: number, now: number = Date.now()): Skipped | undefined {
  if (now - mtimeMs < STILL_WRITING_MS) return undefined;
  try {
    if (wholeAtEnds(path)) return undefined;
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
