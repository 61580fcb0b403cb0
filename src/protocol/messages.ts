/**
 * The typed host ⇄ webview protocol, imported by both sides (VS Code host, standalone
 * host, inspector and chat webviews). One file declares every message in both
 * directions. The webview announces `ready` before the host sends anything; requests
 * carry ids and get exactly one `response`; the host sends typed snapshots and
 * snapshot deltas, never JSON strings inside JSON. Every incoming message is checked
 * with the guards of parse.ts (deltas with those of delta-guards.ts).
 */
import type { McpApprovalInfo, McpInspectorInfo, McpRequest } from './mcp';
import type { CallVerdict } from './verdicts';
import type { ActionPrice } from './prices';
import type { InspectorOpRequest, InspectorOpResults } from './inspector-ops';

export type * from './mcp';

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
  /** The call at which the deciding overlay was made, and the tokens it saves per request. */
  call?: number;
  saved?: number;
}

export interface CallPoint {
  call: number;
  /** Tokens sent, read from the cache, and what would have been sent untrimmed. */
  sent: number;
  cached: number;
  untrimmed: number;
  cost: number;
  /** Why the call read less from the cache than the one before left there (verdicts.ts). */
  verdict?: CallVerdict;
}

/** What a slice of the next request is made of (the composition bar colours by group). */
export type CompositionGroup =
  'system' | 'tools' | 'user' | 'assistant' | 'tool-calls' | 'tool-results' | 'thinking' | 'summaries' | 'other';

export interface CompositionEntry {
  label: string;
  tokens: number;
  group: CompositionGroup;
}

export interface Finding {
  id: string;
  severity: 'info' | 'warning';
  message: string;
  blockIds: string[];
  action?: { kind: 'trim' | 'pin' | 'compact'; blockId?: string; label: string };
  /** Tokens at stake (per request), when the finding has a size. */
  tokens?: number;
  /** The call the finding is about (cache invalidations): the diff view can show it. */
  call?: number;
  /** What its action costs against the prompt cache (prices.ts). */
  price?: ActionPrice;
}

export interface InspectorSnapshot {
  sessionId: string;
  title: string;
  model: string;
  strategy: string;
  contextWindow: number;
  /** Index of the request the snapshot describes (the next one). */
  callIndex: number;
  quality: TokenQuality;
  rows: InspectorRow[];
  /** Whole next request (system + tools + messages); untrimmed = the same without any overlay. */
  totals: {
    sentTokens: number;
    untrimmedTokens: number;
    systemTokens: number;
    toolsTokens: number;
    byState: Record<BlockState, number>;
    /**
     * Of systemTokens, those inferred from the recorded usage: a transcript that does not hold its
     * system prompt and tools (absent when nothing is inferred).
     */
    inferredTokens?: number;
  };
  /**
   * hitRatio: share of the session's input read from the cache. cachedUpToRef: the last
   * block of the next request's prefix that is read from the cache ('tools' / 'system'
   * when it ends there; absent when nothing is). breakpointRefs: where cache_control sits.
   */
  cache: {
    hitRatio: number;
    cachedUpToRef?: string;
    breakpoints: number;
    breakpointRefs: string[];
    nextCachedTokens: number;
  };
  cost: {
    session: number;
    nextRequest: number;
    nextInput: number;
    nextCacheWrite: number;
    nextCacheRead: number;
    /** Tokens of the next request by how they are billed. */
    nextTokens: { input: number; cacheWrite: number; cacheRead: number };
    /** False when the model's prices are a guess (show costs as approximate). */
    exactPrices: boolean;
    /**
     * Saved so far vs `none` on this session (USD, input side, the engine's guard account: engine/savings-guard.ts),
     * what `none` would have cost, and how many rewrites of the cached prefix the guard held. Absent before a call.
     */
    vsNone?: { saved: number; none: number; held: number };
  };
  calls: CallPoint[];
  composition: CompositionEntry[];
  findings: Finding[];
  /** Strategy specs the user can switch to (standalone replay). */
  strategies: string[];
  live: boolean;
}

export interface RequestDiff {
  call: number;
  /** The request compared against (absent for the first call). */
  previous?: number;
  added: string[];
  removed: string[];
  changed: string[];
  /** The first block (ref) where the cached prefix broke, if it did. */
  cacheBreakAt?: string;
  /** Blocks identical at the start of both requests (the reusable prefix). */
  commonPrefix: number;
  /** Tokens of the added/changed (new) and removed/changed (old) blocks. */
  addedTokens: number;
  removedTokens: number;
  /** Tokens of the previous request from the break on: cached before, re-written now. */
  invalidatedTokens: number;
  /** How much smaller the request got, not counting blocks appended at the end (new turns). */
  savedTokens: number;
  /** Blocks sent the same in both requests (wherever they sit). */
  unchanged?: number;
  /** Where each changed block's text first differs (issue 29). */
  edits?: BlockEdit[];
  /** The previous request is another epoch's (the client rewrote its history): blocks were matched by content. */
  acrossEpochs?: boolean;
}

/** A changed block: the first differing character of its text, with context and each side's changed part. */
export interface BlockEdit {
  ref: string;
  /** Offset (characters) of the first difference. */
  at: number;
  /** Up to 40 characters before it, the same on both sides. */
  context: string;
  /** The differing part, before and after (each cut at 160 characters). */
  before: string;
  after: string;
  beforeLength: number;
  afterLength: number;
}

/** One original block behind an overlay (`originals` request). */
export interface OriginalBlock {
  ref: string;
  blockId: string;
  role: 'user' | 'assistant';
  kind: string;
  tool?: string;
  tokens: number;
  /** Plain text of the original, cut at a limit (see `truncated`). */
  text: string;
  truncated: boolean;
}

/** Result of `originals`: what an overlay replaced, and what it sends instead. */
export interface OriginalsResult {
  overlayId: string;
  kind: 'pin' | 'trim' | 'summary' | 'prune';
  author: string;
  reason: string;
  /** The replacement text (trim or summary), if any. */
  replacement?: string;
  blocks: OriginalBlock[];
  /** Blocks of the range left out of `blocks` (too many to send). */
  omitted: number;
}

/**
 * What a host can do for an inspector that has no session to show: its empty state
 * offers exactly the actions the host lists in its `empty` message (VS Code: start a
 * chat, import a transcript; the standalone server: none), never a guess by the webview.
 */
export type InspectorAction = 'startChat' | 'importTranscript';
export const INSPECTOR_ACTIONS: readonly InspectorAction[] = ['startChat', 'importTranscript'];

/** Result of pin/unpin/trim/restore/compact/setStrategy: one line for the status region. */
export interface ActionResult {
  message: string;
}

/** The `result` type of each request op (the response's `result` field). */
export interface RequestResults extends InspectorOpResults {
  pin: ActionResult;
  unpin: ActionResult;
  trim: ActionResult;
  restore: ActionResult;
  originals: OriginalsResult;
  diff: RequestDiff;
  setStrategy: ActionResult;
  compact: ActionResult;
  send: undefined;
  stop: undefined;
  approve: undefined;
  newChat: undefined;
  retry: undefined;
  openInspector: undefined;
  showDiff: undefined;
  resume: undefined;
  setApiKey: undefined;
  runAction: undefined;
  mcpSwitch: ActionResult;
  mcpApply: ActionResult;
}
export type RequestOp = WebviewRequest['op'];

/** Host → webview. */
export type HostMessage =
  /** A whole snapshot; `revision` (when the host streams deltas) is what later deltas build on. */
  | { type: 'snapshot'; snapshot: InspectorSnapshot; revision?: number }
  | { type: 'snapshotDelta'; delta: SnapshotDelta }
  /** No session to show (yet): the inspector shows its empty state with these actions. */
  | { type: 'empty'; actions: InspectorAction[] }
  | { type: 'response'; id: number; ok: true; result?: unknown }
  | { type: 'response'; id: number; ok: false; error: string }
  | { type: 'chat'; event: ChatEvent }
  | { type: 'theme'; kind: 'light' | 'dark' | 'high-contrast' }
  | { type: 'mcp'; info: McpInspectorInfo };

/** What the chat view shows as the agent works. */
export type ChatEvent =
  | { kind: 'user'; id: string; text: string }
  | { kind: 'assistant-start'; id: string }
  | { kind: 'text-delta'; id: string; text: string }
  | { kind: 'tool-call'; id: string; toolUseId: string; name: string; input: unknown }
  | { kind: 'tool-result'; toolUseId: string; content: string; isError: boolean }
  | { kind: 'approval'; requestId: string; tool: string; detail: string; edit?: EditSummary; mcp?: McpApprovalInfo }
  /** An approval was answered (here or elsewhere) or cancelled by Stop: the card stops asking. */
  | { kind: 'approval-settled'; requestId: string; approved: boolean }
  /** Workspace Trust and what it means for the agent's tools (sent after `ready` and on change). */
  | { kind: 'workspace'; trusted: boolean; notice?: string }
  /** The response of assistant message `id` failed mid-way and is being requested again: its text so far is void. */
  | { kind: 'retrying'; id: string; text: string }
  /** A one-line note in the conversation (recoveries, resumed sessions, compactions). */
  | { kind: 'notice'; text: string }
  | { kind: 'turn-end'; stopReason: string; cost: number }
  | { kind: 'error'; message: string; retryable: boolean }
  | { kind: 'status'; busy: boolean; sessionId?: string; title?: string }
  | { kind: 'reset' };

/** A proposed file change awaiting approval; the diff itself opens in an editor (`showDiff`). */
export interface EditSummary {
  path: string;
  added: number;
  removed: number;
  isNew: boolean;
}

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
  | { op: 'approve'; requestId: string; approved: boolean; always?: boolean }
  | { op: 'newChat' }
  | { op: 'retry' }
  | { op: 'openInspector' }
  | { op: 'showDiff'; requestId: string }
  | { op: 'resume' }
  | { op: 'setApiKey' }
  /** From the inspector's empty state: one of the actions the host offered in `empty`. */
  | { op: 'runAction'; action: InspectorAction }
  | McpRequest
  | InspectorOpRequest;

/** `ready` also asks for a whole snapshot again (a delta that did not fit the webview's revision). */
export type WebviewMessage = { type: 'ready' } | { type: 'request'; id: number; request: WebviewRequest };

// ── Snapshot deltas ──
// A live inspector is updated with deltas, not whole snapshots (a 10,000-block
// snapshot is megabytes). The host sends a whole `snapshot` with a `revision` first
// (after every `ready`), then `snapshotDelta`s, each naming the revision it applies to
// (`base`). The webview applies a delta only to that revision; otherwise it sends
// `ready` and gets a whole snapshot again. Rows are identified by block id (one row per
// log block). Computing and applying deltas: delta.ts; checking them on arrival:
// delta-guards.ts.

/** New rows placed together: right after the row `after` (a block id) of the result, or first when absent. */
export interface RowRun {
  after?: string;
  rows: InspectorRow[];
}

/** The top-level parts of a snapshot a delta may replace (each whole, only when it changed). */
export type SnapshotHead = Omit<InspectorSnapshot, 'rows' | 'calls' | 'findings'>;

/**
 * The new findings list from the old one, in order: keep the next `keep` old findings,
 * skip the next `skip`, or insert `add` (new or changed findings). A long session has
 * hundreds of findings and one or two change per call.
 */
export type FindingsEdit = ({ keep: number } | { skip: number } | { add: Finding[] })[];

export interface SnapshotDelta {
  /** The revision this delta applies to, and the revision it makes. */
  base: number;
  revision: number;
  /** Block ids of rows that are gone. */
  removed: string[];
  /** Rows that changed (whole), by block id; they keep their place. */
  changed: InspectorRow[];
  /**
   * Rows whose only change is their token counts (a calibration update re-estimates
   * every block). `shifts`: pairs [rows skipped since the previous pair, change of
   * both tokens and originalTokens] (a block sent as it is); `counts`: triples [rows
   * skipped since the previous triple, change of originalTokens, change of tokens].
   * Rows are counted over the base's rows that stay (after `removed`, in order).
   */
  shifts: number[];
  counts: number[];
  /** Every row's token quality is now this (the estimator became calibrated). */
  quality?: TokenQuality;
  /** New rows, in the order of the result. */
  added: RowRun[];
  /** Top-level parts that changed. */
  head: Partial<SnapshotHead>;
  /** Absent when the findings did not change. */
  findings?: FindingsEdit;
  /** The per-call points from index `callsFrom` on are replaced by `calls` (usually the new tail). */
  callsFrom: number;
  calls: CallPoint[];
}
