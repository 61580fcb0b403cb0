/**
 * A proxied session's status-line facts from its recorded calls (the inspector's call points,
 * with their cache verdicts): cheap, no snapshot is built.
 */
import type { CallPoint } from '../../protocol';
import type { StatusFacts } from '../../protocol/status';
import { contextWindow } from '../models';

/**
 * The facts of a session whose calls are `calls`. `savedVsNone` is the engine's own account of the
 * session (engine/savings-guard.ts: what it paid against what `none` would have, by the one pricer),
 * the same figure the inspector's header shows.
 */
export function statusFromCalls(calls: readonly CallPoint[], model: string, savedVsNone: number): StatusFacts {
  const last = calls.at(-1);
  let lastMiss: StatusFacts['lastMiss'];
  for (let i = calls.length - 1; i >= 0 && !lastMiss; i--) {
    const miss = calls[i].verdict?.miss;
    if (miss && miss.reason !== 'first_call') lastMiss = { call: calls[i].call, miss };
  }
  return {
    source: 'proxy',
    model,
    calls: calls.length,
    contextTokens: last?.sent,
    contextWindow: contextWindow(model),
    cacheReadShare: last && last.sent > 0 ? last.cached / last.sent : undefined,
    ...(lastMiss ? { lastMiss } : {}),
    cost: calls.reduce((a, c) => a + c.cost, 0),
    savingVsNone: savedVsNone,
  };
}
