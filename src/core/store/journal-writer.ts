/**
 * The file under a session journal (journal.ts says what goes in it): records appended as
 * JSONL, each id at most once, durably (one write and one fsync per batch), under the
 * writer's lock. It knows every id in its file (and how many times each overlay was added
 * and removed), keeps what a failed write did not get into the file queued for a retry,
 * and gives back its descriptor and lock when idle (journal-files.ts bounds how many are open).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fsyncDir, repairTornTail, touchOpen } from './journal-files';
import { scanJournal } from './load';
import { acquireLock, releaseLock } from './lock';
import { JOURNAL_VERSION, type NewRecord } from './records';
import { lineOf, SteppedBatch, TURN_CHARS, type Queued } from './stepped-batch';

/** Records kept for a retry after failed writes; beyond this the oldest are dropped (and reported). */
export const MAX_QUEUED_BYTES = 32 * 1024 * 1024;

export interface JournalOptions {
  /**
   * Called when a record cannot be written (disk full, file removed). Default:
   * the error is thrown to whoever triggered the write (for attached sessions,
   * the caller of `append`/`addOverlay`), so history is never lost silently.
   */
  readonly onError?: (error: Error) => void;
  /**
   * Bytes of unwritten records kept for a retry (default MAX_QUEUED_BYTES); beyond it the oldest are dropped and
   * reported.
   */
  readonly maxQueuedBytes?: number;
}
/**
 * Ends a hold (`hold()`): the batch is written now, or (`inSteps`) serialized and written a slice per event-loop
 * turn, fsynced off the event loop.
 */
export type Release = (() => void) & { inSteps(): Promise<void> };

export class JournalWriter {
  readonly file: string;
  /** The lock file this writer takes while it holds a descriptor. */
  readonly lockFile: string;
  readonly sessionId: string;
  private fd: number | undefined;
  /** Closed for good (close()); an idle journal has no descriptor but reopens on its next write. */
  private closed = false;
  /** Bytes of the file as this writer left it (another writer changed it if the size differs). */
  private bytes = 0;
  private readonly ids = new Set<string>();
  /** Per overlay id: how many adds and removals the file holds (an overlay is active when adds > removes). */
  protected readonly overlayAdds = new Map<string, number>();
  protected readonly overlayRemoves = new Map<string, number>();
  private readonly onError?: (error: Error) => void;
  private readonly maxQueuedBytes: number;
  /** Records accepted but not yet in the file: a batch being collected, or a failed write to retry. */
  private queue: Queued[] = [];
  private readonly queued = new Set<string>();
  private holding = false;
  /** A batch being written in steps: every other write waits for it (then goes after it, in order). */
  private stepping: SteppedBatch | undefined;
  /** Told to go idle (or closed) while writing in steps: done when the batch is out. */
  private idleWanted = false;
  private indexed = false;

  constructor(file: string, sessionId: string, options: JournalOptions = {}) {
    this.file = file;
    this.lockFile = `${file}.lock`;
    this.sessionId = sessionId;
    this.onError = options.onError;
    this.maxQueuedBytes = options.maxQueuedBytes ?? MAX_QUEUED_BYTES;
  }

  /** Take the lock, read (and repair) the file, open it: before the first write, and after going idle. */
  open(): void {
    if (this.closed) throw new Error(`journal ${this.file} is closed`);
    if (this.fd !== undefined) {
      touchOpen(this, true);
      return;
    }
    acquireLock(this.lockFile, this.file);
    try {
      const existed = fs.existsSync(this.file);
      if (!this.indexed || !existed || fs.statSync(this.file).size !== this.bytes)
        this.index(existed ? fs.readFileSync(this.file, 'utf8') : '');
      this.fd = fs.openSync(this.file, 'a', 0o600);
      if ((fs.fstatSync(this.fd).mode & 0o777) !== 0o600) fs.fchmodSync(this.fd, 0o600);
      if (!existed) fsyncDir(path.dirname(this.file));
    } catch (e) {
      releaseLock(this.lockFile);
      throw e;
    }
    touchOpen(this, true);
  }

  /** Give back the descriptor and the lock until the next write. */
  idle(): void {
    if (this.stepping) {
      this.idleWanted = true;
      return;
    }
    touchOpen(this, false);
    if (this.fd === undefined) return;
    try {
      fs.closeSync(this.fd);
    } finally {
      this.fd = undefined;
      releaseLock(this.lockFile);
    }
  }

  /** Whether this journal holds a descriptor (and its lock) now. */
  get isOpen(): boolean {
    return this.fd !== undefined;
  }

  /** What the file holds: ids and overlay counts (a torn last line is cut off first). */
  private index(text: string): void {
    if (text && !text.endsWith('\n')) {
      repairTornTail(this.file, text);
      text = text.slice(0, text.lastIndexOf('\n') + 1);
    }
    this.ids.clear();
    this.overlayAdds.clear();
    this.overlayRemoves.clear();
    for (const { record } of scanJournal(text).records) {
      this.ids.add(record.id);
      if (record.type === 'overlay-added') bump(this.overlayAdds, record.overlay.id);
      if (record.type === 'overlay-removed') bump(this.overlayRemoves, record.overlayId);
    }
    this.bytes = Buffer.byteLength(text);
    this.indexed = true;
  }

  /** Is a record with this id in the file? */
  has(recordId: string): boolean {
    return this.ids.has(recordId);
  }

  /** Number of distinct records in the file. */
  get size(): number {
    return this.ids.size;
  }

  /** Whether a record with this id is in the file or queued for it. */
  protected accepted(recordId: string): boolean {
    return this.ids.has(recordId) || this.queued.has(recordId);
  }

  /**
   * Collect the records written until the returned function is called, then write them with
   * one write and one fsync (a proxied request appends messages and a call record: one fsync,
   * not one per record, on the request path). Nested holds flush at the outermost release.
   */
  hold(): Release {
    if (this.holding) return Object.assign(() => undefined, { inSteps: () => Promise.resolve() });
    this.holding = true;
    let held = true;
    const release = (): boolean => {
      const was = held;
      held = false;
      if (was) this.holding = false;
      return was;
    };
    return Object.assign(() => void (release() && this.flush()), {
      inSteps: async () => void (release() && (await this.flushInSteps())),
    });
  }

  /** Records accepted but not in the file yet (a failed write's, waiting for the retry). */
  get unwritten(): number {
    return this.holding || this.stepping ? 0 : this.queue.length;
  }

  /** Write what is still queued (a last retry), release the file and its lock. */
  close(): void {
    if (this.closed) return;
    this.holding = false;
    try {
      this.finishSteps();
      if (this.queue.length) this.flush();
    } finally {
      this.closed = true;
      this.idle();
    }
  }

  /**
   * Write one record durably unless its id is already in the file (or queued for it). Returns
   * whether it was accepted: written, batched, or queued for a retry after a reported failure.
   */
  protected append(rec: NewRecord): boolean {
    if (this.ids.has(rec.id) || this.queued.has(rec.id)) return false;
    if (this.closed) throw new Error(`journal ${this.file} is closed`);
    // Serialized when written: a batch written in steps (flushInSteps) serializes its huge texts in slices too.
    this.queue.push({ id: rec.id, value: { v: JOURNAL_VERSION, ...rec, ts: new Date().toISOString() } });
    this.queued.add(rec.id);
    if (!this.holding) this.flush();
    return true;
  }

  /**
   * Write every queued record with one write and one fsync. On failure they stay queued (the
   * next write retries them first) and the error goes to onError, or is thrown.
   */
  private flush(): void {
    if (!this.queue.length || this.stepping) return;
    let error: Error | undefined;
    try {
      this.open();
      // Reopened after going idle: what another writer added meanwhile is not written again.
      this.queue = this.queue.filter((q) => !this.ids.has(q.id));
    } catch (e) {
      error = e instanceof Error ? e : new Error(String(e));
    }
    error ??= this.write(this.queue.map(lineOf).join(''));
    if (!error) this.written(this.queue.length);
    else this.failed(error);
  }

  /** The first `n` queued records are in the file. */
  private written(n: number): void {
    for (const q of this.queue.slice(0, n)) {
      this.ids.add(q.id);
      this.queued.delete(q.id);
    }
    this.queue = this.queue.slice(n);
  }

  /** A write failed: what is queued stays for the retry (the oldest beyond the bound dropped); report or throw. */
  private failed(error: Error): void {
    const dropped = this.trimQueue();
    const err = dropped ? new Error(`${error.message} (${dropped} older unwritten records dropped)`) : error;
    if (!this.onError) throw err;
    this.onError(err);
  }

  /**
   * Write what is queued in steps (a hold's `inSteps`): the records' JSON made and written about TURN_CHARS per
   * event-loop turn, then fsynced off the event loop, so a 20 MB record does not stop the process for its whole
   * write. Records appended meanwhile wait and follow it. A crash midway leaves a torn last line, which the next
   * open cuts off (the records before it are whole); a failed write is cut back off the file and retried.
   */
  private async flushInSteps(): Promise<void> {
    if (!this.queue.length || this.stepping) return;
    try {
      this.open();
      this.queue = this.queue.filter((q) => !this.ids.has(q.id));
    } catch (e) {
      this.failed(e instanceof Error ? e : new Error(String(e)));
      return;
    }
    const run = new SteppedBatch(this.fd!, this.queue.slice(), this.bytes);
    this.stepping = run;
    try {
      while (!this.stepWrite(run, TURN_CHARS)) {
        await new Promise<void>((ok) => setImmediate(ok));
        if (this.stepping !== run) return; // close() wrote the rest
      }
      await run.fsync();
      if (this.stepping !== run) return;
      this.written(run.records);
    } catch (e) {
      if (this.stepping !== run) return;
      this.stepping = undefined;
      this.cutBack(run);
      this.failed(e instanceof Error ? e : new Error(String(e)));
    } finally {
      if (this.stepping === run) this.stepping = undefined;
      this.afterSteps();
    }
  }

  /** Write about `chars` more of a stepped batch; whether all of it is in the file. */
  private stepWrite(run: SteppedBatch, chars: number): boolean {
    const { bytes, done } = run.write(chars);
    this.bytes += bytes;
    return done;
  }

  /** Closing while a batch is written in steps: the rest of it is written now (write + fsync), in this turn. */
  private finishSteps(): void {
    const run = this.stepping;
    if (!run) return;
    this.stepping = undefined;
    try {
      this.stepWrite(run, Infinity);
      fs.fsyncSync(run.fd);
      this.written(run.records);
    } catch (e) {
      this.cutBack(run);
      this.failed(e instanceof Error ? e : new Error(String(e)));
    }
  }

  /** A stepped batch failed: its part is cut back off the file (no half record before the retry's whole one). */
  private cutBack(run: SteppedBatch): void {
    try {
      fs.ftruncateSync(run.fd, run.start);
      this.bytes = run.start;
    } catch {
      // The retry starts on a torn line, which load reports and skips.
    }
  }

  /** After a stepped batch: what waited for it is written, a wanted idle done. */
  private afterSteps(): void {
    if (this.idleWanted && !this.closed) {
      this.idleWanted = false;
      if (!this.queue.length) this.idle();
    }
    if (this.queue.length && !this.holding && !this.closed) {
      try {
        this.flush();
      } catch {
        // No onError: the records stay queued for the next write, which throws to its caller.
      }
    }
  }

  /** Bound the memory a long outage takes: drop the oldest queued records beyond maxQueuedBytes (the newest stays). */
  private trimQueue(): number {
    let bytes = this.queue.reduce((sum, q) => sum + lineOf(q).length, 0);
    let n = 0;
    while (bytes > this.maxQueuedBytes && n < this.queue.length - 1) {
      const q = this.queue[n++];
      this.queued.delete(q.id);
      bytes -= lineOf(q).length;
    }
    if (n) this.queue = this.queue.slice(n);
    return n;
  }

  /**
   * Append text durably (write + fsync) to the open file; a failed write is cut back off it. Returns the error, if any.
   */
  private write(text: string): Error | undefined {
    const fd = this.fd!;
    if (!text) return undefined;
    const buf = Buffer.from(text, 'utf8');
    try {
      for (let off = 0; off < buf.length;) off += fs.writeSync(fd, buf, off, buf.length - off);
      fs.fsyncSync(fd);
      this.bytes += buf.length;
      return undefined;
    } catch (e) {
      try {
        fs.ftruncateSync(fd, this.bytes); // no half record before the retry's whole one
      } catch {
        // The retry starts on a torn line, which load reports and skips.
      }
      return e instanceof Error ? e : new Error(String(e));
    }
  }
}

/** One more of `key` in a per-overlay count. */
export function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}
