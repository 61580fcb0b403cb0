/**
 * Applying a snapshot delta (delta.ts makes them): the webview's side, which turns the
 * snapshot it has into the host's next one, or says the delta does not fit so that it
 * asks for a whole snapshot. No imports but types.
 */
import type { Finding, FindingsEdit, InspectorRow, InspectorSnapshot, SnapshotDelta, TokenQuality } from './messages';

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
