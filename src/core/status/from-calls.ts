/**
 * A proxied session's status-line facts from its recorded calls (the inspector's call points,
 * with their cache verdicts): cheap, no snapshot is built.
 */
import type { CallPoint } from '../../protocol';
import type { StatusFacts } from '../../protocol/status';
import { contextWindow, modelPrice, type PriceOverrides } from '../models';

const PER_MILLION = 1_000_000;

/**
 * The facts of a session whose calls are `calls`. The saving against `none` counts, per call,
 * the tokens the strategy kept out of the request (untrimmed − sent) at the cache-read price:
 * what `none` would have paid at least to send them again, read from the cache.
 */
export function statusFromCalls(calls: readonly CallPoint[], model: string, overrides?: PriceOverrides): StatusFacts {
  const last = calls.at(-1);
  let lastMiss: StatusFacts['lastMiss'];
  for (let i = calls.length - 1; i >= 0 && !lastMiss; i--) {
    const miss = calls[i].verdict?.miss;
    if (miss && miss.reason !== 'first_call') lastMiss = { call: calls[i].call, miss };
  }
  const keptOut = calls.reduce((a, c) => a + Math.max(0, c.untrimmed - c.sent), 0);
  return {
    source: 'proxy',
    model,
    calls: calls.length,
    contextTokens: last?.sent,
    contextWindow: contextWindow(model),
    cacheReadShare: last && last.sent > 0 ? last.cached / last.sent : undefined,
    ...(lastMiss ? { lastMiss } : {}),
    cost: calls.reduce((a, c) => a + c.cost, 0),
    savingVsNone: (keptOut * modelPrice(model, overrides).cacheRead) / PER_MILLION,
  };
}
