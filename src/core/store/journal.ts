/**
 * The session journal: an append-only JSONL file per session. Each record is
 * written with one `fs.writeSync` and made durable with `fs.fsyncSync` before
 * the call returns, so a crash loses at most the record being written, and
 * that torn line is recognized and ignored on load.
 *
 * Records are deduplicated by id: the journal knows every id already in its
 * file, so attaching to a session that was just loaded from it writes nothing,
 * and writing the same fact twice is a no-op.
 *
 * One writer per file: `openJournal` takes `<file>.lock` (lock.ts); a second process
 * opening the same journal gets a JournalLockedError until the first closes it or dies.
 *
 * A failed write (disk full, file made read-only) keeps its records queued, not marked as
 * written: the next write retries them first, and the error goes to `onError` (or is thrown).
 *
 * Open descriptors are bounded per process (MAX_OPEN_JOURNALS): the least recently written
 * journal gives back its descriptor and its lock, and takes them again on its next write
 * (re-reading the file if another writer changed it meanwhile). Files are 0600, the
 * directory 0700.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  newId,
  type CallRecord,
  type CallUsage,
  type LogMessage,
  type Overlay,
  type Session,
  type SessionEvent,
} from '../session';
import { loadJournalText, scanJournal, type LoadedJournal } from './load';
import { ensurePrivateDir, fsyncDir, repairTornTail, touchOpen } from './journal-files';
import { acquireLock, releaseLock } from './lock';
import type { CallVerdict } from '../../protocol/verdicts';
import { PrintEncoder, type RequestFingerprint } from '../cache/print-delta';
import { JOURNAL_EXTENSION, JOURNAL_VERSION, recordIds, storedMessage, type NewRecord } from './records';

/** Session ids become file names: keep them to a portable, traversal-free alphabet. */
const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;
/** Records kept for a retry after failed writes; beyond this the oldest are dropped (and reported). */
export const MAX_QUEUED_BYTES = 32 * 1024 * 1024;
export { JournalLockedError } from './lock';
export { MAX_OPEN_JOURNALS, openJournalCount } from './journal-files';

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

/** Path of a session's journal in `dir`; throws for ids that are not safe file names. */
export function journalPath(dir: string, sessionId: string): string {
  if (!SESSION_ID_PATTERN.test(sessionId)) {
    throw new Error(
      `invalid session id ${JSON.stringify(sessionId)}: use letters, digits, '.', '_' and '-' (not starting with '.')`,
    );
  }
  return path.join(dir, `${sessionId}${JOURNAL_EXTENSION}`);
}

interface Queued {
  readonly id: string;
  readonly line: string;
}

export class Journal {
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
  private readonly overlayAdds = new Map<string, number>();
  private readonly overlayRemoves = new Map<string, number>();
  private readonly detachers = new Set<() => void>();
  private readonly onError?: (error: Error) => void;
  private readonly maxQueuedBytes: number;
  /** Records accepted but not yet in the file: a batch being collected, or a failed write to retry. */
  private queue: Queued[] = [];
  private readonly queued = new Set<string>();
  private queuedBytes = 0;
  private holding = false;
  private indexed = false;
  /** Each lineage's last request journaled by this writer: the next one is written as a delta against it. */
  private readonly prints = new PrintEncoder();

  /** Use `openJournal` (which takes the lock and opens the file). */
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

  /**
   * Journal a session: write the header (once per file), catch up on messages,
   * active overlays and calls the file does not have yet, then write every
   * message and overlay event as it happens. Returns a function that detaches.
   */
  attach(session: Session): () => void {
    // The catch-up is one write and one fsync, however long the session (a proxy meeting a
    // 5,000-message session must not fsync 5,000 times before forwarding its request).
    const release = this.hold();
    try {
      if (!this.has(recordIds.header())) {
        this.append({
          type: 'header',
          id: recordIds.header(),
          sessionId: this.sessionId,
          system: session.system,
          tools: session.tools,
          model: session.model,
        });
      }
      for (const m of session.messages) this.writeMessage(m);
      for (const o of session.allOverlays()) if (!this.isActive(o.id)) this.writeOverlayAdded(o);
      for (const c of session.calls) this.recordCall(c);
    } finally {
      release();
    }
    const off = session.on((e) => this.onEvent(e));
    const detach = (): void => {
      off();
      this.detachers.delete(detach);
    };
    this.detachers.add(detach);
    return detach;
  }

  /** Journal a model call (Session.recordCall has no event): `journal.recordCall(session.recordCall({...}))`. */
  recordCall(call: CallRecord): boolean {
    return this.append({ type: 'call', id: recordIds.call(call.index), call });
  }

  /** Usage of a call that was recorded before its usage was known. */
  recordUsage(callIndex: number, usage: CallUsage): boolean {
    return this.append({ type: 'usage', id: recordIds.usage(callIndex), callIndex, usage });
  }

  /**
   * A call's cache verdict (one per call; a second one for the same call is skipped), with its request's fingerprint
   * and response id.
   */
  recordVerdict(
    lineage: string,
    verdict: CallVerdict,
    sent: { readonly print?: RequestFingerprint; readonly responseId?: string } = {},
  ): boolean {
    const id = recordIds.verdict(verdict.sessionCall);
    const print =
      sent.print && !this.ids.has(id) && !this.queued.has(id)
        ? this.prints.encode(lineage, verdict.sessionCall, sent.print)
        : undefined;
    return this.append({
      type: 'verdict',
      id,
      lineage,
      verdict,
      ...(print ? { print } : {}),
      ...(sent.responseId !== undefined ? { responseId: sent.responseId } : {}),
    });
  }

  /** A trimming decision; `id` defaults to the decision's own `id` field, else a fresh one. */
  recordDecision(decision: unknown, id?: string): boolean {
    return this.append({ type: 'decision', id: recordIds.decision(id ?? ownId(decision) ?? newId('dec')), decision });
  }

  /** A token calibration sample; `id` as for decisions. */
  recordCalibration(calibration: unknown, id?: string): boolean {
    return this.append({
      type: 'calibration',
      id: recordIds.calibration(id ?? ownId(calibration) ?? newId('cal')),
      calibration,
    });
  }

  /**
   * Collect the records written until the returned function is called, then write them with
   * one write and one fsync (a proxied request appends messages and a call record: one fsync,
   * not one per record, on the request path). Nested holds flush at the outermost release.
   */
  hold(): () => void {
    if (this.holding) return () => undefined;
    this.holding = true;
    return () => {
      this.holding = false;
      this.flush();
    };
  }

  /** Records accepted but not in the file yet (a failed write's, waiting for the retry). */
  get unwritten(): number {
    return this.holding ? 0 : this.queue.length;
  }

  /** A history-compression call's usage (it is billed, but not a call of the conversation). */
  recordCompression(
    entry: { readonly callIndex: number; readonly model: string; readonly usage: CallUsage },
    id: string = newId('cmp'),
  ): boolean {
    return this.append({ type: 'compression', id: recordIds.compression(id), ...entry });
  }

  /** Detach from every session, write what is still queued (a last retry), release the file and its lock. */
  close(): void {
    for (const d of [...this.detachers]) d();
    if (this.closed) return;
    this.holding = false;
    try {
      if (this.queue.length) this.flush();
    } finally {
      this.closed = true;
      this.idle();
    }
  }

  private onEvent(e: SessionEvent): void {
    switch (e.type) {
      case 'message':
        this.writeMessage(e.message);
        return;
      case 'overlay-added':
        this.writeOverlayAdded(e.overlay);
        return;
      case 'overlay-removed':
        this.writeOverlayRemoved(e.overlay, e);
        return;
    }
  }

  private isActive(overlayId: string): boolean {
    return (this.overlayAdds.get(overlayId) ?? 0) > (this.overlayRemoves.get(overlayId) ?? 0);
  }

  private writeMessage(m: LogMessage): void {
    this.append({ type: 'message', id: recordIds.message(m.id), message: storedMessage(m) });
  }

  private writeOverlayAdded(o: Overlay): void {
    const nth = (this.overlayAdds.get(o.id) ?? 0) + 1;
    if (this.append({ type: 'overlay-added', id: recordIds.overlayAdded(o.id, nth), overlay: o }))
      bump(this.overlayAdds, o.id);
  }

  private writeOverlayRemoved(o: Overlay, e: Extract<SessionEvent, { type: 'overlay-removed' }>): void {
    const nth = (this.overlayRemoves.get(o.id) ?? 0) + 1;
    if (this.append({ type: 'overlay-removed', id: recordIds.overlayRemoved(o.id, nth), overlayId: o.id, by: e.by }))
      bump(this.overlayRemoves, o.id);
  }

  /**
   * Write one record durably unless its id is already in the file (or queued for it). Returns
   * whether it was accepted: written, batched, or queued for a retry after a reported failure.
   */
  private append(rec: NewRecord): boolean {
    if (this.ids.has(rec.id) || this.queued.has(rec.id)) return false;
    if (this.closed) throw new Error(`journal ${this.file} is closed`);
    const line = `${JSON.stringify({ v: JOURNAL_VERSION, ...rec, ts: new Date().toISOString() })}\n`;
    this.queue.push({ id: rec.id, line });
    this.queued.add(rec.id);
    this.queuedBytes += line.length;
    if (!this.holding) this.flush();
    return true;
  }

  /**
   * Write every queued record with one write and one fsync. On failure they stay queued (the
   * next write retries them first) and the error goes to onError, or is thrown.
   */
  private flush(): void {
    if (!this.queue.length) return;
    let error: Error | undefined;
    try {
      this.open();
      // Reopened after going idle: what another writer added meanwhile is not written again.
      this.queue = this.queue.filter((q) => !this.ids.has(q.id));
    } catch (e) {
      error = e instanceof Error ? e : new Error(String(e));
    }
    error ??= this.write(this.queue.map((q) => q.line).join(''));
    if (!error) {
      for (const q of this.queue) this.ids.add(q.id);
      this.queue = [];
      this.queued.clear();
      this.queuedBytes = 0;
      return;
    }
    const dropped = this.trimQueue();
    const err = dropped ? new Error(`${error.message} (${dropped} older unwritten records dropped)`) : error;
    if (!this.onError) throw err;
    this.onError(err);
  }

  /** Bound the memory a long outage takes: drop the oldest queued records beyond maxQueuedBytes (the newest stays). */
  private trimQueue(): number {
    let n = 0;
    while (this.queuedBytes > this.maxQueuedBytes && n < this.queue.length - 1) {
      const q = this.queue[n++];
      this.queued.delete(q.id);
      this.queuedBytes -= q.line.length;
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

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** The `id` field of a decision or calibration object, if it has one. */
function ownId(v: unknown): string | undefined {
  if (typeof v !== 'object' || v === null || !('id' in v)) return undefined;
  return typeof v.id === 'string' && v.id ? v.id : undefined;
}

/**
 * Open (or create) `<dir>/<sessionId>.jsonl` for appending; the directory is created (0700), a torn last line cut off
 * first.
 */
export function openJournal(dir: string, sessionId: string, options: JournalOptions = {}): Journal {
  const file = journalPath(dir, sessionId);
  ensurePrivateDir(dir);
  const journal = new Journal(file, sessionId, options);
  journal.open();
  return journal;
}

export interface ResumedSession extends LoadedJournal {
  readonly journal: Journal;
}

/**
 * Load a session from its journal (a new, empty one when there is none) and
 * keep journaling it. Nothing that was loaded is written again.
 */
export function resumeSession(dir: string, sessionId: string, options: JournalOptions = {}): ResumedSession {
  const file = journalPath(dir, sessionId);
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const loaded = loadJournalText(text, file);
  const journal = openJournal(dir, sessionId, options);
  journal.attach(loaded.session);
  return { ...loaded, journal };
}
