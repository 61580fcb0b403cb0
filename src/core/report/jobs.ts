/**
 * One file's part of a report as a self-contained job: read the file, report
 * it, and say which responses it counted. The same job runs in process or in
 * a worker thread (parallel.ts), so both give the same rows.
 *
 * What a file's rows depend on from the files before it is only which of its
 * own responses they counted already (`prior`): an importer's `recorded` asks
 * the counted set about this file's keys and nothing else. So a job run with `prior` set
 * to (keys of the file) ∩ (keys counted before it) gives exactly the rows of
 * the sequential run.
 */
import { readFileSync } from 'node:fs';
import { parseJson } from '../import/errors';
import { CountedKeys } from './cache';
import { reportFile, type FileReportOptions } from './session-report';
import type { SessionReport, Skipped } from '../../protocol/report-types';

export interface FileJobResult {
  readonly rows: SessionReport[];
  readonly skipped: Skipped[];
  readonly badLines: number;
  /** Responses this file counted that were not in `prior`, in file order. */
  readonly keys: string[];
  /** Set when the file could not be read (nothing else is). */
  readonly unreadable?: string;
}

/** The text of a file to report, or why it cannot be read. */
export function readTranscriptText(path: string): { text: string } | { unreadable: string } {
  try {
    return { text: completeLines(readFileSync(path, 'utf8')) };
  } catch (e) {
    return { unreadable: `unreadable (${(e as NodeJS.ErrnoException).code ?? 'error'})` };
  }
}

/** Report one file, with `prior` the responses of it already counted by earlier files. */
export function runFileJob(path: string, prior: readonly string[], opts: FileReportOptions): FileJobResult {
  const read = readTranscriptText(path);
  if ('unreadable' in read) return { rows: [], skipped: [], badLines: 0, keys: [], unreadable: read.unreadable };
  const counted = new CountedKeys();
  for (const k of prior) counted.add(k);
  counted.added = [];
  const r = reportFile(path, read.text, counted, opts);
  return { rows: r.rows, skipped: r.skipped, badLines: r.badLines, keys: counted.added };
}

/**
 * A file still being written: keep it up to its last complete line (JSONL);
 * other texts unchanged, among them one JSON document over several lines
 * without a final newline (a SWE-agent `.traj`).
 */
export function completeLines(text: string): string {
  if (text.endsWith('\n') || !text.startsWith('{')) return text;
  const last = text.lastIndexOf('\n');
  if (last < 0 || lineParses(text.slice(last + 1)) || parseJson(text).ok) return text;
  return text.slice(0, last + 1);
}

/** Whether one line is a JSON document. */
export function lineParses(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}
