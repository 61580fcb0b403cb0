/**
 * Snapshot deltas: what changed between two inspector snapshots of one view, small
 * enough to push on every live change of a 10,000-block session, and applied by the
 * webview to the snapshot it has (see "Snapshot deltas" in messages.ts).
 *
 * Rows are keyed by block id. Finding what changed is one pass over both row lists
 * (rows aligned by position up to the new tail, found by id past it) with a shallow
 * compare of each row's fields (early exit, no serialization; previews are the same
 * strings from snapshot to snapshot, see rowPreview in snapshot.ts): the
 * rows of a live session change little between updates, except their token counts
 * when the estimator recalibrates, which travel as small numeric tuples instead of
 * whole rows. Both hosts and the webview use this one module (no imports but types).
 */
import type {
  CallPoint,
  Finding,
  FindingsEdit,
  HostMessage,
  InspectorRow,
  InspectorSnapshot,
  RowRun,
  SnapshotDelta,
  SnapshotHead,
  TokenQuality,
} from './messages';
import { SNAPSHOT_HEAD_KEYS } from './delta-guards';

export { applyDelta, applyFindings } from './delta-apply';

/** Row fields other than the token counts and their quality, each compared in sameFields. */
type RowField =
  | 'ref'
  | 'blockId'
  | 'messageId'
  | 'position'
  | 'role'
  | 'kind'
  | 'tool'
  | 'state'
  | 'why'
  | 'by'
  | 'overlayId'
  | 'breakpoint'
  | 'cached'
  | 'sent'
  | 'preview'
  | 'call'
  | 'saved';
type Compared = RowField | 'tokens' | 'originalTokens' | 'quality';
/** Compile-time check that sameFields (plus the counts) covers every field of a row: a new field fails here. */
const _everyField: Exclude<keyof InspectorRow, Compared> extends never ? true : never = true;
void _everyField;

/**
 * Past this share of the rows changed or added, a delta saves little over the whole
 * snapshot and the host sends the snapshot instead (a strategy switch, a new session).
 */
export const MAX_DELTA_ROW_SHARE = 0.5;

function sameFields(a: InspectorRow, b: InspectorRow, withQuality: boolean): boolean {
  // Written out (named loads the engine can inline): this runs for every row of every update.
  return (
    a === b ||
    (a.preview === b.preview &&
      a.state === b.state &&
      a.cached === b.cached &&
      a.sent === b.sent &&
      a.breakpoint === b.breakpoint &&
      a.ref === b.ref &&
      a.blockId === b.blockId &&
      a.messageId === b.messageId &&
      a.position === b.position &&
      a.role === b.role &&
      a.kind === b.kind &&
      a.tool === b.tool &&
      a.why === b.why &&
      a.by === b.by &&
      a.overlayId === b.overlayId &&
      a.call === b.call &&
      a.saved === b.saved &&
      (!withQuality || a.quality === b.quality))
  );
}

/** The quality every row has, or undefined when they differ (or there are none). */
function commonQuality(rows: readonly InspectorRow[]): TokenQuality | undefined {
  const q = rows[0]?.quality;
  for (const r of rows) if (r.quality !== q) return undefined;
  return q;
}

function samePart(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  // Head parts are small (totals, cost, a few findings): comparing their JSON is exact and cheap.
  return JSON.stringify(a) === JSON.stringify(b);
}

function sameCall(a: CallPoint, b: CallPoint): boolean {
  return (
    a.call === b.call &&
    a.sent === b.sent &&
    a.cached === b.cached &&
    a.untrimmed === b.untrimmed &&
    a.cost === b.cost &&
    JSON.stringify(a.verdict) === JSON.stringify(b.verdict)
  );
}

/**
 * The edit from `old` to `next` findings (undefined when equal): old findings are kept
 * in runs when they come back unchanged and in order, everything else is sent whole.
 */
export function diffFindings(old: readonly Finding[], next: readonly Finding[]): FindingsEdit | undefined {
  const json = (f: Finding): string => JSON.stringify(f);
  const oldAt = new Map<string, number>();
  old.forEach((f, i) => oldAt.set(f.id, i));
  const oldJson = old.map(json);
  const edit: FindingsEdit = [];
  const push = (op: 'keep' | 'skip', n: number): void => {
    const last = edit.at(-1);
    if (last && op in last) (last as Record<typeof op, number>)[op] += n;
    else edit.push(op === 'keep' ? { keep: n } : { skip: n });
  };
  let cursor = 0;
  let same = old.length === next.length;
  for (const f of next) {
    const at = oldAt.get(f.id);
    if (at !== undefined && at >= cursor && oldJson[at] === json(f)) {
      if (at > cursor) {
        push('skip', at - cursor);
        same = false;
      }
      push('keep', 1);
      cursor = at + 1;
      continue;
    }
    same = false;
    const last = edit.at(-1);
    if (last && 'add' in last) last.add.push(f);
    else edit.push({ add: [f] });
  }
  return same ? undefined : edit;
}

/**
 * The delta that turns `base` (revision `baseRevision`) into `next` (revision
 * `revision`), or undefined when a whole snapshot should be sent instead: another
 * session, rows that moved relative to each other, or most rows new or changed.
 */
export function diffSnapshots(
  base: InspectorSnapshot,
  next: InspectorSnapshot,
  baseRevision: number,
  revision: number,
  maxRowShare = MAX_DELTA_ROW_SHARE,
): SnapshotDelta | undefined {
  if (base.sessionId !== next.sessionId) return undefined;
  const b = base.rows;
  const n = next.rows;
  // The common case: the same rows in the same places up to a new tail (the log is append-only).
  let same = 0;
  const min = Math.min(b.length, n.length);
  while (same < min && b[same].blockId === n[same].blockId) same++;
  // Past that prefix rows are found by block id (ids are unique, so no prefix row is in a tail).
  const baseAt = new Map<string, number>();
  for (let i = same; i < b.length; i++) baseAt.set(b[i].blockId, i);
  const nextIds = new Set<string>();
  for (let i = same; i < n.length; i++) nextIds.add(n[i].blockId);
  const removed: string[] = [];
  for (let i = same; i < b.length; i++) if (!nextIds.has(b[i].blockId)) removed.push(b[i].blockId);
  const q = commonQuality(n);
  let requality: TokenQuality | undefined;
  if (q !== undefined)
    for (let i = 0; i < b.length && !requality; i++)
      if (b[i].quality !== q && (i < same || nextIds.has(b[i].blockId))) requality = q;
  const changed: InspectorRow[] = [];
  const shifts: number[] = [];
  const counts: number[] = [];
  const added: RowRun[] = [];
  let run: RowRun | undefined;
  let lastBase = -1;
  let kept = 0;
  let lastShifted = -1;
  let lastCounted = -1;
  let addedRows = 0;
  for (let i = 0; i < n.length; i++) {
    const row = n[i];
    const at = i < same ? i : baseAt.get(row.blockId);
    if (at === undefined) {
      if (!run) added.push((run = i > 0 ? { after: n[i - 1].blockId, rows: [] } : { rows: [] }));
      run.rows.push(row);
      addedRows++;
      continue;
    }
    run = undefined;
    // Kept rows must keep their order (the log is append-only); anything else is sent whole.
    if (at < lastBase) return undefined;
    lastBase = at;
    const old = b[at];
    if (!sameFields(old, row, requality === undefined)) changed.push(row);
    else if (old.tokens !== row.tokens || old.originalTokens !== row.originalTokens) {
      const dOriginal = row.originalTokens - old.originalTokens;
      const dTokens = row.tokens - old.tokens;
      if (dTokens === dOriginal) {
        shifts.push(kept - lastShifted - 1, dTokens);
        lastShifted = kept;
      } else {
        counts.push(kept - lastCounted - 1, dOriginal, dTokens);
        lastCounted = kept;
      }
    }
    kept++;
  }
  if (n.length > 0 && changed.length + addedRows > maxRowShare * n.length) return undefined;
  const head: Partial<SnapshotHead> = {};
  for (const k of SNAPSHOT_HEAD_KEYS) if (!samePart(base[k], next[k])) (head as Record<string, unknown>)[k] = next[k];
  let callsFrom = 0;
  while (
    callsFrom < base.calls.length &&
    callsFrom < next.calls.length &&
    sameCall(base.calls[callsFrom], next.calls[callsFrom])
  )
    callsFrom++;
  const delta: SnapshotDelta = {
    base: baseRevision,
    revision,
    removed,
    changed,
    shifts,
    counts,
    added,
    head,
    callsFrom,
    calls: next.calls.slice(callsFrom),
  };
  if (requality) delta.quality = requality;
  const findings = base.findings === next.findings ? undefined : diffFindings(base.findings, next.findings);
  if (findings) delta.findings = findings;
  return delta;
}

/**
 * What one view (a panel, a browser page) was last sent, so the next snapshot goes as a
 * delta against it. The first snapshot, and the first after `reset` (the webview's
 * `ready`, an empty state in between), goes whole.
 */
export class SnapshotStream {
  private last?: { snapshot: InspectorSnapshot; revision: number };
  private revision = 0;

  /** The snapshot the view has now (as far as this stream knows). */
  get current(): InspectorSnapshot | undefined {
    return this.last?.snapshot;
  }

  /** The message that brings the view to `snapshot`. */
  next(snapshot: InspectorSnapshot, diff: typeof diffSnapshots = diffSnapshots): HostMessage {
    const revision = ++this.revision;
    const base = this.last;
    this.last = { snapshot, revision };
    const delta = base ? diff(base.snapshot, snapshot, base.revision, revision) : undefined;
    return delta ? { type: 'snapshotDelta', delta } : { type: 'snapshot', snapshot, revision };
  }

  /** The view has nothing to build on any more: the next snapshot goes whole. */
  reset(): void {
    this.last = undefined;
  }
}
