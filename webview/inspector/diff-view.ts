/** The Diff tab: what a request added, removed or changed versus the one before, and where the cache broke. */
import type { BlockEdit, InspectorRow, RequestDiff } from '../../src/protocol';
import { clear, h, setText } from '../shared/dom';
import { fmtTokens } from '../shared/format';
import type { CallVerdict } from '../../src/protocol/verdicts';
import { isRealMiss, missText, verdictSection } from './verdict-view';

/** Refs listed per column before "and N more". */
const MAX_LISTED = 150;

export interface DiffHandlers {
  selectCall(call: number): void;
  showRef(ref: string): void;
}

type ValueElement = HTMLElement & { value: string };

export class DiffView {
  readonly el: HTMLElement;
  private readonly picker: ValueElement;
  private readonly summary = h('p', { class: 'diff-summary', role: 'status' });
  private readonly body = h('div', { class: 'diff-body' });
  private options = '';

  constructor(private readonly handlers: DiffHandlers) {
    this.picker = h('vscode-dropdown', {
      class: 'diff-call',
      'aria-label': 'Request to compare with the one before',
    }) as ValueElement;
    this.picker.addEventListener('change', () => {
      const n = Number(this.picker.value);
      if (Number.isSafeInteger(n)) handlers.selectCall(n);
    });
    this.el = h(
      'div',
      { class: 'diff-view' },
      h(
        'label',
        { class: 'diff-picker' },
        h('span', {}, 'Compare'),
        this.picker,
        h('span', { class: 'muted' }, 'with the request before it'),
      ),
      this.summary,
      this.body,
    );
  }

  /**
   * Offer the next request and the recorded calls (by their numbers, as the journal and the
   * verdicts number them; the latest first); calls that missed the cache say why.
   */
  setCalls(
    next: number,
    calls: readonly number[],
    selected: number,
    verdictOf: (call: number) => CallVerdict | undefined = () => undefined,
  ): void {
    const listed = [...calls].reverse();
    const labels = listed.map((c) => {
      const v = verdictOf(c);
      return isRealMiss(v) ? `Call ${c} — missed: ${missText(v.miss)}` : `Call ${c}`;
    });
    const key = `${next}\n${listed.join(',')}\n${labels.join('\n')}`;
    if (key !== this.options) {
      this.options = key;
      clear(this.picker);
      this.picker.append(h('vscode-option', { value: String(next) }, `Next request (#${next})`));
      labels.forEach((label, i) => this.picker.append(h('vscode-option', { value: String(listed[i]) }, label)));
    }
    if (this.picker.value !== String(selected)) this.picker.value = String(selected);
  }

  showLoading(): void {
    setText(this.summary, 'Comparing…');
    clear(this.body);
  }

  showError(message: string): void {
    setText(this.summary, message);
    clear(this.body);
  }

  show(d: RequestDiff, rows: ReadonlyMap<string, InspectorRow>, verdict?: CallVerdict): void {
    const epoch = d.acrossEpochs ? ' (before the client rewrote its history; blocks matched by content)' : '';
    const vs = d.previous === undefined ? 'the first request (everything is new)' : `call ${d.previous}${epoch}`;
    const unchanged = d.unchanged === undefined ? '' : `${d.unchanged} unchanged, `;
    const counts =
      `${unchanged}${d.added.length} added (${fmtTokens(d.addedTokens)} tokens), ${d.removed.length} removed, ` +
      `${d.changed.length} changed (${fmtTokens(d.removedTokens)} tokens out) · ` +
      `${d.commonPrefix} blocks identical at the start`;
    setText(this.summary, `#${d.call} vs ${vs}: ${counts}`);
    clear(this.body);
    const cache = d.cacheBreakAt
      ? h(
          'div',
          { class: 'cache-break warn' },
          h('strong', {}, `Cached prefix breaks at ${d.cacheBreakAt}`),
          ` — ${fmtTokens(d.invalidatedTokens)} tokens that were cached are written again; the request is ` +
            `${fmtTokens(Math.max(0, d.savedTokens))} tokens smaller for it.`,
        )
      : h(
          'div',
          { class: 'cache-break ok' },
          d.previous === undefined
            ? 'First request: the cache is written.'
            : 'The cached prefix holds: this request only appends.',
        );
    if (verdict) this.body.append(verdictSection(verdict));
    // The verdict knows better than the block diff when the cache broke for a reason blocks don't show (model, TTL).
    if (!(isRealMiss(verdict) && !d.cacheBreakAt)) this.body.append(cache);
    if (d.edits?.length) this.body.append(editsSection(d.edits));
    this.body.append(
      h(
        'div',
        { class: 'diff-cols' },
        this.column('Added', d.added, rows),
        this.column('Removed', d.removed, rows),
        this.column('Changed', d.changed, rows),
      ),
    );
  }

  private column(title: string, refs: readonly string[], rows: ReadonlyMap<string, InspectorRow>): HTMLElement {
    const list = h('ul', { class: 'ref-list' });
    for (const ref of refs.slice(0, MAX_LISTED)) {
      const r = rows.get(ref);
      const label = r ? `${ref} · ${r.role} · ${r.kind.replace('_', ' ')}${r.tool ? ` · ${r.tool}` : ''}` : ref;
      const b = h('button', { type: 'button', class: 'ref-link', disabled: !r }, label);
      b.addEventListener('click', () => this.handlers.showRef(ref));
      list.append(h('li', {}, b));
    }
    if (refs.length > MAX_LISTED) list.append(h('li', { class: 'muted' }, `and ${refs.length - MAX_LISTED} more`));
    if (!refs.length) list.append(h('li', { class: 'muted' }, 'none'));
    return h(
      'section',
      { class: `diff-col col-${title.toLowerCase()}` },
      h('h4', {}, `${title} (${refs.length})`),
      list,
    );
  }
}

/** Each changed block: where its text first differs, the text before it, what was there and what is there now. */
function editsSection(edits: readonly BlockEdit[]): HTMLElement {
  const list = h('ul', { class: 'edit-list' });
  for (const e of edits) {
    const head = `${e.ref}: differs from character ${e.at} (${e.beforeLength} → ${e.afterLength} characters)`;
    list.append(
      h(
        'li',
        { class: 'edit', 'data-ref': e.ref },
        h('div', { class: 'edit-head' }, head),
        h(
          'pre',
          { class: 'edit-text' },
          h('span', { class: 'muted' }, e.context ? `…${e.context}` : ''),
          h('del', {}, e.before),
          h('ins', {}, e.after),
        ),
      ),
    );
  }
  return h('section', { class: 'diff-edits' }, h('h4', {}, `What changed (${edits.length})`), list);
}
