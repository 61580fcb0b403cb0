/**
 * The virtualized rows table (ARIA treegrid). Only the items in the viewport plus
 * {@link OVERSCAN} on each side are in the DOM, in a recycled pool of row elements, so
 * the DOM grows with the viewport, not with the session. Rows have a fixed height;
 * expanded rows are measured and their heights kept in a prefix-sum index.
 *
 * Keyboard: the grid has one tab stop (roving tabindex on the active row). Up/Down,
 * Home/End, PageUp/PageDown move; Enter or Right/Left expand and collapse; p, t and r
 * pin/unpin, trim and restore the active row.
 */
import type { InspectorRow } from '../../src/protocol';
import { h, setText } from '../shared/dom';
import type { GridItem } from './filter';
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

export class VirtualGrid {
  readonly el: HTMLDivElement;
  readonly scroller: HTMLDivElement;
  private readonly spacer: HTMLDivElement;
  private items: GridItem[] = [];
  private heights = new HeightIndex([]);
  /** Measured heights of expanded rows, by block id (kept across snapshots). */
  private readonly measured = new Map<string, number>();
  private readonly live = new Map<string, RowView | HTMLDivElement>();
  private readonly pool: RowView[] = [];
  private dividerEl?: HTMLDivElement;
  private readonly head: HTMLDivElement;
  private active = 0;
  private frame = 0;
  private readonly details = new Map<string, Node>();

  constructor(private readonly handlers: GridHandlers, label: string) {
    this.spacer = h('div', { class: 'grid-spacer' });
    this.scroller = h('div', { class: 'grid-scroll', role: 'rowgroup', tabindex: -1 }, this.spacer);
    const head = (this.head = h('div', { role: 'row', class: 'grid-row head', 'aria-rowindex': 1 }, h('div', { class: 'cells' }, ...COLUMNS.map((c, i) => h('div', { role: 'columnheader', class: `c c-${['ref', 'role', 'kind', 'tool', 'tokens', 'state', 'content', 'why', 'cache', 'actions'][i]}` }, c)))));
    this.el = h('div', { class: 'grid', role: 'treegrid', 'aria-label': label, 'aria-colcount': COLUMNS.length }, h('div', { role: 'rowgroup', class: 'grid-head' }, head), this.scroller);
    this.scroller.addEventListener('scroll', () => this.schedule());
    this.scroller.addEventListener('keydown', (e) => this.onKey(e));
    this.scroller.addEventListener('click', (e) => this.onClick(e));
    new ResizeObserver(() => this.schedule()).observe(this.scroller);
  }

  /** Replace the items (a new snapshot or filter); keeps the active row by block id. */
  setItems(items: GridItem[]): void {
    const activeKey = this.items[this.active]?.key;
    this.items = items;
    this.details.clear();
    this.heights = new HeightIndex(items.map((it) => (it.type === 'divider' ? DIVIDER_H : this.handlers.isExpanded(it.key) ? (this.measured.get(it.key) ?? ROW_H) : ROW_H)));
    const keep = activeKey ? items.findIndex((it) => it.key === activeKey) : -1;
    this.active = keep >= 0 ? keep : Math.min(this.active, Math.max(0, items.length - 1));
    this.el.setAttribute('aria-rowcount', String(items.length + 1));
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
    const it = this.items[this.active];
    return it?.type === 'row' ? it.row : undefined;
  }

  /** Make a row active, scroll it into view and focus it. */
  focusBlock(blockId: string): boolean {
    const i = this.items.findIndex((it) => it.key === blockId);
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
      this.render();
    });
  }

  private detailOf(row: InspectorRow): Node {
    let d = this.details.get(row.blockId);
    if (!d) this.details.set(row.blockId, (d = this.handlers.detail(row)));
    return d;
  }

  /** Bind the visible window; recycle everything else. */
  private render(): void {
    const n = this.items.length;
    const top = this.scroller.scrollTop;
    const height = this.scroller.clientHeight || 600;
    const first = n ? Math.max(0, this.heights.indexAt(top) - OVERSCAN) : 0;
    const last = n ? Math.min(n - 1, this.heights.indexAt(top + height) + OVERSCAN) : -1;
    const wanted = new Set<string>();
    for (let i = first; i <= last; i++) wanted.add(this.items[i].key);
    for (const [key, v] of this.live) {
      if (wanted.has(key)) continue;
      this.live.delete(key);
      if (v instanceof HTMLDivElement) v.remove();
      else this.recycle(v);
    }
    let remeasure = false;
    const focusIn = this.active >= first && this.active <= last ? this.active : first;
    for (let i = first; i <= last; i++) {
      const it = this.items[i];
      const el = it.type === 'divider' ? this.divider(it.label) : this.bindAt(it.row, i, i === focusIn);
      el.style.transform = `translateY(${this.heights.offset(i)}px)`;
      if (it.type === 'row' && this.handlers.isExpanded(it.key)) remeasure = this.measure(el, i, it.key) || remeasure;
    }
    this.spacer.style.height = `${this.heights.total}px`;
    // Keep the column headers over their columns when the body shows a scrollbar.
    this.head.style.paddingRight = `${this.scroller.offsetWidth - this.scroller.clientWidth}px`;
    if (remeasure) for (let i = first; i <= last; i++) this.elementAt(i)?.style.setProperty('transform', `translateY(${this.heights.offset(i)}px)`);
  }

  private elementAt(i: number): HTMLElement | undefined {
    const v = this.live.get(this.items[i]?.key ?? '');
    return v instanceof HTMLDivElement ? v : v?.el;
  }

  private measure(el: HTMLElement, i: number, key: string): boolean {
    const hgt = Math.max(ROW_H, el.offsetHeight);
    if (hgt === this.heights.height(i)) return false;
    this.heights.set(i, hgt);
    this.measured.set(key, hgt);
    return true;
  }

  private bindAt(row: InspectorRow, i: number, tabStop: boolean): HTMLElement {
    let v = this.live.get(row.blockId) as RowView | undefined;
    if (!v) {
      v = this.pool.pop() ?? createRowView((view, action) => view.row && this.handlers.onAction(view.row, action));
      this.live.set(row.blockId, v);
      this.spacer.append(v.el);
    }
    const expanded = this.handlers.isExpanded(row.blockId);
    bindRow(v, row, expanded, expanded ? this.detailOf(row) : undefined);
    v.el.setAttribute('aria-rowindex', String(i + 2));
    v.el.tabIndex = tabStop ? 0 : -1;
    return v.el;
  }

  private divider(label: string): HTMLDivElement {
    if (!this.dividerEl) this.dividerEl = h('div', { role: 'row', class: 'grid-divider' }, h('div', { role: 'gridcell', class: 'divider-label', 'aria-colspan': COLUMNS.length }));
    setText(this.dividerEl.firstElementChild as HTMLElement, label);
    if (!this.dividerEl.isConnected) this.spacer.append(this.dividerEl);
    this.live.set('cache-divider', this.dividerEl);
    return this.dividerEl;
  }

  /** Detach a row element and keep it for reuse; focus inside it moves to the grid. */
  private recycle(v: RowView): void {
    if (v.el.contains(document.activeElement)) this.scroller.focus({ preventScroll: true });
    v.el.remove();
    v.row = undefined;
    this.pool.push(v);
  }

  private moveTo(i: number): void {
    const n = this.items.length;
    if (!n) return;
    const dir = i >= this.active ? 1 : -1;
    const clamp = (k: number): number => Math.max(0, Math.min(n - 1, k));
    let k = clamp(i);
    // Dividers are not focusable: step over them in the direction of travel.
    if (this.items[k].type === 'divider') k = clamp(k + dir >= 0 && k + dir < n ? k + dir : k - dir);
    this.active = k;
    const top = this.heights.offset(this.active);
    const bottom = top + this.heights.height(this.active);
    const view = this.scroller.clientHeight;
    if (top < this.scroller.scrollTop) this.scroller.scrollTop = top;
    // Below the viewport: bring its bottom in, but never push its top out (an expanded row may be taller than the view).
    else if (bottom > this.scroller.scrollTop + view) this.scroller.scrollTop = Math.max(0, Math.min(top, bottom - view));
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
      End: () => this.moveTo(this.items.length - 1),
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
    const i = rowEl ? this.items.findIndex((it) => it.key === rowEl.dataset.block) : -1;
    if (i < 0) return;
    this.active = i;
    this.render();
    rowEl?.focus({ preventScroll: true });
    const row = this.activeRow();
    if (row && target.closest('.c-ref')) this.handlers.onToggle(row, !this.handlers.isExpanded(row.blockId));
  }
}
