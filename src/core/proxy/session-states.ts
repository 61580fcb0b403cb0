/**
 * What the proxy keeps beside each registry entry (registry.ts): the session's context engine, its
 * live inspector and its journal, made when the session is first met, freed when the registry
 * forgets it. A journal that could not be opened (a full disk) or written is retried on later
 * calls; the inspector shows why it is missing until then.
 */
import { ContextEngine, type PreparedCall } from '../engine/context-engine';
import { LiveInspector } from '../inspect/live';
import type { Finding } from '../../protocol';
import type { Session } from '../session/session';
import type { Journal } from '../store/journal';
import { TokenEstimator, type DeferPolicy } from '../tokens';
import { strategyNames, type PipelineConfig } from '../trimming';
import type { ProxyFaults } from './faults';
import type { ProxiedSession } from './registry';
import { restoreSession } from './restore';
import { SessionJournals } from './session-journals';
import { titleOf } from './title';
import type { ProxyVerdicts } from './verdicts';

/** Per-session state kept beside the registry entry. */
export interface SessionState {
  readonly entry: ProxiedSession;
  readonly engine: ContextEngine;
  readonly inspector: LiveInspector;
  /** Undefined while it could not be opened (a full disk): opening is tried again on the next call. */
  journal?: Journal;
  /** The last reason a request went untouched (shown by the inspector). */
  lastFailOpen?: string;
  /** The journal's last write error while records are still waiting for a retry (shown by the inspector). */
  journalError?: string;
  prepared?: PreparedCall;
  /** Stop following the session's overlay events. */
  readonly unsubscribe: () => void;
  /** Each call of the log (by its index) numbered as the journal and the verdicts number it (its lineage's). */
  readonly callNumbers: Map<number, number>;
}

export interface SessionStatesOptions {
  readonly strategy: string;
  readonly config?: PipelineConfig;
  readonly journalDir?: string;
  /** Token counting on the request path; undefined: exact counts. */
  readonly defer?: DeferPolicy;
  readonly faults: ProxyFaults;
  readonly verdicts: ProxyVerdicts;
  readonly onChange?: (entry: ProxiedSession) => void;
  readonly log?: (line: string) => void;
  readonly warn: (line: string) => void;
}

export class SessionStates {
  private readonly journals: SessionJournals;
  private readonly states = new Map<string, SessionState>();
  /** Live sessions with at least one overlay (so `hasOverlays` is one lookup, not a loop). */
  private readonly withOverlays = new Set<string>();
  /** Call numbers of sessions restored from their journal, until their inspector is made. */
  private readonly restoredNumbers = new Map<string, Map<number, number>>();

  constructor(private readonly o: SessionStatesOptions) {
    this.journals = new SessionJournals(o.journalDir, (line) => o.log?.(line), o.warn);
  }

  get size(): number {
    return this.states.size;
  }

  get(id: string): SessionState | undefined {
    return this.states.get(id);
  }

  values(): IterableIterator<SessionState> {
    return this.states.values();
  }

  /** Whether any live session has an overlay. */
  anyOverlays(): boolean {
    return this.withOverlays.size > 0;
  }

  /** Whether a journal of this session id exists (an earlier run's, or a released session's). */
  journaled(id: string): boolean {
    return this.journals.has(id);
  }

  /** A session journaled by an earlier run (the proxy was restarted), with its overlays and call numbers. */
  restore(id: string): Session | undefined {
    const r = restoreSession(this.journals, this.o.verdicts, id, this.o.log);
    if (r) this.restoredNumbers.set(id, r.callNumbers);
    return r?.session;
  }

  /** Free a session the registry forgot: its engine, inspector and journal (descriptor and lock). */
  forget(id: string): void {
    const st = this.states.get(id);
    if (!st) return;
    this.states.delete(id);
    this.withOverlays.delete(id);
    this.o.faults.forget(id);
    st.unsubscribe();
    this.journals.close(id, st.journal);
  }

  close(): void {
    for (const id of [...this.states.keys()]) this.forget(id);
  }

  /** The journal wrote its queued records again after an error: the inspector stops warning. */
  checkJournal(st: SessionState): void {
    if (st.journalError === undefined || !st.journal || st.journal.unwritten > 0) return;
    st.journalError = undefined;
    st.inspector.invalidate();
    this.o.log?.(`session ${st.entry.id}: journal writes again`);
  }

  /** A journal write failed: its records wait for the next write; the user hears of it. */
  private journalFailed(id: string, error: Error): void {
    const st = this.states.get(id);
    const why = `journal write failed (records kept for a retry): ${error.message}`;
    // Once per error, not once per retry (a full disk must not flood the log).
    if (st?.journalError !== why) this.o.warn(`session ${id}: ${why}`);
    if (!st) return;
    st.journalError = why;
    st.inspector.invalidate();
    this.o.onChange?.(st.entry);
  }

  /** A session whose journal could not be opened: try again (the disk may have space now). */
  reopenJournal(st: SessionState): void {
    const { journal, error } = this.journals.open(
      st.entry,
      { onError: (e) => this.journalFailed(st.entry.id, e) },
      st.journalError,
    );
    if (!journal) return void (st.journalError = error);
    st.journal = journal;
    // A catch-up that could not be written keeps the write's error (journalFailed) until a retry writes it.
    if (journal.unwritten === 0) st.journalError = undefined;
    st.inspector.invalidate();
    this.o.log?.(`session ${st.entry.id}: journaled again`);
  }

  /** The state of a registry entry, made (engine, inspector, journal) when the session is first met. */
  of(entry: ProxiedSession): SessionState {
    let st = this.states.get(entry.id);
    if (st) return st;
    const estimator = new TokenEstimator({ defer: this.o.defer });
    const engine = new ContextEngine(entry.session, {
      strategy: this.o.strategy,
      config: this.o.config,
      model: entry.session.model,
      estimator,
    });
    const { journal, error: notJournaled } = this.journals.open(entry, {
      onError: (e) => this.journalFailed(entry.id, e),
    });
    const findings = (): Finding[] => this.o.faults.findings(entry.id, this.states.get(entry.id)?.journalError);
    const callNumbers = this.restoredNumbers.get(entry.id) ?? new Map<number, number>();
    this.restoredNumbers.delete(entry.id);
    const meta = { sessionId: entry.id, title: () => titleOf(entry), strategy: this.o.strategy, findings };
    const strategies = ['none', 'default', ...strategyNames()];
    const inspector = new LiveInspector(engine, {
      ...meta,
      strategies,
      externalVerdicts: true,
      callNumber: (i) => callNumbers.get(i),
    });
    const s = entry.session;
    const overlays = (): void => {
      if (s.overlayCount > 0) this.withOverlays.add(entry.id);
      else this.withOverlays.delete(entry.id);
    };
    overlays();
    const unsubscribe = s.on((e) => {
      if (e.type !== 'message') overlays();
    });
    st = { entry, engine, inspector, journal, journalError: notJournaled, unsubscribe, callNumbers };
    this.states.set(entry.id, st);
    const matched = entry.key ? `client session ${entry.key}` : 'matched by message prefix';
    const epoch = entry.epoch > 1 ? `, epoch ${entry.epoch}: the client rewrote its history` : '';
    this.o.log?.(`session ${entry.id}: new (${matched}${epoch})`);
    return st;
  }
}
