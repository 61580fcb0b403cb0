/**
 * Durable agent sessions: open a new session with its journal, or resume one
 * exactly as journaled (messages, overlays, calls, decisions, calibration).
 *
 * What the loop writes, in order, per model call: the assistant message, the
 * call record (with usage), the calibration state. A crash between the first
 * two leaves a message without its call: `reconcileCalls` restores the call
 * from the message's own meta (usage, API id), so costs still add up.
 */
import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import { Session, type ImportIssue } from '../session';
import { journalPath, openJournal, resumeSession, type Journal, type JournalOptions } from '../store';
import type { CompressionEntry } from '../store/load';
import type { Decision } from '../trimming/types';
import { toolDefinitions } from './tools';
import { DEFAULT_SYSTEM_PROMPT } from './system-prompt';

/** Bytes of randomness in a new session id (with the timestamp, unique per user for all practical purposes). */
const SESSION_ID_RANDOM_BYTES = 3;

/** Prefix of calibration record ids (`calibration:state-<callIndex>` in the journal). */
export const CALIBRATION_ID_PREFIX = 'state-';

/** The calibration record the loop writes after each call. */
export interface CalibrationRecord {
  readonly callIndex: number;
  readonly state: unknown;
}

export class SessionNotFoundError extends Error {
  constructor(
    readonly sessionId: string,
    readonly file: string,
  ) {
    super(`no session "${sessionId}" (looked for ${file})`);
    this.name = 'SessionNotFoundError';
  }
}

export interface OpenAgentSessionOptions {
  /** Directory of the journals. */
  readonly dir: string;
  /** Default: a new id. An existing id is resumed. */
  readonly sessionId?: string;
  /** The session must exist already (`--resume`). */
  readonly mustExist?: boolean;
  readonly model?: string;
  /** System prompt of a new session (a resumed session keeps its own). */
  readonly system?: string;
  readonly journal?: JournalOptions;
}

export interface AgentSessionHandle {
  readonly sessionId: string;
  readonly session: Session;
  readonly journal: Journal;
  readonly file: string;
  readonly resumed: boolean;
  /** The last calibration state journaled (TokenEstimator.fromJSON input). */
  readonly calibration?: unknown;
  readonly decisions: readonly Decision[];
  /** History-compression calls journaled before (their cost counts toward the session's). */
  readonly compressions: readonly CompressionEntry[];
  /** Problems found while loading (torn last line, skipped records); never fatal. */
  readonly issues: readonly ImportIssue[];
}

/** `20260314-153012-a1b2c3`: sorts by creation time, safe as a file name. */
export function newSessionId(now: Date = new Date()): string {
  const iso = now.toISOString();
  const stamp = `${iso.slice(0, 10).replace(/-/g, '')}-${iso.slice(11, 19).replace(/:/g, '')}`;
  return `${stamp}-${randomBytes(SESSION_ID_RANDOM_BYTES).toString('hex')}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

/** A journaled decision, if it has the shape of one (the journal stores decisions as opaque JSON). */
function asDecision(v: unknown): Decision | undefined {
  if (!isObject(v)) return undefined;
  const ok =
    typeof v.callIndex === 'number' &&
    typeof v.by === 'string' &&
    typeof v.action === 'string' &&
    Array.isArray(v.targets) &&
    typeof v.reason === 'string';
  return ok ? (v as unknown as Decision) : undefined;
}

/** The state of the newest calibration record. */
function lastCalibration(records: readonly unknown[]): unknown {
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i];
    if (isObject(r) && 'state' in r) return r.state;
  }
  return undefined;
}

/**
 * Record the call of an assistant message whose call record was lost (a crash
 * right after the message was written). Returns how many calls were restored.
 */
export function reconcileCalls(session: Session, journal?: Journal): number {
  const recorded = new Set(session.calls.map((c) => c.apiMessageId).filter(Boolean));
  let restored = 0;
  for (let pos = 0; pos < session.messages.length; pos++) {
    const m = session.messages[pos];
    const id = m.meta.apiMessageId;
    if (m.role !== 'assistant' || !id || !m.meta.usage || m.meta.interrupted || recorded.has(id)) continue;
    const call = session.recordCall({
      at: pos,
      epochStart: 0,
      apiMessageId: id,
      model: m.meta.model,
      timestamp: m.meta.timestamp,
      usage: m.meta.usage,
    });
    journal?.recordCall(call);
    recorded.add(id);
    restored++;
  }
  return restored;
}

/** Open (or resume) a session with its journal attached: everything that happens from now on is durable. */
export function openAgentSession(opts: OpenAgentSessionOptions): AgentSessionHandle {
  const sessionId = opts.sessionId ?? newSessionId();
  const file = journalPath(opts.dir, sessionId);
  if (!fs.existsSync(file)) {
    if (opts.mustExist) throw new SessionNotFoundError(sessionId, file);
    const session = new Session({
      system: opts.system ?? DEFAULT_SYSTEM_PROMPT,
      tools: toolDefinitions(),
      model: opts.model,
    });
    const journal = openJournal(opts.dir, sessionId, opts.journal);
    journal.attach(session);
    return { sessionId, session, journal, file, resumed: false, decisions: [], compressions: [], issues: [] };
  }
  const loaded = resumeSession(opts.dir, sessionId, opts.journal);
  const { session, journal } = loaded;
  if (session.system === undefined) session.system = opts.system ?? DEFAULT_SYSTEM_PROMPT;
  reconcileCalls(session, journal);
  const decisions = loaded.decisions.map(asDecision).filter((d): d is Decision => d !== undefined);
  return {
    sessionId: loaded.sessionId,
    session,
    journal,
    file,
    resumed: true,
    calibration: lastCalibration(loaded.calibrations),
    decisions,
    compressions: loaded.compressions,
    issues: loaded.issues,
  };
}
