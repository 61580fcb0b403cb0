/**
 * The price of an inspector action against the prompt cache (issue 17): what the next call
 * pays extra to write again the cached prefix from the edited block on, what every later
 * call saves, and after how many calls that has paid back. One small function on costOf and
 * the model catalog, so the cache-aware pricer (trimming/cache-aware.ts) can replace it.
 *
 * - Rewrite: the cached tokens from the edit point on are written at the write price
 *   instead of read at the read price, once; free when the cache is cold anyway (idle past
 *   the TTL: the next call writes everything).
 * - Saving per call: the tokens no longer sent, at the read price (they would have been
 *   read from the cache on every later call).
 * - Expected calls: a session that has made n calls is expected to make about n more
 *   (at least 1, at most EXPECTED_CALLS_MAX): the only evidence the session gives.
 */
import type { ActionPrice } from '../../protocol-prices';
import type { PriceOverrides } from '../models';
import type { CacheTtl } from '../request/types';
import { costOf } from './cost';
import { TTL_1H_MS, TTL_5M_MS } from './simulator';

/** The most later calls counted on (a long session does not promise as many again). */
export const EXPECTED_CALLS_MAX = 100;

export interface ActionPriceInput {
  readonly model: string;
  readonly ttl: CacheTtl;
  /** Tokens of the cached prefix from the edit point on (written again by the next call). */
  readonly rewriteTokens: number;
  /** Tokens fewer per later call (negative: more). */
  readonly tokensPerCall: number;
  /** Calls the session has made. */
  readonly callsSoFar: number;
  /** Milliseconds since the last call; undefined before the first. */
  readonly idleMs: number | undefined;
  /** The saving cannot be known before the action runs (a strategy switch): priced as the rewrite only. */
  readonly savingUnknown?: boolean;
  readonly overrides?: PriceOverrides;
}

const fmtK = (n: number): string => (Math.abs(n) >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(Math.round(n)));
const fmtUsd = (n: number): string => `$${Math.abs(n) >= 0.01 ? n.toFixed(2) : n.toFixed(4)}`;

/** Read price of `tokens` (sign kept). */
function readCost(tokens: number, model: string, o?: PriceOverrides): number {
  const c = costOf({ input_tokens: 0, output_tokens: 0, cache_read_input_tokens: Math.abs(tokens) }, model, '5m', o).total;
  return Math.sign(tokens) * c;
}

export function priceAction(i: ActionPriceInput): ActionPrice {
  const ttlMs = i.ttl === '1h' ? TTL_1H_MS : TTL_5M_MS;
  const cold = i.idleMs !== undefined && i.idleMs > ttlMs;
  const rewriteTokens = cold || i.idleMs === undefined ? 0 : Math.max(0, i.rewriteTokens);
  const write = costOf({ input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: rewriteTokens }, i.model, i.ttl, i.overrides).total;
  const rewriteCost = Math.max(0, write - readCost(rewriteTokens, i.model, i.overrides));
  const tokensPerCall = i.savingUnknown ? 0 : i.tokensPerCall;
  const savingPerCall = readCost(tokensPerCall, i.model, i.overrides);
  const expectedCalls = Math.min(EXPECTED_CALLS_MAX, Math.max(1, i.callsSoFar));
  const breakEvenCalls = rewriteCost === 0 ? 0 : savingPerCall > 0 ? Math.ceil(rewriteCost / savingPerCall) : null;
  const paysBack = i.savingUnknown ? true : savingPerCall * expectedCalls - rewriteCost >= 0;
  const parts: string[] = [];
  if (cold) parts.push(`the cache is cold (idle ${Math.round((i.idleMs ?? 0) / 60_000)} min): nothing to rewrite`);
  else if (rewriteTokens > 0) parts.push(`rewrites ${fmtK(rewriteTokens)} cached tokens now (${fmtUsd(rewriteCost)})`);
  else parts.push('rewrites nothing cached');
  if (i.savingUnknown) parts.push('the saving shows once it runs');
  else if (tokensPerCall > 0) parts.push(`saves ${fmtK(tokensPerCall)} tokens (${fmtUsd(savingPerCall)}) per later call`);
  else if (tokensPerCall < 0) parts.push(`adds ${fmtK(-tokensPerCall)} tokens (${fmtUsd(-savingPerCall)}) per later call`);
  if (!i.savingUnknown && rewriteCost > 0) parts.push(breakEvenCalls === null ? 'never pays back' : `pays back after ${breakEvenCalls} calls`);
  parts.push(`about ${expectedCalls} more calls expected`);
  const summary = parts.join('; ');
  return { rewriteCost, rewriteTokens, savingPerCall, tokensPerCall, breakEvenCalls, expectedCalls, paysBack, cold, summary: summary[0].toUpperCase() + summary.slice(1) };
}
