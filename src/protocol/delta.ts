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

/** `old` with `edit` applied, or undefined when the edit runs past its end. */
export function applyFindings(old: readonly Finding[], edit: FindingsEdit): Finding[] | undefined {
  const out: Finding[] = [];
  let cursor = 0;
  for (const op of edit) {
    if ('add' in op) out.push(...op.add);
    else if (cursor + ('keep' in op ? op.keep : op.skip) > old.length) return undefined;
    else if ('keep' in op) for (let i = 0; i < op.keep; i++) out.push(old[cursor++]);
    else cursor += op.skip;
  }
  return out;
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

/** What a delta does to one block id (a delta names few ids; the base is scanned once against them). */
interface Mark {
  removed?: true;
  changed?: InspectorRow;
  added?: true;
  /** New rows placed right after this one. */
  run?: readonly InspectorRow[];
}

/** The delta's ids with what happens to each, or undefined when an id is named twice for the same thing. */
function markIds(delta: SnapshotDelta): { marks: Map<string, Mark>; head?: readonly InspectorRow[] } | undefined {
  const marks = new Map<string, Mark>();
  const mark = (id: string): Mark => {
    let m = marks.get(id);
    if (!m) marks.set(id, (m = {}));
    return m;
  };
  for (const id of delta.removed) {
    const m = mark(id);
    if (m.removed) return undefined;
    m.removed = true;
  }
  for (const r of delta.changed) {
    const m = mark(r.blockId);
    if (m.changed) return undefined;
    m.changed = r;
  }
  let head: readonly InspectorRow[] | undefined;
  for (const run of delta.added) {
    for (const r of run.rows) {
      const m = mark(r.blockId);
      if (m.added) return undefined;
      m.added = true;
    }
    if (run.after === undefined) {
      if (head) return undefined;
      head = run.rows;
    } else {
      const m = mark(run.after);
      if (m.run) return undefined;
      m.run = run.rows;
    }
  }
  return { marks, head };
}

/** Bits of `flags` per kept row. */
const CHANGED = 1;
const RECOUNTED = 2;

/**
 * Recount kept rows from a list of tuples (a pair or a triple each); each kept row
 * gets at most one recount, never on top of a whole new row. A row whose quality
 * changes too is copied once.
 */
function recount(
  kept: InspectorRow[],
  flags: Uint8Array,
  list: readonly number[],
  size: 2 | 3,
  q: TokenQuality | undefined,
): boolean {
  for (let c = 0, k = 0; c < list.length; c += size, k++) {
    k += list[c];
    const row = kept[k];
    if (!row || flags[k]) return false;
    flags[k] = RECOUNTED;
    const dOriginal = list[c + 1];
    const originalTokens = row.originalTokens + dOriginal;
    const tokens = row.tokens + (size === 2 ? dOriginal : list[c + 2]);
    kept[k] =
      q && row.quality !== q ? { ...row, originalTokens, tokens, quality: q } : { ...row, originalTokens, tokens };
  }
  return true;
}

/** The rows not recounted get quality `q` (recounted ones have it). */
function requalify(kept: InspectorRow[], flags: Uint8Array, q: TokenQuality): void {
  for (let k = 0; k < kept.length; k++)
    if (flags[k] !== RECOUNTED && kept[k].quality !== q) kept[k] = { ...kept[k], quality: q };
}

/**
 * `base` with `delta` applied, or undefined when the delta does not fit it (a row it
 * names is missing, a new row exists already, an anchor is unknown): the webview then
 * asks for a whole snapshot. Rows the delta does not touch stay the same objects.
 * One pass over the base with one lookup per row (in the delta's few ids); a row
 * recounted and requalified is copied once.
 */
export function applyDelta(base: InspectorSnapshot, delta: SnapshotDelta): InspectorSnapshot | undefined {
  const ids = markIds(delta);
  if (!ids) return undefined;
  const { marks } = ids;
  const kept: InspectorRow[] = [];
  const flags = new Uint8Array(base.rows.length);
  /** Kept index after which each run goes, in order. */
  const anchors: number[] = [];
  const runs: (readonly InspectorRow[])[] = [];
  let removedSeen = 0;
  let changedSeen = 0;
  for (const r of base.rows) {
    const m = marks.get(r.blockId);
    if (!m) {
      kept.push(r);
      continue;
    }
    if (m.added) return undefined;
    if (m.removed) {
      removedSeen++;
      continue;
    }
    if (m.changed) {
      changedSeen++;
      flags[kept.length] = CHANGED;
    }
    kept.push(m.changed ?? r);
    if (m.run) {
      anchors.push(kept.length - 1);
      runs.push(m.run);
    }
  }
  if (
    removedSeen !== delta.removed.length ||
    changedSeen !== delta.changed.length ||
    runs.length + (ids.head ? 1 : 0) !== delta.added.length
  )
    return undefined;
  const q = delta.quality;
  if (!recount(kept, flags, delta.shifts, 2, q) || !recount(kept, flags, delta.counts, 3, q)) return undefined;
  if (q) requalify(kept, flags, q);
  let rows = kept;
  // New rows only after the last kept row (the live case): appended in place.
  if (!ids.head && anchors.length === 1 && anchors[0] === kept.length - 1) for (const r of runs[0]) rows.push(r);
  else if (ids.head || anchors.length) {
    rows = ids.head ? [...ids.head] : [];
    let from = 0;
    for (let a = 0; a < anchors.length; a++) {
      for (let k = from; k <= anchors[a]; k++) rows.push(kept[k]);
      for (const r of runs[a]) rows.push(r);
      from = anchors[a] + 1;
    }
    for (let k = from; k < kept.length; k++) rows.push(kept[k]);
  }
  if (delta.callsFrom > base.calls.length) return undefined;
  const calls =
    delta.callsFrom === base.calls.length && delta.calls.length === 0
      ? base.calls
      : [...base.calls.slice(0, delta.callsFrom), ...delta.calls];
  const findings = delta.findings ? applyFindings(base.findings, delta.findings) : base.findings;
  if (!findings) return undefined;
  return { ...base, ...delta.head, rows, calls, findings };
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
