/**
 * Failures of the proxy's own work (a background step, a request handler, the inspector's
 * view of a call): reported once on the warn channel (stderr in the CLI) and kept, a few per
 * session, for the inspector's findings. A failure never ends the process and never marks a
 * session: its next call runs as any other.
 */
import type { Finding } from '../../protocol';

/** Failures kept per session (and for the proxy as a whole): the newest replace the oldest. */
export const MAX_FAULTS = 5;

export interface Fault {
  /** What was being done: "counting tokens", "after forwarding a call"… */
  readonly where: string;
  readonly message: string;
  /** How many times this same failure happened (one line on stderr, not one per time). */
  count: number;
}

/** The proxy-wide key: failures that belong to no session (building the tokenizer, reading a request). */
const PROXY = '';

export class ProxyFaults {
  private readonly bySession = new Map<string, Fault[]>();

  constructor(
    private readonly warn: (line: string) => void,
    /** A failure was recorded: the inspector should show it. */
    private readonly onReport: (sessionId: string | undefined) => void = () => undefined,
  ) {}

  /** Run one piece of the proxy's own work: its result, or undefined when it failed (reported). Never throws. */
  guard<T>(where: string, sessionId: string | undefined, work: () => T): T | undefined {
    try {
      return work();
    } catch (e) {
      this.report(where, e, sessionId);
      return undefined;
    }
  }

  /** Record a failure (`sessionId` undefined: the proxy's own) and show it. Never throws. */
  report(where: string, error: unknown, sessionId?: string): void {
    try {
      this.record(where, error, sessionId);
      this.onReport(sessionId);
    } catch {
      // Reporting must not be what ends the process.
    }
  }

  private record(where: string, error: unknown, sessionId: string | undefined): void {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    const key = sessionId ?? PROXY;
    const list = this.bySession.get(key) ?? [];
    const same = list.find((f) => f.where === where && f.message === message);
    if (same) same.count++;
    else {
      const who = sessionId === undefined ? 'proxy' : `session ${sessionId}`;
      this.warn(`${who}: ${where} failed (the proxy goes on): ${message}`);
      list.push({ where, message, count: 1 });
      if (list.length > MAX_FAULTS) list.shift();
      this.bySession.set(key, list);
    }
  }

  /** What the inspector shows for a session: its journal's error (if any), then its failures and the proxy's. */
  findings(sessionId: string, journalError?: string): Finding[] {
    const own = this.bySession.get(sessionId) ?? [];
    const all = [...(this.bySession.get(PROXY) ?? []), ...own];
    const journal: Finding[] = [];
    if (journalError) {
      journal.push({ id: 'journal-error', severity: 'warning', message: `Journal: ${journalError}`, blockIds: [] });
    }
    return journal.concat(
      all.map((f, i) => ({
        id: `proxy-fault-${i}`,
        severity: 'warning',
        message: `Proxy: ${f.where} failed${f.count > 1 ? ` (${f.count} times)` : ''}, and the proxy went on: ${
          f.message
        }`,
        blockIds: [],
      })),
    );
  }

  /** A session the registry let go: its failures go with it. */
  forget(sessionId: string): void {
    this.bySession.delete(sessionId);
  }
}
