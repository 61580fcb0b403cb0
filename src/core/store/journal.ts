/**
 * The session journal: an append-only JSONL file per session holding what happened to it
 * (header, messages, overlays added and removed, calls, usage, verdicts, decisions,
 * calibration, compression calls). `attach` catches up on a session and then follows its
 * events; attaching to a session just loaded from the file writes nothing.
 *
 * The file side is journal-writer.ts: each batch durable (write + fsync) before the call
 * returns, records deduplicated by id, one writer per file (`<file>.lock`, a second process
 * gets a JournalLockedError), failed writes queued for a retry and reported to `onError`
 * (or thrown), descriptors bounded per process (MAX_OPEN_JOURNALS). Files are 0600, the
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
import { loadJournalText, type LoadedJournal } from './load';
import { ensurePrivateDir } from './journal-files';
import { bump, JournalWriter, type JournalOptions } from './journal-writer';
import type { CallVerdict } from '../../protocol/verdicts';
import { PrintEncoder, type RequestFingerprint } from '../cache/print-delta';
import { JOURNAL_EXTENSION, recordIds, storedMessage } from './records';

/** Session ids become file names: keep them to a portable, traversal-free alphabet. */
const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;
export { MAX_QUEUED_BYTES, JournalWriter, type JournalOptions } from './journal-writer';
export { JournalLockedError } from './lock';
export { MAX_OPEN_JOURNALS, openJournalCount } from './journal-files';

/** Path of a session's journal in `dir`; throws for ids that are not safe file names. */
export function journalPath(dir: string, sessionId: string): string {
  if (!SESSION_ID_PATTERN.test(sessionId)) {
    throw new Error(
      `invalid session id ${JSON.stringify(sessionId)}: use letters, digits, '.', '_' and '-' (not starting with '.')`,
    );
  }
  return path.join(dir, `${sessionId}${JOURNAL_EXTENSION}`);
}

/** A session's journal: what it records of a session (open one with `openJournal`, which takes the lock). */
export class Journal extends JournalWriter {
  private readonly detachers = new Set<() => void>();
  /** Each lineage's last request journaled by this writer: the next one is written as a delta against it. */
  private readonly prints = new PrintEncoder();

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
      sent.print && !this.accepted(id) ? this.prints.encode(lineage, verdict.sessionCall, sent.print) : undefined;
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

  /** A history-compression call's usage (it is billed, but not a call of the conversation). */
  recordCompression(
    entry: { readonly callIndex: number; readonly model: string; readonly usage: CallUsage },
    id: string = newId('cmp'),
  ): boolean {
    return this.append({ type: 'compression', id: recordIds.compression(id), ...entry });
  }

  /** Detach from every session, write what is still queued (a last retry), release the file and its lock. */
  override close(): void {
    for (const d of [...this.detachers]) d();
    super.close();
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
