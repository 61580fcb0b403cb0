/**
 * The expanded part of a row: the block's text, the full "why", the originals behind an
 * overlay (loaded on demand with the `originals` request) and the inline trim editor.
 * All content is set as text.
 */
import type { InspectorRow, OriginalBlock, OriginalsResult } from '../../src/protocol';
import type { ActionPrice } from '../../src/protocol/prices';
import { button, h } from '../shared/dom';
import { fmtTokens } from '../shared/format';
import { PREVIEW_LIMIT } from './labels';
import { whyText } from './row';
import { TrimQuote } from './trim-quote';

export type Originals = OriginalsResult | 'loading' | { error: string };

export interface DetailState {
  originals?: Originals;
  editing?: boolean;
}

export interface DetailHandlers {
  loadOriginals(row: InspectorRow): void;
  submitTrim(row: InspectorRow, text: string): void;
  cancelTrim(row: InspectorRow): void;
  /** The price of trimming the row to this text (undefined: the host cannot price). */
  quoteTrim(row: InspectorRow, text: string): Promise<ActionPrice | undefined>;
}

/** A value-carrying toolkit control (vscode-text-area), typed by what is used here. */
type ValueElement = HTMLElement & { value: string };

function section(title: string, ...body: (Node | string)[]): HTMLElement {
  return h('section', { class: 'detail-section' }, h('h4', {}, title), ...body);
}

function textBlock(text: string, cls = ''): HTMLElement {
  return h('pre', { class: `text ${cls}`, tabindex: 0 }, text || '(empty)');
}

/** Blocks of a summarized range listed by name (each has its own row to expand). */
const MAX_RANGE_LISTED = 40;

function blockHead(b: OriginalBlock): string {
  return (
    `${b.ref} · ${b.role} · ${b.kind.replace('_', ' ')}${b.tool ? ` · ${b.tool}` : ''} · ` +
    `${fmtTokens(b.tokens)} tokens`
  );
}

/** What the overlay sends instead (summaries), this row's original in full, and the rest of the range by name. */
function originalsView(o: Originals, row: InspectorRow): HTMLElement {
  if (o === 'loading') return h('p', { class: 'muted' }, 'Loading the originals…');
  if ('error' in o) return h('p', { class: 'error' }, o.error);
  const parts: HTMLElement[] = [];
  // A trim's replacement is what the row shows as sent already; a summary's is not.
  if (o.replacement !== undefined && o.kind === 'summary')
    parts.push(section('Sent instead (summary)', textBlock(o.replacement)));
  const own = o.blocks.find((b) => b.blockId === row.blockId) ?? o.blocks[0];
  if (own)
    parts.push(
      section(
        'Original',
        h(
          'div',
          { class: 'original this' },
          h('div', { class: 'original-head' }, blockHead(own)),
          textBlock(own.text + (own.truncated ? '\n… (cut here)' : ''), 'original-text'),
        ),
      ),
    );
  const others = o.blocks.filter((b) => b !== own);
  if (others.length) {
    const list = h(
      'ul',
      { class: 'range-list' },
      ...others.slice(0, MAX_RANGE_LISTED).map((b) => h('li', {}, blockHead(b))),
    );
    const more = others.length - MAX_RANGE_LISTED + o.omitted;
    parts.push(
      section(
        `Also in this ${o.kind} (${others.length + o.omitted} blocks; expand their rows to read them)`,
        list,
        more > 0 ? h('p', { class: 'muted' }, `and ${more} more`) : '',
      ),
    );
  }
  return h('div', { class: 'originals' }, ...parts);
}

function trimEditor(row: InspectorRow, handlers: DetailHandlers): HTMLElement {
  const area = h('vscode-text-area', {
    class: 'trim-text',
    rows: 3,
    resize: 'vertical',
    placeholder: 'What the model still needs from this result (leave empty for an automatic summary)',
    'aria-label': `Your summary for ${row.ref}`,
  }) as ValueElement;
  area.textContent = 'Summary (optional)';
  const submit = (): void => handlers.submitTrim(row, area.value ?? '');
  // The price before the click: quoted as the user types (debounced), on the host's one pricer.
  const quote = new TrimQuote((text) => handlers.quoteTrim(row, text.trim()));
  area.addEventListener('input', () => quote.update(area.value ?? ''));
  quote.now('');
  area.addEventListener('keydown', (e: KeyboardEvent) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      submit();
    } else if (e.key === 'Escape') {
      e.preventDefault();
      handlers.cancelTrim(row);
    }
  });
  const apply = h('vscode-button', { class: 'trim-apply', appearance: 'primary' }, 'Trim');
  apply.addEventListener('click', submit);
  const cancel = h('vscode-button', { class: 'trim-cancel', appearance: 'secondary' }, 'Cancel');
  cancel.addEventListener('click', () => handlers.cancelTrim(row));
  const hint = h('span', { class: 'hint' }, 'Ctrl+Enter trims · Esc cancels');
  const actions = h('div', { class: 'trim-actions' }, apply, cancel, hint);
  return h('div', { class: 'trim-editor', role: 'group', 'aria-label': `Trim ${row.ref}` }, area, quote.el, actions);
}

/** The expanded content of a row. */
export function buildDetail(row: InspectorRow, st: DetailState, handlers: DetailHandlers): HTMLElement {
  const out = h('div', { class: 'detail-body' });
  if (st.editing) out.append(trimEditor(row, handlers));
  const cut = row.preview.length >= PREVIEW_LIMIT ? `\n… (first ${PREVIEW_LIMIT} characters)` : '';
  const originalsShown = typeof st.originals === 'object' && !('error' in st.originals);
  // An unsent block's text is the original, shown in full below once loaded.
  if (row.sent || !originalsShown)
    out.append(section(row.sent ? 'Sent' : 'Not sent (original)', textBlock(row.preview + cut)));
  const facts: string[] = [
    `${row.sent ? fmtTokens(row.tokens) : 0} tokens sent of ${fmtTokens(row.originalTokens)} (${row.quality})`,
    row.cached ? 'read from the cache on the next request' : 'not in the cached prefix',
  ];
  if (row.breakpoint) facts.push('cache breakpoint');
  const why = whyText(row);
  out.append(
    section(
      'Why',
      h('p', {}, why || 'Sent as recorded: no strategy or user decision applies.'),
      h('p', { class: 'muted' }, facts.join(' · ')),
    ),
  );
  if (row.overlayId && row.state !== 'pinned' && row.state !== 'verbatim') {
    if (st.originals) out.append(originalsView(st.originals, row));
    else out.append(button('Show originals', () => handlers.loadOriginals(row), { class: 'row-btn show-originals' }));
  }
  return out;
}
