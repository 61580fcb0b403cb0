/**
 * The virtualized rows table (ARIA treegrid). Only the items in the viewport plus
 * {@link OVERSCAN} on each side are in the DOM, in a recycled pool of row elements, so
 * the DOM grows with the viewport, not with the session. Rows have a fixed height;
 * expanded rows are measured and their heights kept in a sparse index. The items come
 * from a {@link GridModel}; after it changes, `update` re-binds only the visible rows
 * whose row objects changed, and reads no layout (the viewport is tracked from scroll
 * and resize events), so a live update costs the visible rows, not the session.
 *
 * Keyboard: the grid has one tab stop (roving tabindex on the active row). Up/Down,
 * Home/End, PageUp/PageDown move; Enter or Right/Left expand and collapse; p, t and r
 * pin/unpin, trim and restore the active row.
 */
import type { InspectorRow } from '../../src/protocol';
import { h, setText } from '../shared/dom';
import { DIVIDER_KEY, type GridModel } from './grid-model';
import { HeightIndex } from './height-index';
import { bindRow, canPinTrim, canRestore, createRowView, type RowAction, type RowView } from './row';

/** Row height in px (keep in sync with `--row-h` in inspector.css). */
export const ROW_H = 30;
const DIVIDER_H = 26;
/** Items rendered above and below the viewport, so fast scrolling does not show gaps. */
export const OVERSCAN = 8;

export interface GridHandlers {
  onAction(row: InspectorRow, action: RowAction): void;
  onToggle(row: InspectorRow, expanded: boolean): void;
  /** Expanded content of a row (built by the app; may change as originals load). */
  detail(row: InspectorRow): Node;
  isExpanded(blockId: string): boolean;
}

const COLUMNS = ['#', 'Role', 'Kind', 'Tool', 'Tokens', 'State', 'Content', 'Why', 'Cache', 'Actions'];
/** Each column's class (`c-<name>`), in the order of COLUMNS. */
const COLUMN_CLASSES = ['ref', 'role', 'kind', 'tool', 'tokens', 'state', 'content', 'why', 'cache', 'actions'];

/** Move an item element to its offset (no write when it is there already). */
function place(el: HTMLElement, y: number): void {
  const t = `translateY(${y}px)`;
  if (el.style.transform !== t) el.style.transform = t;
}

export class VirtualGrid {
  readonly el: HTMLDivElement;
  readonly scroller: HTMLDivElement;
  private readonly spacer: HTMLDivElement;
  private heights = new HeightIndex(0, ROW_H);
  /** Measured heights of expanded rows, by block id (kept across snapshots). */
  private readonly measured = new Map<string, number>();
  private readonly live = new Map<string, RowView | HTMLDivElement>();
  private readonly pool: RowView[] = [];
  private dividerEl?: HTMLDivElement;
  private readonly head: HTMLDivElement;
  private active = 0;
  private activeKey?: string;
  private frame = 0;
  /** Expanded content by block id, for the row object it was built from. */
  private readonly details = new Map<string, { row: InspectorRow; node: Node }>();
  /** The viewport, as of the last scroll and resize (reading it during an update would force a layout). */
  private top = 0;
  private viewH = 0;
  private overflowing = false;
  /** The width changed: expanded rows are measured again. */
  private remeasure = false;

  constructor(
    private readonly handlers: GridHandlers,
    label: string,
    private readonly model: GridModel,
  ) {
    this.spacer = h('div', { class: 'grid-spacer' });
    this.scroller = h('div', { class: 'grid-scroll', role: 'rowgroup', tabindex: -1 }, this.spacer);
    const head = (this.head = h(
      'div',
      { role: 'row', class: 'grid-row head', 'aria-rowindex': 1 },
      h(
        'div',
        { class: 'cells' },
        ...COLUMNS.map((c, i) =>
          h(
            'div',
            {
              role: 'columnheader',
              class: `c c-${COLUMN_CLASSES[i]}`,
            },
            c,
          ),
        ),
      ),
    ));
    this.el = h(
      'div',
      { class: 'grid', role: 'treegrid', 'aria-label': label, 'aria-colcount': COLUMNS.length },
      h('div', { role: 'rowgroup', class: 'grid-head' }, head),
      this.scroller,
    );
    this.scroller.addEventListener('scroll', () => {
      this.top = this.scroller.scrollTop;
      this.schedule();
    });
    this.scroller.addEventListener('keydown', (e) => this.onKey(e));
    this.scroller.addEventListener('click', (e) => this.onClick(e));
    new ResizeObserver(() => {
      // After layout: reading the box is free here.
      this.top = this.scroller.scrollTop;
      this.viewH = this.scroller.clientHeight;
      this.remeasure = true;
      this.fitHead();
      this.schedule();
    }).observe(this.scroller);
  }

  /** The model changed (a snapshot, a delta or a filter): keeps the active row by block id. */
  update(): void {
    const m = this.model;
    const n = m.length;
    const keep = this.activeKey !== undefined ? m.indexOf(this.activeKey) : -1;
    this.active = keep >= 0 ? keep : Math.min(this.active, Math.max(0, n - 1));
    this.activeKey = m.keyAt(this.active);
    const exceptions: [number, number][] = [];
    if (m.dividerIndex >= 0) exceptions.push([m.dividerIndex, DIVIDER_H]);
    for (const [key, hgt] of this.measured) if (this.handlers.isExpanded(key)) exceptions.push([m.indexOf(key), hgt]);
    this.heights = new HeightIndex(n, ROW_H, exceptions);
    this.el.setAttribute('aria-rowcount', String(n + 1));
    this.render();
  }

  /** Re-render one row (its detail changed, e.g. originals arrived). */
  refresh(blockId: string): void {
    this.details.delete(blockId);
    const v = this.live.get(blockId);
    if (v && !(v instanceof HTMLDivElement)) v.row = undefined;
    this.render();
  }

  /** The row with keyboard focus (or the first). */
  activeRow(): InspectorRow | undefined {
    return this.model.rowAt(this.active);
  }

  /** Make a row active, scroll it into view and focus it. */
  focusBlock(blockId: string): boolean {
    const i = this.model.indexOf(blockId);
    if (i < 0) return false;
    this.moveTo(i);
    return true;
  }

  /** Number of row elements in the DOM (tests and the status line). */
  renderedRows(): number {
    return this.spacer.querySelectorAll('.grid-row').length;
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      // Scrolled or resized: expanded rows in view are measured again (their content may have settled).
      this.remeasure = true;
      this.render();
    });
  }

  private detailOf(row: InspectorRow): Node {
    const d = this.details.get(row.blockId);
    if (d?.row === row) return d.node;
    const node = this.handlers.detail(row);
    this.details.set(row.blockId, { row, node });
    return node;
  }

  /**
   * Keep the column headers over their columns when the body shows a scrollbar (reads layout: after it, or in a frame).
   */
  private fitHead(): void {
    this.head.style.paddingRight = `${this.scroller.offsetWidth - this.scroller.clientWidth}px`;
  }

  /** Bind the visible window; recycle everything else. */
  private render(): void {
    const m = this.model;
    const n = m.length;
    const top = this.top;
    const height = this.viewH || 600;
    const first = n ? Math.max(0, this.heights.indexAt(top) - OVERSCAN) : 0;
    const last = n ? Math.min(n - 1, this.heights.indexAt(top + height) + OVERSCAN) : -1;
    const wanted = new Set<string>();
    for (let i = first; i <= last; i++) wanted.add(m.keyAt(i) ?? '');
    for (const [key, v] of this.live) {
      if (wanted.has(key)) continue;
      this.live.delete(key);
      if (v instanceof HTMLDivElement) v.remove();
      else this.recycle(v);
    }
    let remeasure = false;
    const remeasureAll = this.remeasure;
    this.remeasure = false;
    const focusIn = this.active >= first && this.active <= last ? this.active : first;
    for (let i = first; i <= last; i++) {
      const row = m.rowAt(i);
      const bound = row ? this.bindAt(row, i, i === focusIn) : undefined;
      const el = bound ? bound.el : this.divider(m.dividerLabel);
      place(el, this.heights.offset(i));
      // Expanded rows are measured when (re)bound or resized (a measure forces a layout).
      if (row && (bound?.rebound || remeasureAll) && this.handlers.isExpanded(row.blockId))
        remeasure = this.measure(el, i, row.blockId) || remeasure;
    }
    const total = `${this.heights.total}px`;
    if (this.spacer.style.height !== total) this.spacer.style.height = total;
    const overflowing = this.heights.total > height;
    if (overflowing !== this.overflowing) {
      this.overflowing = overflowing;
      requestAnimationFrame(() => this.fitHead());
    }
    if (remeasure)
      for (let i = first; i <= last; i++) {
        const el = this.elementAt(i);
        if (el) place(el, this.heights.offset(i));
      }
  }

  private elementAt(i: number): HTMLElement | undefined {
    const v = this.live.get(this.model.keyAt(i) ?? '');
    return v instanceof HTMLDivElement ? v : v?.el;
  }

  private measure(el: HTMLElement, i: number, key: string): boolean {
    const hgt = Math.max(ROW_H, el.offsetHeight);
    if (hgt === this.heights.height(i)) return false;
    this.heights.set(i, hgt);
    this.measured.set(key, hgt);
    return true;
  }

  /** Bind a row to its element (re-using it when it shows the same row); whether anything was re-bound. */
  private bindAt(row: InspectorRow, i: number, tabStop: boolean): { el: HTMLElement; rebound: boolean } {
    let v = this.live.get(row.blockId) as RowView | undefined;
    if (!v) {
      v = this.pool.pop() ?? createRowView((view, action) => view.row && this.handlers.onAction(view.row, action));
      this.live.set(row.blockId, v);
      this.spacer.append(v.el);
    }
    const expanded = this.handlers.isExpanded(row.blockId);
    const rebound = bindRow(v, row, expanded, expanded ? this.detailOf(row) : undefined);
    const index = String(i + 2);
    if (v.el.getAttribute('aria-rowindex') !== index) v.el.setAttribute('aria-rowindex', index);
    const tab = tabStop ? 0 : -1;
    if (v.el.tabIndex !== tab) v.el.tabIndex = tab;
    return { el: v.el, rebound };
  }

  private divider(label: string): HTMLDivElement {
    if (!this.dividerEl)
      this.dividerEl = h(
        'div',
        { role: 'row', class: 'grid-divider' },
        h('div', { role: 'gridcell', class: 'divider-label', 'aria-colspan': COLUMNS.length }),
      );
    setText(this.dividerEl.firstElementChild as HTMLElement, label);
    if (!this.dividerEl.isConnected) this.spacer.append(this.dividerEl);
    this.live.set(DIVIDER_KEY, this.dividerEl);
    return this.dividerEl;
  }

  /** Detach a row element and keep it for reuse; focus inside it moves to the grid. */
  private recycle(v: RowView): void {
    if (v.el.contains(document.activeElement)) this.scroller.focus({ preventScroll: true });
    v.el.remove();
    v.row = undefined;
    this.pool.push(v);
  }

  private setActive(i: number): void {
    this.active = i;
    this.activeKey = this.model.keyAt(i);
  }

  private moveTo(i: number): void {
    const n = this.model.length;
    if (!n) return;
    const dir = i >= this.active ? 1 : -1;
    const clamp = (k: number): number => Math.max(0, Math.min(n - 1, k));
    let k = clamp(i);
    // Dividers are not focusable: step over them in the direction of travel.
    if (k === this.model.dividerIndex) k = clamp(k + dir >= 0 && k + dir < n ? k + dir : k - dir);
    this.setActive(k);
    const top = this.heights.offset(this.active);
    const bottom = top + this.heights.height(this.active);
    const view = this.scroller.clientHeight;
    if (top < this.scroller.scrollTop) this.scroller.scrollTop = top;
    // Below the viewport: bring its bottom in, but never push its top out (an expanded row may be taller than the
    // view).
    else if (bottom > this.scroller.scrollTop + view)
      this.scroller.scrollTop = Math.max(0, Math.min(top, bottom - view));
    this.top = this.scroller.scrollTop;
    this.viewH = view;
    this.render();
    this.elementAt(this.active)?.focus({ preventScroll: true });
  }

  private pageSize(): number {
    return Math.max(1, Math.floor(this.scroller.clientHeight / ROW_H) - 1);
  }

  private onKey(e: KeyboardEvent): void {
    const target = e.target as HTMLElement;
    // Keys typed into the inline editor or pressed on its buttons belong to them.
    if (target !== this.scroller && !target.classList.contains('grid-row')) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const row = this.activeRow();
    const expanded = row ? this.handlers.isExpanded(row.blockId) : false;
    const keys: Record<string, () => void> = {
      ArrowDown: () => this.moveTo(this.active + 1),
      ArrowUp: () => this.moveTo(this.active - 1),
      Home: () => this.moveTo(0),
      End: () => this.moveTo(this.model.length - 1),
      PageDown: () => this.moveTo(this.active + this.pageSize()),
      PageUp: () => this.moveTo(this.active - this.pageSize()),
      Enter: () => row && this.handlers.onToggle(row, !expanded),
      ArrowRight: () => row && !expanded && this.handlers.onToggle(row, true),
      ArrowLeft: () => row && expanded && this.handlers.onToggle(row, false),
      p: () => row && canPinTrim(row) && this.handlers.onAction(row, row.state === 'pinned' ? 'unpin' : 'pin'),
      t: () => row && canPinTrim(row) && this.handlers.onAction(row, 'trim'),
      r: () => row && canRestore(row) && this.handlers.onAction(row, 'restore'),
    };
    const run = keys[e.key];
    if (!run) return;
    e.preventDefault();
    run();
  }

  /** A click on a row makes it active; on the twisty or the ref it also expands/collapses. */
  private onClick(e: MouseEvent): void {
    const target = e.target as HTMLElement;
    if (target.closest('button, textarea, input, vscode-text-area, vscode-button, .detail')) return;
    const rowEl = target.closest('.grid-row') as HTMLElement | null;
    const i = rowEl?.dataset.block !== undefined ? this.model.indexOf(rowEl.dataset.block) : -1;
    if (i < 0) return;
    this.setActive(i);
    this.render();
    rowEl?.focus({ preventScroll: true });
    const row = this.activeRow();
    if (row && target.closest('.c-ref')) this.handlers.onToggle(row, !this.handlers.isExpanded(row.blockId));
  }
}
