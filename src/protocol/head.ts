/**
 * The protocol's request-head part (issue 17): the system blocks and tool definitions of the
 * next request as rows like the messages' (text, tokens, cache state, where the client put
 * its breakpoints), tool definitions the session never used marked with what they cost.
 * Asked for by the inspector's "System & tools" tab (`head` request). Kept apart from
 * protocol.ts so the protocol-package move stays a plain move.
 */

export interface HeadRow {
  /** `tools.N` or `system.N`. */
  ref: string;
  section: 'tools' | 'system';
  /** The tool's name (tools). */
  name?: string;
  /** The block as sent: a system block's text, a tool definition's JSON (cut at a limit, see `truncated`). */
  text: string;
  truncated: boolean;
  tokens: number;
  /** Read from the cache by the next request. */
  cached: boolean;
  /** A cache_control breakpoint sits on it (in a proxied session: where the client put it). */
  breakpoint: boolean;
  /** Tools: how often the session called it. */
  uses?: number;
  /** Tools never used: USD its definition has cost over the session's calls (read from the cache at best). */
  unusedCost?: number;
}

export interface HeadResult {
  rows: HeadRow[];
  /** Calls the session has made (the unused tools' cost is over these). */
  calls: number;
}

export type HeadRequest = { op: 'head' };

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isHeadRow(v: unknown): v is HeadRow {
  return (
    isObj(v) &&
    typeof v.ref === 'string' &&
    (v.section === 'tools' || v.section === 'system') &&
    (v.name === undefined || typeof v.name === 'string') &&
    typeof v.text === 'string' &&
    typeof v.truncated === 'boolean' &&
    typeof v.tokens === 'number' &&
    typeof v.cached === 'boolean' &&
    typeof v.breakpoint === 'boolean' &&
    (v.uses === undefined || typeof v.uses === 'number') &&
    (v.unusedCost === undefined || typeof v.unusedCost === 'number')
  );
}

/** Checks a head from the host (the webview's side). */
export function isHeadResult(v: unknown): v is HeadResult {
  return isObj(v) && Array.isArray(v.rows) && v.rows.every(isHeadRow) && typeof v.calls === 'number';
}
