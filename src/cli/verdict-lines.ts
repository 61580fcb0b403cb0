/** The cache verdicts of a proxied session as text lines (`trimline inspect <journal>`). */
import type { CacheMiss } from '../protocol/verdicts';
import type { PerCall } from '../core/store/verdicts';
import { usd } from './common';

/** A miss in words: reason, where, who, how long idle. */
export function missText(m: CacheMiss): string {
  const parts = [m.reason.replace(/_/g, ' ')];
  if (m.where) parts.push(m.where);
  if (m.changeSource) parts.push(m.changeSource === 'client' ? 'by the client' : 'by a Trimline edit');
  if (m.idleMinutes !== undefined) parts.push(`idle ${m.idleMinutes} min`);
  return `${parts.join(', ')} [${m.source}]`;
}

export function verdictLines(calls: readonly PerCall[]): string[] {
  const misses = calls.filter((c) => c.miss && c.miss.reason !== 'first_call');
  const cost = misses.reduce((a, c) => a + c.missCost, 0);
  const out = [`cache verdicts: ${calls.length} calls, ${misses.length} missed the cache (${usd(cost)} lost)`];
  for (const c of calls) {
    if (!c.miss) continue;
    const tokens =
      c.miss.reason === 'first_call' ? '' : ` — ${c.miss.missedTokens} tokens not read, ${usd(c.missCost)}`;
    out.push(`  call ${c.call}: ${missText(c.miss)}${tokens}${c.beyondRules ? ' (more than the rules predict)' : ''}`);
    if (c.disagreement) out.push(`    API vs local: ${c.disagreement}`);
  }
  return out;
}
