/**
 * The "System & tools" tab (issue 17): the system blocks and tool definitions of the next
 * request as rows like the messages' (tokens, cache state, breakpoints), each expandable to
 * its text; tool definitions the session never used are marked with what they cost. Loaded
 * with the `head` request; hosts without it never show the tab. Text is set as text.
 */
import { isHeadResult, type HeadResult, type HeadRow } from '../../src/protocol/head';
import { clear, h, setText } from '../shared/dom';
import { fmtTokens, fmtUsd } from '../shared/format';

function rowEl(r: HeadRow, calls: number): HTMLElement {
  const what = r.section === 'tools' ? `tool ${r.name ?? '?'}` : 'system text';
  const unused = r.section === 'tools' && r.uses === 0;
  const use =
    r.section !== 'tools'
      ? ''
      : unused
        ? `never used — ${fmtTokens(r.tokens)} tokens on each of ${calls} ` +
          `calls${r.unusedCost !== undefined ? ` (${fmtUsd(r.unusedCost)} so far)` : ''}`
        : `used ${r.uses} time${r.uses === 1 ? '' : 's'}`;
  const summary = h(
    'summary',
    { class: 'head-summary' },
    h('span', { class: 'head-ref' }, r.ref),
    h('span', { class: 'head-what' }, what),
    h('span', { class: 'head-tokens' }, `${fmtTokens(r.tokens)} tokens`),
    h('span', { class: `head-cache ${r.cached ? 'is-cached' : 'not-cached'}` }, r.cached ? 'cached' : 'not cached'),
    h(
      'span',
      {
        class: 'head-bp',
        title: r.breakpoint ? 'cache breakpoint: the prefix up to here is written to the cache' : '',
      },
      r.breakpoint ? '◆ breakpoint' : '',
    ),
    h('span', { class: `head-use${unused ? ' unused' : ''}` }, use),
  );
  const text = h('pre', { class: 'text', tabindex: 0 });
  setText(text, r.text + (r.truncated ? '\n… (cut here)' : ''));
  return h(
    'details',
    { class: `head-row head-${r.section}${unused ? ' head-unused' : ''}`, 'data-ref': r.ref },
    summary,
    text,
  );
}

export class HeadView {
  readonly el = h('div', { class: 'head-view' });
  private readonly summary = h('p', { class: 'head-summary-line', role: 'status' });
  private readonly list = h('div', { class: 'head-list' });
  private key = '';

  constructor() {
    this.el.append(this.summary, this.list);
  }

  /** Show a head from the host; false when it is not one (the tab stays hidden). */
  show(v: unknown): boolean {
    if (!isHeadResult(v)) return false;
    const key = JSON.stringify(v);
    if (key === this.key) return true;
    this.key = key;
    this.render(v);
    return true;
  }

  private render(v: HeadResult): void {
    const open = new Set([...this.list.querySelectorAll('details[open]')].map((d) => d.getAttribute('data-ref')));
    clear(this.list);
    const tools = v.rows.filter((r) => r.section === 'tools');
    const system = v.rows.filter((r) => r.section === 'system');
    const unused = tools.filter((r) => r.uses === 0);
    const sum = (rs: HeadRow[]): number => rs.reduce((a, r) => a + r.tokens, 0);
    const cost = unused.reduce((a, r) => a + (r.unusedCost ?? 0), 0);
    setText(
      this.summary,
      `${system.length} system blocks (${fmtTokens(sum(system))} tokens), ${tools.length} tool definitions ` +
        `(${fmtTokens(sum(tools))} tokens)` +
        (unused.length
          ? `; ${unused.length} never used: ${fmtTokens(sum(unused))} tokens per call, ` +
            `${fmtUsd(cost)} over ${v.calls} calls`
          : '') +
        '.',
    );
    for (const r of [...tools, ...system]) {
      const el = rowEl(r, v.calls);
      if (open.has(r.ref)) el.setAttribute('open', '');
      this.list.append(el);
    }
  }
}
