/** The Findings tab: what is worth a look, each with its one-click action. */
import type { Finding } from '../../src/protocol';
import { clear, h } from '../shared/dom';
import { checkedPrice } from './price-confirm';
import { fmtTokens } from '../shared/format';

export interface FindingsHandlers {
  act(f: Finding): void;
  showBlock(blockId: string): void;
  showDiff(call: number): void;
}

export class FindingsView {
  readonly el: HTMLElement;
  private readonly list = h('ul', { class: 'findings', 'aria-label': 'Findings' });
  private readonly empty = h(
    'p',
    { class: 'muted empty' },
    'Nothing stands out: no large results, stale reads, unused tools or costly cache breaks.',
  );
  /** Items by finding object: a snapshot delta keeps the objects of unchanged findings, so their items are reused. */
  private items = new Map<Finding, HTMLElement>();

  constructor(private readonly handlers: FindingsHandlers) {
    this.el = h('div', { class: 'findings-view' }, this.list, this.empty);
  }

  update(findings: readonly Finding[]): void {
    const items = new Map<Finding, HTMLElement>();
    for (const f of findings) items.set(f, this.items.get(f) ?? this.item(f));
    this.items = items;
    this.empty.hidden = findings.length > 0;
    const els = [...items.values()];
    if (els.length === this.list.children.length && els.every((el, i) => this.list.children[i] === el)) return;
    clear(this.list);
    this.list.append(...els);
  }

  private item(f: Finding): HTMLElement {
    const buttons: HTMLElement[] = [];
    if (f.action) {
      const b = h(
        'vscode-button',
        { appearance: 'primary', class: 'finding-action', 'data-finding': f.id },
        f.action.label,
      );
      b.addEventListener('click', () => this.handlers.act(f));
      buttons.push(b);
    }
    if (f.blockIds.length) {
      const b = h(
        'vscode-button',
        { appearance: 'secondary' },
        f.blockIds.length > 1 ? `Show (${f.blockIds.length})` : 'Show',
      );
      b.addEventListener('click', () => this.handlers.showBlock(f.blockIds[0]));
      buttons.push(b);
    }
    if (f.call !== undefined) {
      const call = f.call;
      const b = h('vscode-button', { appearance: 'secondary' }, 'Show diff');
      b.addEventListener('click', () => this.handlers.showDiff(call));
      buttons.push(b);
    }
    return h(
      'li',
      { class: `finding sev-${f.severity}` },
      h('span', { class: 'sev', 'aria-label': f.severity }, f.severity === 'warning' ? '⚠' : 'ℹ'),
      h(
        'div',
        { class: 'finding-body' },
        h('p', { class: 'finding-msg' }, f.message),
        f.tokens ? h('span', { class: 'finding-tokens' }, `${fmtTokens(f.tokens)} tokens`) : '',
        priceNote(f),
      ),
      h('div', { class: 'finding-actions' }, ...buttons),
    );
  }
}

/** The finding's action priced against the cache (checked: the snapshot is checked only shallowly). */
function priceNote(f: Finding): HTMLElement | string {
  const p = checkedPrice(f.price);
  // A restore (more tokens per call) is no saving: it is not asked about.
  const asks = p && !p.paysBack && p.tokensPerCall >= 0;
  const note = asks ? ' It will not pay back, so it asks first.' : '';
  return p ? h('span', { class: 'finding-price' }, `${p.summary}.${note}`) : '';
}
