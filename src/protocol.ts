/**
 * The typed host ⇄ webview protocol, imported by both sides (VS Code host, standalone
 * host, inspector and chat webviews). One file declares every message in both
 * directions. The webview announces `ready` before the host sends anything; requests
 * carry ids and get exactly one `response`; the host sends typed snapshots, never
 * JSON strings inside JSON. Every incoming message is checked with the guards below.
 */

export type BlockState = 'verbatim' | 'trimmed' | 'summarized' | 'pruned' | 'pinned';
export type TokenQuality = 'estimated' | 'calibrated' | 'exact';

/** One block of the view (see src/core/engine/view-rows.ts). */
export interface InspectorRow {
  ref: string;
  blockId: string;
  messageId: string;
  position: number;
  role: 'user' | 'assistant';
  kind: string;
  tool?: string;
  tokens: number;
  originalTokens: number;
  quality: TokenQuality;
  state: BlockState;
  why?: string;
  by?: string;
  overlayId?: string;
  breakpoint: boolean;
  cached: boolean;
  sent: boolean;
  /** First characters of the block as sent (or of the original when not sent), as plain text. */
  preview: string;
}

export interface CallPoint {
  call: number;
  /** Tokens sent, read from the cache, and what would have been sent untrimmed. */
  sent: number;
  cached: number;
  untrimmed: number;
  cost: number;
}

export interface CompositionEntry {
  label: string;
  tokens: number;
}

export interface Finding {
  id: string;
  severity: 'info' | 'warning';
  message: string;
  blockIds: string[];
  action?: { kind: 'trim' | 'pin' | 'compact'; blockId?: string; label: string };
}

export interface InspectorSnapshot {
  sessionId: string;
  title: string;
  model: string;
  strategy: string;
  contextWindow: number;
  rows: InspectorRow[];
  totals: { sentTokens: number; untrimmedTokens: number; systemTokens: number; toolsTokens: number };
  cache: { hitRatio: number; cachedUpToRef?: string; breakpoints: number };
  cost: { session: number; nextRequest: number; nextInput: number; nextCacheWrite: number; nextCacheRead: number };
  calls: CallPoint[];
  composition: CompositionEntry[];
  findings: Finding[];
  /** Strategy specs the user can switch to (standalone replay). */
  strategies: string[];
  live: boolean;
}

export interface RequestDiff {
  call: number;
  added: string[];
  removed: string[];
  changed: string[];
  /** The first block (ref) where the cached prefix broke, if it did. */
  cacheBreakAt?: string;
}

/** Host → webview. */
export type HostMessage =
  | { type: 'snapshot'; snapshot: InspectorSnapshot }
  | { type: 'response'; id: number; ok: true; result?: unknown }
  | { type: 'response'; id: number; ok: false; error: string }
  | { type: 'chat'; event: ChatEvent }
  | { type: 'theme'; kind: 'light' | 'dark' | 'high-contrast' };

/** What the chat view shows as the agent works. */
export type ChatEvent =
  | { kind: 'user'; id: string; text: string }
  | { kind: 'assistant-start'; id: string }
  | { kind: 'text-delta'; id: string; text: string }
  | { kind: 'tool-call'; id: string; toolUseId: string; name: string; input: unknown }
  | { kind: 'tool-result'; toolUseId: string; content: string; isError: boolean }
  | { kind: 'approval'; requestId: string; tool: string; detail: string }
  | { kind: 'turn-end'; stopReason: string; cost: number }
  | { kind: 'error'; message: string; retryable: boolean }
  | { kind: 'status'; busy: boolean; sessionId?: string; title?: string }
  | { kind: 'reset' };

/** Webview → host requests (each gets one response). */
export type WebviewRequest =
  | { op: 'pin'; blockId: string }
  | { op: 'unpin'; blockId: string }
  | { op: 'trim'; blockId: string; text?: string }
  | { op: 'restore'; blockId: string }
  | { op: 'originals'; overlayId: string }
  | { op: 'diff'; call?: number }
  | { op: 'setStrategy'; spec: string }
  | { op: 'compact' }
  | { op: 'send'; text: string }
  | { op: 'stop' }
  | { op: 'approve'; requestId: string; approved: boolean }
  | { op: 'newChat' }
  | { op: 'retry' }
  | { op: 'openInspector' };

export type WebviewMessage = { type: 'ready' } | { type: 'request'; id: number; request: WebviewRequest };

const MAX_TEXT = 200_000;
const MAX_ID = 256;

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function str(v: unknown, max = MAX_ID): v is string {
  return typeof v === 'string' && v.length > 0 && v.length <= max;
}

/** Validate a request from a webview; returns undefined for anything malformed. */
export function parseWebviewMessage(v: unknown): WebviewMessage | undefined {
  if (!isObj(v)) return undefined;
  if (v.type === 'ready') return { type: 'ready' };
  if (v.type !== 'request' || typeof v.id !== 'number' || !Number.isSafeInteger(v.id) || !isObj(v.request)) return undefined;
  const r = v.request;
  const ok = (request: WebviewRequest): WebviewMessage => ({ type: 'request', id: v.id as number, request });
  switch (r.op) {
    case 'pin':
    case 'unpin':
    case 'restore':
      return str(r.blockId) ? ok({ op: r.op, blockId: r.blockId }) : undefined;
    case 'trim':
      if (!str(r.blockId)) return undefined;
      if (r.text !== undefined && (typeof r.text !== 'string' || r.text.length > MAX_TEXT)) return undefined;
      return ok({ op: 'trim', blockId: r.blockId, text: r.text === '' ? undefined : (r.text as string | undefined) });
    case 'originals':
      return str(r.overlayId) ? ok({ op: 'originals', overlayId: r.overlayId }) : undefined;
    case 'diff':
      if (r.call !== undefined && !(typeof r.call === 'number' && Number.isSafeInteger(r.call) && r.call >= 0)) return undefined;
      return ok({ op: 'diff', call: r.call as number | undefined });
    case 'setStrategy':
      return str(r.spec, 1000) ? ok({ op: 'setStrategy', spec: r.spec }) : undefined;
    case 'send':
      return str(r.text, MAX_TEXT) ? ok({ op: 'send', text: r.text }) : undefined;
    case 'approve':
      return str(r.requestId) && typeof r.approved === 'boolean' ? ok({ op: 'approve', requestId: r.requestId, approved: r.approved }) : undefined;
    case 'compact':
    case 'stop':
    case 'newChat':
    case 'retry':
    case 'openInspector':
      return ok({ op: r.op });
    default:
      return undefined;
  }
}
