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
 * One writer per file: `openJournal` takes `<file>.lock` (the writer's pid, created
 * exclusively); a second process opening the same journal gets a JournalLockedError
 * until the first closes it or dies (a lock whose process is gone is taken over).
 */
import fs from 'node:fs';
import path from 'node:path';
import { newId, type CallRecord, type CallUsage, type LogMessage, type Overlay, type Session, type SessionEvent } from '../session';
import { loadJournalText, scanJournal, type LoadedJournal } from './load';
import type { CallVerdict } from '../../protocol-verdicts';
import { JOURNAL_EXTENSION, JOURNAL_VERSION, recordIds, storedMessage, type NewRecord } from './records';

/** Session ids become file names: keep them to a portable, traversal-free alphabet. */
const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

export interface JournalOptions {
  /**
   * Called when a record cannot be written (disk full, file removed). Default:
   * the error is thrown to whoever triggered the write (for attached sessions,
   * the caller of `append`/`addOverlay`), so history is never lost silently.
   */
  readonly onError?: (error: Error) => void;
}

/** Path of a session's journal in `dir`; throws for ids that are not safe file names. */
export function journalPath(dir: string, sessionId: string): string {
  if (!SESSION_ID_PATTERN.test(sessionId)) {
    throw new Error(`invalid session id ${JSON.stringify(sessionId)}: use letters, digits, '.', '_' and '-' (not starting with '.')`);
  }
  return path.join(dir, `${sessionId}${JOURNAL_EXTENSION}`);
}

/** Make a new directory entry durable (POSIX; a no-op where directories cannot be opened). */
function fsyncDir(dir: string): void {
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
function repairTornTail(file: string, text: string): void {
  const keep = Buffer.byteLength(text.slice(0, text.lastIndexOf('\n') + 1));
  const fd = fs.openSync(file, 'r+');
  try {
    fs.ftruncateSync(fd, keep);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

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

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Take `<file>.lock` for this process (see the module doc); returns the lock file's path. */
function lockJournal(file: string): string {
  const lock = `${file}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
      return lock;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const pid = Number.parseInt(fs.readFileSync(lock, 'utf8'), 10);
    if (pid === process.pid) return lock;
    if (Number.isInteger(pid) && pid > 0 && alive(pid)) throw new JournalLockedError(file, pid);
    fs.rmSync(lock, { force: true }); // its writer is gone: take it over
  }
  throw new JournalLockedError(file, -1);
}

export class Journal {
  readonly file: string;
  /** The lock file this writer holds (released by close). */
  lockFile?: string;
  readonly sessionId: string;
  private fd: number | undefined;
  private readonly ids = new Set<string>();
  /** Per overlay id: how many adds and removals the file holds (an overlay is active when adds > removes). */
  private readonly overlayAdds = new Map<string, number>();
  private readonly overlayRemoves = new Map<string, number>();
  private readonly detachers = new Set<() => void>();
  private readonly onError?: (error: Error) => void;
  /** While attaching: records collected for one write. */
  private batch?: { id: string; line: string }[];

  /** Use `openJournal`. */
  constructor(file: string, sessionId: string, existingText: string, options: JournalOptions = {}) {
    this.file = file;
    this.sessionId = sessionId;
    this.onError = options.onError;
    for (const { record } of scanJournal(existingText).records) {
      this.ids.add(record.id);
      if (record.type === 'overlay-added') bump(this.overlayAdds, record.overlay.id);
      if (record.type === 'overlay-removed') bump(this.overlayRemoves, record.overlayId);
    }
    this.fd = fs.openSync(file, 'a');
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
        this.append({ type: 'header', id: recordIds.header(), sessionId: this.sessionId, system: session.system, tools: session.tools, model: session.model });
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

  /** A call's cache verdict (one per call; a second one for the same call is skipped). */
  recordVerdict(lineage: string, verdict: CallVerdict): boolean {
    return this.append({ type: 'verdict', id: recordIds.verdict(verdict.sessionCall), lineage, verdict });
  }

  /** A trimming decision; `id` defaults to the decision's own `id` field, else a fresh one. */
  recordDecision(decision: unknown, id?: string): boolean {
    return this.append({ type: 'decision', id: recordIds.decision(id ?? ownId(decision) ?? newId('dec')), decision });
  }

  /** A token calibration sample; `id` as for decisions. */
  recordCalibration(calibration: unknown, id?: string): boolean {
    return this.append({ type: 'calibration', id: recordIds.calibration(id ?? ownId(calibration) ?? newId('cal')), calibration });
  }

  /**
   * Collect the records written until the returned function is called, then write them with
   * one write and one fsync (a proxied request appends messages and a call record: one fsync,
   * not one per record, on the request path). Nested holds flush at the outermost release.
   */
  hold(): () => void {
    if (this.batch) return () => undefined;
    this.batch = [];
    return () => {
      const batch = this.batch;
      this.batch = undefined;
      this.flush(batch);
    };
  }

  /** A history-compression call's usage (it is billed, but not a call of the conversation). */
  recordCompression(entry: { readonly callIndex: number; readonly model: string; readonly usage: CallUsage }, id: string = newId('cmp')): boolean {
    return this.append({ type: 'compression', id: recordIds.compression(id), ...entry });
  }

  /** Detach from every session and close the file. */
  close(): void {
    for (const d of [...this.detachers]) d();
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
    if (this.lockFile) fs.rmSync(this.lockFile, { force: true });
    this.lockFile = undefined;
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
    if (this.append({ type: 'overlay-added', id: recordIds.overlayAdded(o.id, nth), overlay: o })) bump(this.overlayAdds, o.id);
  }

  private writeOverlayRemoved(o: Overlay, e: Extract<SessionEvent, { type: 'overlay-removed' }>): void {
    const nth = (this.overlayRemoves.get(o.id) ?? 0) + 1;
    if (this.append({ type: 'overlay-removed', id: recordIds.overlayRemoved(o.id, nth), overlayId: o.id, by: e.by })) bump(this.overlayRemoves, o.id);
  }

  /** Write one record durably unless its id is already in the file. Returns whether it was written (or batched). */
  private append(rec: NewRecord): boolean {
    if (this.ids.has(rec.id)) return false;
    const line = `${JSON.stringify({ v: JOURNAL_VERSION, ...rec, ts: new Date().toISOString() })}\n`;
    if (this.batch) {
      this.batch.push({ id: rec.id, line });
      this.ids.add(rec.id);
      return true;
    }
    if (!this.write(line)) return false;
    this.ids.add(rec.id);
    return true;
  }

  /** Write batched records with one write and one fsync; on failure their ids are forgotten again. */
  private flush(batch: { id: string; line: string }[] | undefined): void {
    if (!batch?.length) return;
    if (!this.write(batch.map((b) => b.line).join(''))) for (const b of batch) this.ids.delete(b.id);
  }

  /** Append text durably (write + fsync); errors go to onError or are thrown. */
  private write(text: string): boolean {
    try {
      if (this.fd === undefined) throw new Error(`journal ${this.file} is closed`);
      const buf = Buffer.from(text, 'utf8');
      for (let off = 0; off < buf.length; ) off += fs.writeSync(this.fd, buf, off, buf.length - off);
      fs.fsyncSync(this.fd);
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      if (!this.onError) throw err;
      this.onError(err);
      return false;
    }
    return true;
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
 * Open (or create) `<dir>/<sessionId>.jsonl` for appending. The directory is
 * created; a torn last line left by a crash is cut off first.
 */
export function openJournal(dir: string, sessionId: string, options: JournalOptions = {}): Journal {
  const file = journalPath(dir, sessionId);
  fs.mkdirSync(dir, { recursive: true });
  const lockFile = lockJournal(file);
  const existed = fs.existsSync(file);
  const text = existed ? fs.readFileSync(file, 'utf8') : '';
  if (text && !text.endsWith('\n')) repairTornTail(file, text);
  const journal = new Journal(file, sessionId, text, options);
  journal.lockFile = lockFile;
  if (!existed) fsyncDir(dir);
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
