/**
 * Expanded rows and what they show: the detail of a row, the originals an overlay
 * replaced (fetched when a restorable row is opened, or when an open row becomes
 * restorable), and the inline trim editor.
 */
import type { InspectorRow } from '../../src/protocol';
import type { Transport } from '../shared/transport';
import { buildDetail, type DetailState, type Originals } from './detail';
import type { GridModel } from './grid-model';
import type { VirtualGrid } from './grid';
import type { StatusLine } from './status-line';
import { checkedPrice } from './price-confirm';

/** States whose overlay replaced something the user can look at (`originals`). */
const RESTORABLE: ReadonlySet<string> = new Set(['trimmed', 'summarized', 'pruned']);

export class RowDetails {
  readonly expanded = new Set<string>();
  private readonly editing = new Set<string>();
  private readonly originals = new Map<string, Originals>();
  /** Set once the grid exists (the grid asks this for details). */
  grid?: VirtualGrid;

  constructor(
    private readonly transport: Transport,
    private readonly status: StatusLine,
    /** The expanded state changed (to save it). */
    private readonly onChange: () => void,
  ) {}

  isExpanded(blockId: string): boolean {
    return this.expanded.has(blockId);
  }

  /** Open a row with the trim editor focused. */
  startTrim(row: InspectorRow): void {
    this.editing.add(row.blockId);
    this.expanded.add(row.blockId);
    this.grid?.refresh(row.blockId);
    requestAnimationFrame(() => {
      const editor = this.grid?.el.querySelector(`.grid-row[data-block="${CSS.escape(row.blockId)}"] .trim-editor`);
      editor?.scrollIntoView({ block: 'nearest' });
      (editor?.querySelector('.trim-text') as HTMLElement | null)?.focus();
    });
  }

  toggle(row: InspectorRow, open: boolean): void {
    if (open) this.expanded.add(row.blockId);
    else {
      this.expanded.delete(row.blockId);
      this.editing.delete(row.blockId);
    }
    if (open && this.needsOriginals(row)) this.loadOriginals(row);
    this.grid?.refresh(row.blockId);
    this.grid?.focusBlock(row.blockId);
    this.onChange();
  }

  /** Expanded rows show what their overlay replaced: fetch it for overlays that are new in this snapshot. */
  loadExpandedOriginals(model: GridModel): void {
    for (const id of this.expanded) {
      const row = model.row(id);
      if (row && this.needsOriginals(row)) this.loadOriginals(row);
    }
  }

  detail(row: InspectorRow): Node {
    const st: DetailState = {
      editing: this.editing.has(row.blockId),
      originals: row.overlayId ? this.originals.get(row.overlayId) : undefined,
    };
    return buildDetail(row, st, {
      loadOriginals: (r) => this.loadOriginals(r),
      submitTrim: (r, text) => void this.submitTrim(r, text),
      cancelTrim: (r) => this.closeEditor(r),
      quoteTrim: (r, text) => {
        const action = { op: 'trim' as const, blockId: r.blockId, ...(text ? { text } : {}) };
        return this.transport.request({ op: 'price', action }).then(checkedPrice);
      },
    });
  }

  private needsOriginals(row: InspectorRow): boolean {
    return !!row.overlayId && RESTORABLE.has(row.state) && !this.originals.has(row.overlayId);
  }

  private async submitTrim(row: InspectorRow, text: string): Promise<void> {
    const ok = await this.status.run(
      { op: 'trim', blockId: row.blockId, text: text.trim() || undefined },
      `Trimming ${row.ref}…`,
    );
    if (ok) this.closeEditor(row);
  }

  private closeEditor(row: InspectorRow): void {
    this.editing.delete(row.blockId);
    this.grid?.refresh(row.blockId);
    this.grid?.focusBlock(row.blockId);
  }

  private loadOriginals(row: InspectorRow): void {
    const id = row.overlayId;
    if (!id) return;
    this.originals.set(id, 'loading');
    this.grid?.refresh(row.blockId);
    this.transport
      .request({ op: 'originals', overlayId: id })
      .then(
        (o) => this.originals.set(id, o),
        (e: unknown) => this.originals.set(id, { error: (e as Error).message }),
      )
      .finally(() => this.grid?.refresh(row.blockId));
  }
}
