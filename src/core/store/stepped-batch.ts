/**
 * A batch of journal records written in steps (journal-writer.ts, `flushInSteps`): their JSON lines made a
 * slice at a time (json-slices.ts) and appended to the file about TURN_CHARS per call, then fsynced on the
 * thread pool. The file gets exactly the bytes one `write` of the joined lines would give it.
 */
import fs from 'node:fs';
import { jsonPieces } from './json-slices';

/** Characters of JSON made and written per event-loop turn (≈ 5–10 ms: escape, encode, write). */
export const TURN_CHARS = 2 * 1024 * 1024;

/** A record accepted for the file: its JSON line is made when it is written (`lineOf`, or in steps). */
export interface Queued {
  readonly id: string;
  readonly value: object;
  line?: string;
}

/** A queued record's JSON line (made once). */
export function lineOf(q: Queued): string {
  return (q.line ??= `${JSON.stringify(q.value)}\n`);
}

function* batchPieces(batch: readonly Queued[]): Generator<string> {
  for (const q of batch) {
    if (q.line !== undefined) {
      yield q.line;
      continue;
    }
    yield* jsonPieces(q.value);
    yield '\n';
  }
}

export class SteppedBatch {
  /** How many records (the first of the queue when it began) the batch holds. */
  readonly records: number;
  private readonly pieces: Iterator<string>;

  /** `start`: the file's size before the batch (a failure cuts it back to this). */
  constructor(
    readonly fd: number,
    batch: readonly Queued[],
    readonly start: number,
  ) {
    this.records = batch.length;
    this.pieces = batchPieces(batch);
  }

  /** Make and append about `chars` more characters of the batch: the bytes written, and whether it is all out. */
  write(chars: number): { bytes: number; done: boolean } {
    const parts: string[] = [];
    let made = 0;
    let done = false;
    while (made < chars) {
      const next = this.pieces.next();
      if (next.done) {
        done = true;
        break;
      }
      parts.push(next.value);
      made += next.value.length;
    }
    const buf = Buffer.from(parts.join(''), 'utf8');
    for (let off = 0; off < buf.length;) off += fs.writeSync(this.fd, buf, off, buf.length - off);
    return { bytes: buf.length, done };
  }

  /** The batch is durable (fsync on the thread pool: the event loop goes on meanwhile). */
  fsync(): Promise<void> {
    return new Promise((ok, fail) => fs.fsync(this.fd, (e) => (e ? fail(e) : ok())));
  }
}
