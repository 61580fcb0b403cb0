/**
 * Checks of snapshot deltas as they arrive (the webview's side of validation; the
 * types are in messages.ts, "Snapshot deltas"). A delta carries few rows, so each is
 * checked whole; whether it fits the webview's snapshot is decided when applying it.
 */
import { isCallVerdict } from './verdicts';
import type { CallPoint, Finding, FindingsEdit, InspectorRow, SnapshotDelta, SnapshotHead } from './messages';

/** The head parts a delta may carry (every top-level field but rows, calls and findings). */
export const SNAPSHOT_HEAD_KEYS = [
  'sessionId',
  'title',
  'model',
  'strategy',
  'contextWindow',
  'callIndex',
  'quality',
  'totals',
  'cache',
  'cost',
  'composition',
  'strategies',
  'live',
] as const satisfies readonly (keyof SnapshotHead)[];

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
/** A non-empty id of reasonable length (as parse.ts checks ids). */
function str(v: unknown): v is string {
  return typeof v === 'string' && v.length > 0 && v.length <= 256;
}

const BLOCK_STATES: ReadonlySet<string> = new Set(['verbatim', 'trimmed', 'summarized', 'pruned', 'pinned']);
const QUALITIES: ReadonlySet<string> = new Set(['estimated', 'calibrated', 'exact']);

export function isRevision(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}
function optStr(v: unknown): boolean {
  return v === undefined || typeof v === 'string';
}
function optNum(v: unknown): boolean {
  return v === undefined || (typeof v === 'number' && Number.isFinite(v));
}
function num(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

/** A row as the webview dereferences it (deltas carry few rows, so each is checked). */
export function isInspectorRow(v: unknown): v is InspectorRow {
  return (
    isObj(v) &&
    str(v.ref) &&
    str(v.blockId) &&
    typeof v.messageId === 'string' &&
    num(v.position) &&
    (v.role === 'user' || v.role === 'assistant') &&
    typeof v.kind === 'string' &&
    optStr(v.tool) &&
    num(v.tokens) &&
    num(v.originalTokens) &&
    typeof v.quality === 'string' &&
    QUALITIES.has(v.quality) &&
    typeof v.state === 'string' &&
    BLOCK_STATES.has(v.state) &&
    optStr(v.why) &&
    optStr(v.by) &&
    optStr(v.overlayId) &&
    typeof v.breakpoint === 'boolean' &&
    typeof v.cached === 'boolean' &&
    typeof v.sent === 'boolean' &&
    typeof v.preview === 'string' &&
    optNum(v.call) &&
    optNum(v.saved)
  );
}

function isCallPoint(v: unknown): v is CallPoint {
  return (
    isObj(v) &&
    num(v.call) &&
    num(v.sent) &&
    num(v.cached) &&
    num(v.untrimmed) &&
    num(v.cost) &&
    (v.verdict === undefined || isCallVerdict(v.verdict))
  );
}

/** The head parts the webview dereferences, checked like a snapshot's. */
function isHead(v: unknown): v is Partial<SnapshotHead> {
  if (!isObj(v) || !Object.keys(v).every((k) => (SNAPSHOT_HEAD_KEYS as readonly string[]).includes(k))) return false;
  return (
    (v.composition === undefined || Array.isArray(v.composition)) &&
    (v.strategies === undefined || Array.isArray(v.strategies)) &&
    [v.totals, v.cost, v.cache].every((p) => p === undefined || isObj(p))
  );
}

function isFinding(v: unknown): v is Finding {
  return (
    isObj(v) &&
    str(v.id) &&
    (v.severity === 'info' || v.severity === 'warning') &&
    typeof v.message === 'string' &&
    Array.isArray(v.blockIds) &&
    v.blockIds.every((id) => typeof id === 'string') &&
    (v.action === undefined || isObj(v.action)) &&
    optNum(v.tokens) &&
    optNum(v.call)
  );
}

function isFindingsEdit(v: unknown): v is FindingsEdit {
  const count = (n: unknown): boolean => typeof n === 'number' && Number.isSafeInteger(n) && n > 0;
  return (
    Array.isArray(v) &&
    v.every(
      (op) =>
        isObj(op) &&
        (count(op.keep) || count(op.skip) || (Array.isArray(op.add) && op.add.every(isFinding))) &&
        Object.keys(op).length === 1,
    )
  );
}

/** An array of safe integers in tuples of `size` (the first of each, a count of rows skipped, not negative). */
function ints(v: unknown, size: number): v is number[] {
  return (
    Array.isArray(v) &&
    v.length % size === 0 &&
    v.every((n, i) => typeof n === 'number' && Number.isSafeInteger(n) && (i % size !== 0 || n >= 0))
  );
}

/** Envelope and every row of a delta; whether it fits a snapshot is decided when applying it. */
export function isSnapshotDelta(v: unknown): v is SnapshotDelta {
  return (
    isObj(v) &&
    isRevision(v.base) &&
    isRevision(v.revision) &&
    v.revision > v.base &&
    Array.isArray(v.removed) &&
    v.removed.every((id) => str(id)) &&
    Array.isArray(v.changed) &&
    v.changed.every(isInspectorRow) &&
    ints(v.shifts, 2) &&
    ints(v.counts, 3) &&
    (v.quality === undefined || (typeof v.quality === 'string' && QUALITIES.has(v.quality))) &&
    Array.isArray(v.added) &&
    v.added.every(
      (r) =>
        isObj(r) && (r.after === undefined || str(r.after)) && Array.isArray(r.rows) && r.rows.every(isInspectorRow),
    ) &&
    isHead(v.head) &&
    (v.findings === undefined || isFindingsEdit(v.findings)) &&
    isRevision(v.callsFrom) &&
    Array.isArray(v.calls) &&
    v.calls.every(isCallPoint)
  );
}
