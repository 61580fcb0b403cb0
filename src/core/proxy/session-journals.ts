/**
 * The proxy's journals: one file per proxied session (`proxy-<id>.jsonl` in the journal
 * directory), loaded when a session comes back after a restart, opened when it is met. A
 * journal that cannot be opened (a full disk at the session's start) is not given up: the
 * engine opens it again on the session's next call.
 */
import { existsSync } from 'node:fs';
import { journalPath, openJournal, type Journal, type JournalOptions } from '../store/journal';
import { loadJournal, type LoadedJournal } from '../store/load';
import type { ProxiedSession } from './registry';

/** Journal ids are file names: `proxy-` plus the session id. */
function journalId(id: string): string {
  return `proxy-${id}`;
}

export interface OpenedJournal {
  readonly journal?: Journal;
  /** Why there is no journal (shown by the inspector until a later call opens it). */
  readonly error?: string;
}

export class SessionJournals {
  constructor(
    private readonly dir: string | undefined,
    private readonly log: (line: string) => void,
    private readonly warn: (line: string) => void,
  ) {}

  /** Whether a journal of this session id exists (an earlier run's, or a released session's). */
  has(id: string): boolean {
    if (this.dir === undefined) return false;
    try {
      return existsSync(journalPath(this.dir, journalId(id)));
    } catch {
      return false;
    }
  }

  /** The session an earlier run journaled, or undefined (none, or unreadable: logged). */
  load(id: string): LoadedJournal | undefined {
    if (this.dir === undefined || !this.has(id)) return undefined;
    try {
      return loadJournal(journalPath(this.dir, journalId(id)));
    } catch (e) {
      this.log(`session ${id}: journal not loaded: ${e instanceof Error ? e.message : String(e)}`);
      return undefined;
    }
  }

  /**
   * Open (or create) a session's journal and catch it up on the session. A failure is warned of
   * once per reason (`before`: the reason the last attempt gave), not once per call.
   */
  open(entry: ProxiedSession, options: JournalOptions, before?: string): OpenedJournal {
    if (this.dir === undefined) return {};
    try {
      const journal = openJournal(this.dir, journalId(entry.id), options);
      journal.attach(entry.session);
      return { journal };
    } catch (e) {
      const error = `not journaled (tried again on its next call): ${e instanceof Error ? e.message : String(e)}`;
      if (error !== before) this.warn(`session ${entry.id}: ${error}`);
      return { error };
    }
  }

  /** Close a session's journal (its descriptor and lock); a failure is logged, never thrown. */
  close(id: string, journal: Journal | undefined): void {
    try {
      journal?.close();
    } catch (e) {
      this.log(`session ${id}: journal not closed cleanly: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}
