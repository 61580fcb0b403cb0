/**
 * Row filtering and the list of grid items (rows plus the "cached prefix ends here" divider). Pure. The grid uses
 * `matches` through GridModel, which patches its items per update; `filterRows`, `gridItems` and `toolNames` build them
 * whole and are the reference GridModel is tested against.
 */
import type { InspectorRow } from '../../src/protocol';

/** '' means "any". */
export interface RowFilter {
  role: string;
  tool: string;
  state: string;
  text: string;
}

export const NO_FILTER: RowFilter = { role: '', tool: '', state: '', text: '' };

export type GridItem =
  { type: 'row'; key: string; row: InspectorRow } | { type: 'divider'; key: string; label: string };

/** The text a search looks at: what the row shows. */
function haystack(r: InspectorRow): string {
  return [r.ref, r.role, r.kind, r.tool ?? '', r.state, r.by ?? '', r.why ?? '', r.preview].join(' ').toLowerCase();
}

export function isFiltered(f: RowFilter): boolean {
  return !!(f.role || f.tool || f.state || f.text.trim());
}

export function matches(r: InspectorRow, f: RowFilter, needle = f.text.trim().toLowerCase()): boolean {
  if (f.role && r.role !== f.role) return false;
  if (f.tool && r.tool !== f.tool) return false;
  if (f.state && r.state !== f.state) return false;
  return !needle || haystack(r).includes(needle);
}

export function filterRows(rows: readonly InspectorRow[], f: RowFilter): InspectorRow[] {
  if (!isFiltered(f)) return [...rows];
  const needle = f.text.trim().toLowerCase();
  return rows.filter((r) => matches(r, f, needle));
}

/** Tool names in order of first appearance (for the tool filter). */
export function toolNames(rows: readonly InspectorRow[]): string[] {
  const seen = new Set<string>();
  for (const r of rows) if (r.tool) seen.add(r.tool);
  return [...seen];
}

/**
 * Grid items: the rows, with a divider after the last row read from the cache when
 * rows that are not cached follow it (the point where the cached prefix ends).
 */
export function gridItems(rows: readonly InspectorRow[], cachedTokens: number): GridItem[] {
  let lastCached = -1;
  rows.forEach((r, i) => {
    if (r.cached) lastCached = i;
  });
  const items: GridItem[] = [];
  rows.forEach((r, i) => {
    items.push({ type: 'row', key: r.blockId, row: r });
    if (i === lastCached && i < rows.length - 1)
      items.push({
        type: 'divider',
        key: 'cache-divider',
        label: `cached prefix ends here (${cachedTokens.toLocaleString('en-US')} tokens read from the cache)`,
      });
  });
  return items;
}
