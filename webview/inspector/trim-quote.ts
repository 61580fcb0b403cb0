/**
 * The trim editor's live quote (issue 29): while the user types a summary, the host prices
 * the trim with that text (`price` request, the one pricer in src/core/cache) and the editor
 * shows, in dollars, the rewrite the next call pays, the saving on every later call and the
 * break-even in calls, before anything is applied. Requests are debounced; an answer to an
 * older text is dropped.
 */
import type { ActionPrice } from '../../src/protocol/prices';
import { h, setText } from '../shared/dom';
import { fmtTokens, fmtUsd } from '../shared/format';

/** Quiet time after the last keystroke before the editor asks for a price. */
export const QUOTE_DEBOUNCE_MS = 250;

/** The quote's three figures and its verdict, as text. */
export function trimQuoteParts(p: ActionPrice): { rewrite: string; saving: string; breakEven: string } {
  const rewrite = p.cold
    ? 'Rewrite now: $0 (the cache is cold)'
    : p.rewriteTokens <= 0
      ? 'Rewrite now: $0 (nothing cached is written again)'
      : p.rewriteCost > 0
        ? `Rewrite now: ${fmtUsd(p.rewriteCost)} extra (${fmtTokens(p.rewriteTokens)} cached tokens written again)`
        : `Rewrite now: $0 extra (writing what is left costs less than reading ${fmtTokens(p.rewriteTokens)} cached)`;
  const saving =
    p.tokensPerCall > 0
      ? `Saves ${fmtUsd(p.savingPerCall)} per call (${fmtTokens(p.tokensPerCall)} tokens)`
      : p.tokensPerCall < 0
        ? `Adds ${fmtUsd(-p.savingPerCall)} per call (${fmtTokens(-p.tokensPerCall)} tokens)`
        : 'Saves nothing per call';
  const expected = `about ${p.expectedCalls} more expected`;
  const breakEven =
    p.breakEvenCalls === null
      ? `Never breaks even (${expected})`
      : p.breakEvenCalls === 0
        ? `Breaks even at once (${expected})`
        : `Breaks even after ${p.breakEvenCalls} ${p.breakEvenCalls === 1 ? 'call' : 'calls'} (${expected})`;
  return { rewrite, saving, breakEven };
}

/** The quote element of one trim editor; `ask` prices the text typed so far. */
export class TrimQuote {
  readonly el = h('div', { class: 'trim-quote', role: 'status', 'aria-live': 'polite' }, 'Pricing this trim…');
  private timer?: number;
  private asked = 0;

  constructor(private readonly ask: (text: string) => Promise<ActionPrice | undefined>) {}

  /** The text changed: price it once typing pauses. */
  update(text: string): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = window.setTimeout(() => this.now(text), QUOTE_DEBOUNCE_MS);
  }

  /** Price the text at once (the editor just opened). */
  now(text: string): void {
    this.timer = undefined;
    const n = ++this.asked;
    this.ask(text).then(
      (p) => n === this.asked && this.show(p),
      () => n === this.asked && this.show(undefined),
    );
  }

  private show(p: ActionPrice | undefined): void {
    if (!p) {
      setText(this.el, 'Not priced here: a replayed transcript has no live cache to rewrite.');
      return;
    }
    const q = trimQuoteParts(p);
    this.el.replaceChildren(
      h('span', { class: 'quote-rewrite' }, q.rewrite),
      ' · ',
      h('span', { class: 'quote-saving' }, q.saving),
      ' · ',
      h('span', { class: 'quote-break-even' }, q.breakEven),
    );
    this.el.classList.toggle('warn', !p.paysBack);
  }
}
