/**
 * A proxied session's cache verdicts across its epochs. The proxy journals each epoch of a
 * client session in its own file (`proxy-<key>.jsonl`, `proxy-<key>.e2.jsonl`, …) and each
 * call's verdict in the file of the epoch it belonged to, tagged with the lineage (the
 * client session) and numbered in it. Given any one of those files, the calls of the whole
 * lineage are found in the journals beside it, in the order sent.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { CacheMiss, CallVerdict, VerdictUsage } from '../../protocol/verdicts';
import { loadJournal, sessionIdOf, type VerdictEntry } from './load';
import { JOURNAL_EXTENSION } from './records';

/** One call as `inspect --json` lists it. */
export interface PerCall {
  readonly call: number;
  /** The journal (session id) of the epoch the call belonged to, and its index there. */
  readonly session: string;
  readonly sessionCall: number;
  readonly usage: VerdictUsage | null;
  readonly miss: CacheMiss | null;
  readonly missCost: number;
  readonly beyondRules: boolean;
  readonly local: CacheMiss | null;
  readonly api?: CacheMiss | null;
  readonly disagreement?: string;
}

function perCall(session: string, v: CallVerdict): PerCall {
  return {
    call: v.call,
    session,
    sessionCall: v.sessionCall,
    usage: v.usage ?? null,
    miss: v.miss,
    missCost: v.missCost,
    beyondRules: v.beyondRules,
    local: v.local,
    ...(v.api !== undefined ? { api: v.api } : {}),
    ...(v.disagreement ? { disagreement: v.disagreement } : {}),
  };
}

/**
 * The verdicts of every call of the lineage `file`'s session belongs to, ordered by call
 * number; undefined when the journal holds no verdict (not a proxied session).
 */
export function lineageCalls(file: string): PerCall[] | undefined {
  const own = loadJournal(file).verdicts;
  if (own.length === 0) return undefined;
  const lineage = own[0].lineage;
  const dir = path.dirname(file);
  const byCall = new Map<number, PerCall>();
  const add = (session: string, entries: readonly VerdictEntry[]): void => {
    for (const e of entries)
      if (e.lineage === lineage && !byCall.has(e.verdict.call)) byCall.set(e.verdict.call, perCall(session, e.verdict));
  };
  add(sessionIdOf(file), own);
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith(JOURNAL_EXTENSION) && path.join(dir, n) !== file);
  } catch {
    names = [];
  }
  for (const name of names) {
    const sibling = path.join(dir, name);
    try {
      // Only journals that mention the lineage are loaded whole.
      if (!fs.readFileSync(sibling, 'utf8').includes(JSON.stringify(lineage))) continue;
      add(sessionIdOf(sibling), loadJournal(sibling).verdicts);
    } catch {
      // An unreadable sibling is left out; the file asked about still answers.
    }
  }
  return [...byCall.values()].sort((a, b) => a.call - b.call);
}
