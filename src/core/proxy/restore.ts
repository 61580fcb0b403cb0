/** A proxied session journaled by an earlier run (the proxy was restarted), brought back with what it had. */
import type { Session } from '../session/session';
import type { SessionJournals } from './session-journals';
import type { ProxyVerdicts } from './verdicts';

export interface RestoredSession {
  readonly session: Session;
  /** Each call's index in the session → the number the journal and the verdict list gave it. */
  readonly callNumbers: Map<number, number>;
}

/** The session `id` from its journal, with its usage, verdict numbering and last request; undefined without one. */
export function restoreSession(
  journals: SessionJournals,
  verdicts: ProxyVerdicts,
  id: string,
  log?: (line: string) => void,
): RestoredSession | undefined {
  const loaded = journals.load(id);
  if (!loaded) return undefined;
  for (const u of loaded.usage) loaded.session.completeCall(u.callIndex, { usage: u.usage });
  // Its verdicts' numbering goes on where the journal left it.
  for (const v of loaded.verdicts) verdicts.seed(v.lineage, v.verdict.call + 1);
  // Its next call is compared with the request sent before the restart (when the journal has it).
  if (loaded.lastSent) verdicts.restore(id, loaded.lastSent);
  const { messages, overlayCount } = loaded.session;
  log?.(`session ${id}: continued from its journal (${messages.length} messages, ${overlayCount} overlays)`);
  // Its calls keep their numbers in the inspector.
  const callNumbers = new Map(loaded.verdicts.map((v) => [v.verdict.sessionCall, v.verdict.call]));
  return { session: loaded.session, callNumbers };
}
