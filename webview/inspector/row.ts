/**
 * One grid row element: built once, then re-bound to whichever row scrolls into its
 * place (the grid recycles a small pool). Everything from the transcript is set with
 * textContent; buttons are native (a toolkit element per row would be too heavy for a
 * recycled pool) and styled like the toolkit's.
 */
import type { InspectorRow } from '../../src/protocol';
import { bidiVisible } from '../../src/protocol/safe-text';
import { fmtTokens } from '../shared/format';
import { h, replaceChildren, setText, toggleAttr } from '../shared/dom';

export type RowAction = 'pin' | 'unpin' | 'trim' | 'restore';

export interface RowView {
  readonly el: HTMLDivElement;
  row?: InspectorRow;
  /** What the element shows now (to skip re-binding an unchanged row). */
  boundExpanded: boolean;
  boundDetail?: Node;
  readonly cells: Record<
    'twisty' | 'ref' | 'role' | 'kind' | 'tool' | 'tokens' | 'orig' | 'quality' | 'state' | 'content' | 'why' | 'cache',
    HTMLElement
  >;
  readonly pin: HTMLButtonElement;
  readonly trim: HTMLButtonElement;
  readonly restore: HTMLButtonElement;
  readonly detail: HTMLDivElement;
}

const QUALITY_LABEL = { estimated: 'est', calibrated: 'cal', exact: 'exact' } as const;
const QUALITY_TITLE = {
  estimated: 'estimated with js-tiktoken (not yet calibrated by API usage)',
  calibrated: 'estimate calibrated against the API usage of this session',
  exact: 'exact count from the count_tokens endpoint',
} as const;
const RESTORABLE: ReadonlySet<string> = new Set(['trimmed', 'summarized', 'pruned']);

/** Whether a row gets the Pin/Trim buttons (tool results, observations) and Restore (anything an overlay changed). */
export function canPinTrim(r: InspectorRow): boolean {
  return r.kind === 'tool_result' || r.kind === 'observation';
}
export function canRestore(r: InspectorRow): boolean {
  return RESTORABLE.has(r.state);
}

function actionButton(label: string, key: string, cls: string): HTMLButtonElement {
  return h(
    'button',
    { type: 'button', class: `row-btn ${cls}`, tabindex: -1, 'aria-keyshortcuts': key },
    h('span', { class: 'label' }, label),
    h('kbd', { 'aria-hidden': 'true' }, key),
  );
}

/** Build an empty row element; `onAction` gets the row the element is bound to at click time. */
export function createRowView(onAction: (view: RowView, action: RowAction) => void): RowView {
  const cell = (cls: string, ...kids: Node[]): HTMLElement =>
    h('div', { role: 'gridcell', class: `c ${cls}` }, ...kids);
  const span = (cls: string): HTMLElement => h('span', { class: cls });
  const cells = {
    twisty: h('span', { class: 'twisty', 'aria-hidden': 'true' }),
    ref: span('ref'),
    role: span('role'),
    kind: span('kind'),
    tool: span('tool'),
    tokens: span('num'),
    orig: span('orig'),
    quality: span('q'),
    state: span('state'),
    content: span('preview'),
    why: span('why'),
    cache: span('bp'),
  };
  const pin = actionButton('Pin', 'p', 'pin');
  const trim = actionButton('Trim', 't', 'trim');
  const restore = actionButton('Restore', 'r', 'restore');
  const detail = h('div', { role: 'gridcell', class: 'detail', 'aria-colspan': 10, hidden: true });
  const el = h(
    'div',
    { role: 'row', class: 'grid-row', tabindex: -1, 'aria-level': 1 },
    h(
      'div',
      { class: 'cells' },
      cell('c-ref', cells.twisty, cells.ref),
      cell('c-role', cells.role),
      cell('c-kind', cells.kind),
      cell('c-tool', cells.tool),
      cell('c-tokens', cells.tokens, cells.orig, cells.quality),
      cell('c-state', cells.state),
      cell('c-content', cells.content),
      cell('c-why', cells.why),
      cell('c-cache', cells.cache),
      cell('c-actions', pin, trim, restore),
    ),
    detail,
  );
  const view: RowView = { el, boundExpanded: false, cells, pin, trim, restore, detail };
  pin.addEventListener('click', () => view.row && onAction(view, view.row.state === 'pinned' ? 'unpin' : 'pin'));
  trim.addEventListener('click', () => onAction(view, 'trim'));
  restore.addEventListener('click', () => onAction(view, 'restore'));
  return view;
}

/** "strategy:summarize-tool-results" → "summarize-tool-results". */
function author(by: string | undefined): string {
  return by?.replace(/^strategy:/, '') ?? '';
}

/** The why column: who, why, at which call, how much it saves. */
export function whyText(r: InspectorRow): string {
  if (!r.why && !r.by) return '';
  const parts = [author(r.by), r.why].filter(Boolean).join(': ');
  const extra = [r.call !== undefined ? `call ${r.call}` : '', r.saved ? `−${fmtTokens(r.saved)}` : '']
    .filter(Boolean)
    .join(', ');
  return extra ? `${parts} (${extra})` : parts;
}

/** Whether two versions of a row differ in their token counts at most (a recalibration). */
function sameButCounts(a: InspectorRow, b: InspectorRow): boolean {
  return (
    a.blockId === b.blockId &&
    a.preview === b.preview &&
    a.state === b.state &&
    a.cached === b.cached &&
    a.sent === b.sent &&
    a.breakpoint === b.breakpoint &&
    a.ref === b.ref &&
    a.role === b.role &&
    a.kind === b.kind &&
    a.tool === b.tool &&
    a.why === b.why &&
    a.by === b.by &&
    a.call === b.call &&
    a.saved === b.saved
  );
}

/** The token cells and the row's label (all a recalibration changes). */
function bindCounts(v: RowView, r: InspectorRow): void {
  const c = v.cells;
  setText(c.tokens, r.sent ? fmtTokens(r.tokens) : '0');
  setText(c.orig, r.tokens !== r.originalTokens ? `of ${fmtTokens(r.originalTokens)}` : '');
  setText(c.quality, QUALITY_LABEL[r.quality]);
  c.quality.className = `q q-${r.quality}`;
  c.quality.title = QUALITY_TITLE[r.quality];
  v.el.setAttribute(
    'aria-label',
    bidiVisible(
      `${r.ref} ${r.role} ${r.kind}${r.tool ? ` ${r.tool}` : ''}, ${r.sent ? r.tokens : 0} tokens, ${r.state}`,
    ),
  );
}

/**
 * Show `r` in the element; `detail` is the expanded content (undefined when collapsed).
 * Returns whether anything was written (nothing when it shows that row already; only
 * the counts when the row was recalibrated).
 */
export function bindRow(v: RowView, r: InspectorRow, expanded: boolean, detail: Node | undefined): boolean {
  if (v.row === r && v.boundExpanded === expanded && v.boundDetail === detail) return false;
  const prev = v.row;
  v.row = r;
  if (prev && !expanded && !v.boundExpanded && sameButCounts(prev, r)) {
    if (prev.tokens !== r.tokens || prev.originalTokens !== r.originalTokens || prev.quality !== r.quality)
      bindCounts(v, r);
    return true;
  }
  v.boundExpanded = expanded;
  v.boundDetail = detail;
  const c = v.cells;
  v.el.dataset.block = r.blockId;
  v.el.className =
    `grid-row role-${r.role} ` +
    `state-${r.state}${r.cached ? ' cached' : ''}${r.sent ? '' : ' unsent'}${expanded ? ' expanded' : ''}`;
  v.el.setAttribute('aria-expanded', String(expanded));
  setText(c.twisty, expanded ? '▾' : '▸');
  setText(c.ref, r.ref);
  setText(c.role, r.role === 'assistant' ? 'assistant' : 'user');
  setText(c.kind, r.kind.replace('_', ' '));
  setText(c.tool, r.tool ?? '');
  bindCounts(v, r);
  setText(c.state, r.state);
  c.state.className = `state s-${r.state}`;
  const line = r.preview.replace(/\s+/g, ' ').trim().slice(0, 200);
  setText(c.content, line || '(empty)');
  c.content.classList.toggle('empty-text', !line);
  const why = whyText(r);
  setText(c.why, why);
  c.why.title = bidiVisible(why);
  setText(c.cache, r.breakpoint ? '◆' : '');
  c.cache.title = r.breakpoint ? 'cache breakpoint: the prefix up to here is written to the cache' : '';
  const pinTrim = canPinTrim(r);
  v.pin.hidden = !pinTrim;
  v.trim.hidden = !pinTrim;
  v.restore.hidden = !canRestore(r);
  setText(v.pin.querySelector('.label') as HTMLElement, r.state === 'pinned' ? 'Unpin' : 'Pin');
  v.pin.setAttribute('aria-label', `${r.state === 'pinned' ? 'Unpin' : 'Pin'} ${r.ref}`);
  v.trim.setAttribute('aria-label', `Trim ${r.ref}`);
  v.restore.setAttribute('aria-label', `Restore ${r.ref}`);
  v.el.setAttribute(
    'aria-keyshortcuts',
    [pinTrim ? 'p t' : '', canRestore(r) ? 'r' : ''].filter(Boolean).join(' ') || 'Enter',
  );
  toggleAttr(v.detail, 'hidden', !expanded);
  if (expanded && detail) replaceChildren(v.detail, detail);
  else replaceChildren(v.detail);
  return true;
}
