/**
 * What the grid shows, without an object per row: the snapshot's rows (all of them, or
 * the indexes of those the filter keeps) and the "cached prefix ends here" divider,
 * addressed by item index. A live update patches it: rows appended at the end are
 * looked up and filtered, rows the delta sent whole are filtered again, and rows that
 * only got new token counts are left alone (no filter looks at counts). Anything else
 * (rows removed or inserted in between, a new filter) rebuilds it.
 */
import type { InspectorRow } from '../../src/protocol';
import { fmtInt } from '../shared/format';
import { isFiltered, matches, NO_FILTER, type RowFilter } from './filter';

export const DIVIDER_KEY = 'cache-divider';

/** What a delta did to the rows, as far as the grid cares. */
export interface RowPatch {
  /** The rows before the update (the patch is relative to them). */
  before: readonly InspectorRow[];
  /** Block ids of rows sent whole (any field may have changed). */
  changed: readonly string[];
}

/** Whether a filter could see a difference between two versions of a row. */
function sameForFilter(a: InspectorRow, b: InspectorRow): boolean {
  return (
    a.state === b.state &&
    a.role === b.role &&
    a.tool === b.tool &&
    a.preview === b.preview &&
    a.why === b.why &&
    a.by === b.by &&
    a.kind === b.kind &&
    a.ref === b.ref
  );
}

/** Position of `v` in the ascending `list`, or -(insertion point) - 1. */
function search(list: readonly number[], v: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return list[lo] === v ? lo : -lo - 1;
}

export class GridModel {
  private rows: readonly InspectorRow[] = [];
  private filter: RowFilter = NO_FILTER;
  private needle = '';
  /** Indexes (in `rows`) of the rows the filter keeps, ascending; undefined without a filter. */
  private kept?: number[];
  /** Index in `rows` by block id. */
  private readonly at = new Map<string, number>();
  /** Position (among the shown rows) after which the divider shows, or -1. */
  private dividerAfter = -1;
  private cachedTokens = 0;
  /** Tool names in order of first appearance (for the tool filter). */
  private toolList: string[] = [];
  private readonly toolSet = new Set<string>();

  get tools(): readonly string[] {
    return this.toolList;
  }

  /** Rows shown (the filter's matches). */
  get shown(): number {
    return this.kept ? this.kept.length : this.rows.length;
  }

  /** Rows in the snapshot. */
  get total(): number {
    return this.rows.length;
  }

  /** Items: the rows shown and the divider. */
  get length(): number {
    return this.shown + (this.dividerAfter >= 0 ? 1 : 0);
  }

  /** The item index of the divider, or -1. */
  get dividerIndex(): number {
    return this.dividerAfter >= 0 ? this.dividerAfter + 1 : -1;
  }

  get dividerLabel(): string {
    return `cached prefix ends here (${fmtInt(this.cachedTokens)} tokens read from the cache)`;
  }

  /** The row at item i (undefined for the divider or past the end). */
  rowAt(i: number): InspectorRow | undefined {
    if (i < 0 || i === this.dividerIndex) return undefined;
    const p = this.dividerAfter >= 0 && i > this.dividerAfter ? i - 1 : i;
    if (p >= this.shown) return undefined;
    return this.rows[this.kept ? this.kept[p] : p];
  }

  /** The key of item i: its block id, or the divider's. */
  keyAt(i: number): string | undefined {
    return i === this.dividerIndex ? DIVIDER_KEY : this.rowAt(i)?.blockId;
  }

  /** The item index of a block (or of the divider), -1 when not shown. */
  indexOf(key: string): number {
    if (key === DIVIDER_KEY) return this.dividerIndex;
    const r = this.at.get(key);
    if (r === undefined) return -1;
    const p = this.kept ? search(this.kept, r) : r;
    if (p < 0) return -1;
    return this.dividerAfter >= 0 && p > this.dividerAfter ? p + 1 : p;
  }

  /** A row of the snapshot by block id (shown or not). */
  row(blockId: string): InspectorRow | undefined {
    const r = this.at.get(blockId);
    return r === undefined ? undefined : this.rows[r];
  }

  /** Show these rows (a whole snapshot, or an update that moved rows). */
  reset(rows: readonly InspectorRow[], cachedTokens: number): void {
    this.rows = rows;
    this.cachedTokens = cachedTokens;
    this.at.clear();
    for (let i = 0; i < rows.length; i++) this.at.set(rows[i].blockId, i);
    this.toolList = [];
    this.toolSet.clear();
    this.addTools(0);
    this.refilter();
  }

  /** Tools of the rows from `from` on that are new (the rows before are known). */
  private addTools(from: number): void {
    for (let i = from; i < this.rows.length; i++) {
      const t = this.rows[i].tool;
      if (t && !this.toolSet.has(t)) {
        this.toolSet.add(t);
        this.toolList = [...this.toolList, t];
      }
    }
  }

  setFilter(f: RowFilter): void {
    this.filter = f;
    this.needle = f.text.trim().toLowerCase();
    this.refilter();
  }

  /**
   * Patch for an update that kept every row in its place (none removed, new ones only
   * at the end); `rows` are the rows after it.
   */
  patch(rows: readonly InspectorRow[], p: RowPatch, cachedTokens: number): void {
    const from = p.before.length;
    this.rows = rows;
    this.cachedTokens = cachedTokens;
    for (let i = from; i < rows.length; i++) this.at.set(rows[i].blockId, i);
    // A row sent whole names the same block, so the same tool; should it not, the list is made again.
    if (
      p.changed.some((id) => {
        const r = this.at.get(id);
        return r !== undefined && r < from && p.before[r].tool !== rows[r].tool;
      })
    )
      return this.reset(rows, cachedTokens);
    this.addTools(from);
    const kept = this.kept;
    if (kept) {
      for (const id of p.changed) {
        const r = this.at.get(id);
        if (r === undefined || r >= from || sameForFilter(p.before[r], rows[r])) continue;
        const pos = search(kept, r);
        const keep = matches(rows[r], this.filter, this.needle);
        if (keep && pos < 0) kept.splice(-pos - 1, 0, r);
        else if (!keep && pos >= 0) kept.splice(pos, 1);
      }
      for (let i = from; i < rows.length; i++) if (matches(rows[i], this.filter, this.needle)) kept.push(i);
    }
    this.placeDivider();
  }

  private refilter(): void {
    if (!isFiltered(this.filter)) this.kept = undefined;
    else {
      const kept: number[] = [];
      for (let i = 0; i < this.rows.length; i++) if (matches(this.rows[i], this.filter, this.needle)) kept.push(i);
      this.kept = kept;
    }
    this.placeDivider();
  }

  /**
   * After the last cached row shown, when rows that are not cached follow it (scanned from the end: the uncached tail
   * is short).
   */
  private placeDivider(): void {
    const n = this.shown;
    let last = n - 1;
    while (last >= 0 && !this.rows[this.kept ? this.kept[last] : last].cached) last--;
    this.dividerAfter = last >= 0 && last < n - 1 ? last : -1;
  }
}
