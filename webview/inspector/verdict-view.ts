/**
 * A call's cache verdict in words (issue 17): on the chart's miss marks, in the Diff tab's
 * call picker and at the top of a call's diff. Verdicts are checked again here (a snapshot
 * is checked only shallowly on arrival); everything is set as text.
 */
import type { CallPoint } from '../../src/protocol';
import { isCallVerdict, type CacheMiss, type CallVerdict } from '../../src/protocol/verdicts';
import { h } from '../shared/dom';
import { fmtTokens, fmtUsd } from '../shared/format';

/** A call point's verdict, when it has a valid one. */
export function verdictOf(p: CallPoint | undefined): CallVerdict | undefined {
  return p && isCallVerdict(p.verdict) ? p.verdict : undefined;
}

/** A miss that cost something (the first call writes the cache; it is not a miss). */
export function isRealMiss(v: CallVerdict | undefined): v is CallVerdict & { miss: CacheMiss } {
  return v?.miss !== null && v?.miss !== undefined && v.miss.reason !== 'first_call';
}

const REASON_TEXT: Readonly<Record<string, string>> = {
  first_call: 'first call: the cache is written',
  ttl_expired: 'the cache expired',
  model_changed: 'the model changed',
  tools_changed: 'the tool definitions changed',
  system_changed: 'the system prompt changed',
  messages_changed: 'an earlier message changed',
  previous_message_not_found: 'the API no longer knew the previous response',
  unavailable: 'the API could not tell',
  unexplained: 'no rule explains it',
};

/** "the system prompt changed (system block 1)". */
export function missText(m: CacheMiss): string {
  const extra = [
    m.where,
    m.changeSource === 'trimline_edit'
      ? 'by a Trimline edit'
      : m.changeSource === 'client'
        ? 'by the client'
        : undefined,
    m.idleMinutes !== undefined ? `idle ${m.idleMinutes} min` : undefined,
  ].filter(Boolean);
  return `${REASON_TEXT[m.reason] ?? m.reason}${extra.length ? ` (${extra.join(', ')})` : ''}`;
}

/** One line: what the call missed, why and what it cost; or that the cache held. */
export function verdictLine(v: CallVerdict): string {
  if (!v.miss) return v.usage ? `Cache held: ${fmtTokens(v.usage.read)} tokens read.` : 'Cache held.';
  if (v.miss.reason === 'first_call') return 'First call: the cache is written.';
  return (
    `Missed the cache: ${missText(v.miss)} — ${fmtTokens(v.miss.missedTokens)} tokens not read, ` +
    `${fmtUsd(v.missCost)} [${v.miss.source === 'api' ? 'API' : 'local diff'}]`
  );
}

/** The verdict block of a call's diff. */
export function verdictSection(v: CallVerdict): HTMLElement {
  const miss = isRealMiss(v);
  const el = h(
    'div',
    {
      class: `verdict ${miss ? 'verdict-miss' : 'verdict-ok'}`,
      role: 'group',
      'aria-label': `Cache verdict of call ${v.call}`,
    },
    h('strong', {}, verdictLine(v)),
  );
  if (v.usage)
    el.append(
      h(
        'div',
        { class: 'muted' },
        `read ${fmtTokens(v.usage.read)} · written ${fmtTokens(v.usage.written)} · uncached ` +
          `${fmtTokens(v.usage.uncached)} tokens`,
      ),
    );
  if (v.beyondRules)
    el.append(
      h(
        'div',
        { class: 'verdict-note' },
        'More than the documented rules predict: nothing diverged and the TTL had not run out.',
      ),
    );
  if (v.api !== undefined)
    el.append(
      h(
        'div',
        { class: 'muted' },
        `API: ${v.api ? missText(v.api) : 'no divergence'} · local diff: ` +
          `${v.local ? missText(v.local) : 'nothing changed'}`,
      ),
    );
  if (v.disagreement)
    el.append(h('div', { class: 'verdict-note' }, `The API and the local diff disagree: ${v.disagreement}`));
  return el;
}
