/**
 * The inspector header: title and strategy switcher, then four cards (context gauge,
 * cache, session cost, next request) and the composition bar of the next request.
 */
import type { InspectorSnapshot } from '../../src/protocol';
import { bidiVisible } from '../../src/protocol/safe-text';
import { clear, h, setText } from '../shared/dom';
import { fmtInt, fmtPct, fmtTokens, fmtUsd } from '../shared/format';

type ValueElement = HTMLElement & { value: string };

interface Card {
  el: HTMLElement;
  value: HTMLElement;
  sub: HTMLElement;
}

function card(title: string, extra?: HTMLElement): Card {
  const value = h('div', { class: 'card-value' });
  const sub = h('div', { class: 'card-sub' });
  return {
    el: h(
      'section',
      { class: 'card', 'aria-label': title },
      h('h3', { class: 'card-title' }, title),
      value,
      extra ?? '',
      sub,
    ),
    value,
    sub,
  };
}

export class Header {
  readonly el: HTMLElement;
  private readonly title = h('h1', { class: 'title' });
  private readonly meta = h('span', { class: 'meta' });
  private readonly mode = h('span', { class: 'mode-badge' });
  private readonly strategy: ValueElement;
  private strategies = '';
  private readonly gaugeSent = h('div', { class: 'gauge-sent' });
  private readonly gaugeUntrimmed = h('div', { class: 'gauge-untrimmed' });
  private readonly gauge: HTMLElement;
  private readonly context: Card;
  private readonly cache = card('Cache');
  private readonly session = card('Session cost');
  private readonly next = card('Next request');
  private readonly compBar = h('div', { class: 'comp-bar', role: 'img' });
  private readonly compLegend = h('ul', { class: 'comp-legend' });
  private readonly composition: HTMLElement;
  private previousNext?: number;

  /** Shows or hides the overview (composition and chart) to give the rows more room. */
  readonly overviewToggle: HTMLElement;

  constructor(onStrategy: (spec: string) => void, onOverview: () => void) {
    this.overviewToggle = h(
      'vscode-button',
      { appearance: 'secondary', class: 'overview-toggle', 'aria-expanded': 'true' },
      'Hide overview',
    );
    this.overviewToggle.addEventListener('click', onOverview);
    this.strategy = h('vscode-dropdown', { class: 'strategy', 'aria-label': 'Trimming strategy' }) as ValueElement;
    this.strategy.addEventListener('change', () => {
      if (this.strategy.value) onStrategy(this.strategy.value);
    });
    this.gauge = h(
      'div',
      { class: 'gauge', role: 'meter', 'aria-label': 'Context window used by the next request', 'aria-valuemin': 0 },
      this.gaugeUntrimmed,
      this.gaugeSent,
    );
    this.context = card('Context', this.gauge);
    this.el = h(
      'header',
      { class: 'header' },
      h(
        'div',
        { class: 'topbar' },
        h('div', { class: 'title-wrap' }, this.title, this.meta),
        this.mode,
        this.overviewToggle,
        h('label', { class: 'strategy-label' }, h('span', {}, 'Strategy'), this.strategy),
      ),
      h('div', { class: 'cards' }, this.context.el, this.cache.el, this.session.el, this.next.el),
    );
    this.composition = h(
      'section',
      { class: 'composition', 'aria-label': 'Composition of the next request' },
      h('h3', { class: 'card-title' }, 'What the next request is made of'),
      this.compBar,
      this.compLegend,
    );
  }

  setOverviewShown(shown: boolean): void {
    this.overviewToggle.setAttribute('aria-expanded', String(shown));
    setText(this.overviewToggle, shown ? 'Hide overview' : 'Show overview');
  }

  /** The composition bar (laid out next to the chart, below the cards). */
  compositionEl(): HTMLElement {
    return this.composition;
  }

  update(s: InspectorSnapshot): void {
    setText(this.title, s.title);
    const counts = `${fmtInt(s.rows.length)} blocks · ${s.calls.length} calls`;
    setText(this.meta, `${s.model} · ${counts} · tokens ${s.quality}`);
    setText(this.mode, s.live ? 'live' : 'replay');
    this.mode.className = `mode-badge ${s.live ? 'live' : 'replay'}`;
    this.updateStrategies(s);
    this.updateContext(s);
    const c = s.cache;
    setText(this.cache.value, `${fmtPct(c.hitRatio)} hits`);
    setText(
      this.cache.sub,
      `next: ${fmtTokens(c.nextCachedTokens)} ` +
        `read${c.cachedUpToRef ? ` (prefix ends at ${c.cachedUpToRef})` : ' (prefix broken)'} · ${c.breakpoints} ` +
        `breakpoint${c.breakpoints === 1 ? '' : 's'}`,
    );
    setText(this.session.value, fmtUsd(s.cost.session));
    const v = s.cost.vsNone;
    const share = v && v.none > 0 ? v.saved / v.none : 0;
    const saved = v ? `${v.saved < 0 ? '−' : ''}${fmtUsd(Math.abs(v.saved))}` : '';
    const vsNone = v ? ` · saved ${saved} vs none (${fmtPct(share, 0)})` : '';
    const held = v?.held ? ` · guard held ${v.held}` : '';
    const inferred = s.totals.inferredTokens ? ' as `trimline report` prices it, system and tools inferred' : '';
    const prices = s.cost.exactPrices ? '' : ' · list prices assumed';
    const mode = s.live ? '' : ', simulated';
    setText(this.session.sub, `${s.calls.length} calls · input side${mode}${inferred}${vsNone}${held}${prices}`);
    this.updateNext(s);
    this.updateComposition(s);
  }

  private updateStrategies(s: InspectorSnapshot): void {
    const key = s.strategies.join('|');
    this.strategy.hidden = !s.strategies.length;
    if (key !== this.strategies) {
      this.strategies = key;
      clear(this.strategy);
      const list = s.strategies.includes(s.strategy) ? s.strategies : [s.strategy, ...s.strategies];
      for (const name of list) this.strategy.append(h('vscode-option', { value: name }, name));
    }
    if (this.strategy.value !== s.strategy) this.strategy.value = s.strategy;
  }

  private updateContext(s: InspectorSnapshot): void {
    const t = s.totals;
    const w = s.contextWindow;
    const sentShare = Math.min(1, t.sentTokens / w);
    this.gaugeSent.style.width = `${(sentShare * 100).toFixed(2)}%`;
    this.gaugeUntrimmed.style.width = `${(Math.min(1, t.untrimmedTokens / w) * 100).toFixed(2)}%`;
    this.gauge.classList.toggle('warn', sentShare >= 0.8);
    this.gauge.setAttribute('aria-valuemax', String(w));
    this.gauge.setAttribute('aria-valuenow', String(t.sentTokens));
    this.gauge.setAttribute(
      'aria-valuetext',
      `${fmtTokens(t.sentTokens)} of ${fmtTokens(w)} tokens (${fmtPct(sentShare)}), ` +
        `${fmtTokens(t.untrimmedTokens)} untrimmed`,
    );
    setText(this.context.value, `${fmtTokens(t.sentTokens)} / ${fmtTokens(w)}`);
    const saved = t.untrimmedTokens > 0 ? 1 - t.sentTokens / t.untrimmedTokens : 0;
    const inferred = t.inferredTokens ? ` · ${fmtTokens(t.inferredTokens)} system and tools inferred from usage` : '';
    const trimmed = saved > 0 ? ` (−${fmtPct(saved, 0)})` : '';
    const untrimmed = `untrimmed ${fmtTokens(t.untrimmedTokens)}${trimmed}`;
    setText(this.context.sub, `${fmtPct(sentShare)} of the window · ${untrimmed}${inferred}`);
  }

  private updateNext(s: InspectorSnapshot): void {
    const c = s.cost;
    const delta = this.previousNext === undefined ? 0 : c.nextRequest - this.previousNext;
    this.previousNext = c.nextRequest;
    const change = Math.abs(delta) >= 0.00005 ? ` (${delta > 0 ? '+' : '−'}${fmtUsd(Math.abs(delta))})` : '';
    setText(this.next.value, `${fmtUsd(c.nextRequest)}${change}`);
    const t = c.nextTokens;
    setText(
      this.next.sub,
      `read ${fmtTokens(t.cacheRead)} ${fmtUsd(c.nextCacheRead)} · write ${fmtTokens(t.cacheWrite)} ` +
        `${fmtUsd(c.nextCacheWrite)} · input ${fmtTokens(t.input)} ${fmtUsd(c.nextInput)}`,
    );
    this.next.sub.title =
      'Tokens of the next request read from the cache, written to it, and sent uncached, with their cost';
    this.next.el.classList.toggle('changed-up', delta > 0.00005);
    this.next.el.classList.toggle('changed-down', delta < -0.00005);
  }

  private updateComposition(s: InspectorSnapshot): void {
    clear(this.compBar);
    clear(this.compLegend);
    const total = s.composition.reduce((n, e) => n + e.tokens, 0) || 1;
    let toolIdx = 0;
    for (const e of s.composition) {
      const share = e.tokens / total;
      const cls = e.group === 'tool-results' ? `g-tool-results tr-${toolIdx++ % 4}` : `g-${e.group}`;
      const seg = h('div', {
        class: `comp-seg ${cls}`,
        title: `${e.label}: ${fmtTokens(e.tokens)} tokens (${fmtPct(share)})`,
      });
      seg.style.width = `${(share * 100).toFixed(3)}%`;
      this.compBar.append(seg);
      this.compLegend.append(
        h(
          'li',
          {},
          h('span', { class: `swatch ${cls}`, 'aria-hidden': 'true' }),
          h('span', { class: 'comp-label' }, e.label),
          h('span', { class: 'comp-num' }, `${fmtTokens(e.tokens)} · ${fmtPct(share, 0)}`),
        ),
      );
    }
    this.compBar.setAttribute(
      'aria-label',
      bidiVisible(s.composition.map((e) => `${e.label} ${fmtPct(e.tokens / total, 0)}`).join(', ')),
    );
  }
}
