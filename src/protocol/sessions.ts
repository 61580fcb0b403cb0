/**
 * The protocol's session-picker part (issue 17): an inspector of a proxy lists the proxied
 * sessions (a client session's side calls and subagents under it) and follows the most
 * recently active one unless the user picked one. Kept apart from protocol.ts so the
 * protocol-package move stays a plain move.
 */

export interface SessionEntry {
  id: string;
  title: string;
  /** The session it belongs under (same client session, another conversation: a subagent or side call). */
  parent?: string;
  calls: number;
  /** The agent it came from ("Claude Code", "Roo Code", "Cline", "Continue", "Copilot", "SDK"…). */
  client?: string;
  /** Last call, ms since the epoch. */
  lastSeen: number;
}

export interface SessionsResult {
  sessions: SessionEntry[];
  /** The session the user picked; absent: following the most recently active one. */
  followed?: string;
  /** The session shown now. */
  shown?: string;
}

export type SessionsRequest = { op: 'sessions' } | { op: 'follow'; id?: string };

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
const id = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 256;

/** A `sessions` or `follow` request from a webview, or undefined. */
export function parseSessionsRequest(r: Record<string, unknown>): SessionsRequest | undefined {
  if (r.op === 'sessions') return { op: 'sessions' };
  if (r.op !== 'follow') return undefined;
  if (r.id === undefined) return { op: 'follow' };
  return id(r.id) ? { op: 'follow', id: r.id } : undefined;
}

function isEntry(v: unknown): v is SessionEntry {
  return (
    isObj(v) &&
    id(v.id) &&
    typeof v.title === 'string' &&
    (v.parent === undefined || id(v.parent)) &&
    (v.client === undefined || (typeof v.client === 'string' && v.client.length <= 40)) &&
    typeof v.calls === 'number' &&
    typeof v.lastSeen === 'number'
  );
}

/** Checks a session list from the host (the webview's side). */
export function isSessionsResult(v: unknown): v is SessionsResult {
  return (
    isObj(v) &&
    Array.isArray(v.sessions) &&
    v.sessions.every(isEntry) &&
    (v.followed === undefined || id(v.followed)) &&
    (v.shown === undefined || id(v.shown))
  );
}
