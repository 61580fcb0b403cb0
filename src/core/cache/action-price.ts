/**
 * The price of an inspector action against the prompt cache (issue 17), on the one pricer
 * (break-even.ts) and the cache rules: what the next call pays extra to write again the
 * cached prefix from the edited block on, what every later call saves, and after how many
 * calls that has paid back.
 *
 * - Rewrite and saving per call: `quoteRewrite` (rewrite = (B − S)·w − B·r, saving = S·r),
 *   in dollars at the model's catalog price; free when the cache is cold anyway (idle past
 *   the TTL: the next call writes everything).
 * - Expected calls: the engine's estimate from the session's own loops and pauses
 *   (warm-calls.ts) when the caller has it, else the same estimate from the calls made so far.
 */
import type { ActionPrice } from '../../protocol/prices';
import type { PriceOverrides } from '../models';
import type { CacheTtl } from '../api/wire';
import { quoteDollars, quoteRewrite } from './break-even';
import { ttlMsOf } from '../api/cache-rules';
import { expectedWarmCalls } from './warm-calls';

export interface ActionPriceInput {
  readonly model: string;
  readonly ttl: CacheTtl;
  /** Tokens of the cached prefix from the edit point on (written again by the next call). */
  readonly rewriteTokens: number;
  /** Tokens fewer per later call (negative: more). */
  readonly tokensPerCall: number;
  /** Calls the session has made. */
  readonly callsSoFar: number;
  /** The engine's expected warm calls (ContextEngine.expectedWarmCalls); default: estimated from callsSoFar. */
  readonly expectedCalls?: number;
  /** Milliseconds since the last call; undefined before the first. */
  readonly idleMs: number | undefined;
  /** The saving cannot be known before the action runs (a strategy switch): priced as the rewrite only. */
  readonly savingUnknown?: boolean;
  readonly overrides?: PriceOverrides;
}

const fmtK = (n: number): string => (Math.abs(n) >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(Math.round(n)));
const fmtUsd = (n: number): string => `$${Math.abs(n) >= 0.01 ? n.toFixed(2) : n.toFixed(4)}`;

export function priceAction(i: ActionPriceInput): ActionPrice {
  const cold = i.idleMs !== undefined && i.idleMs > ttlMsOf(i.ttl);
  const rewriteTokens = cold || i.idleMs === undefined ? 0 : Math.max(0, i.rewriteTokens);
  const tokensPerCall = i.savingUnknown ? 0 : i.tokensPerCall;
  const expectedCalls = Math.max(1, Math.round(i.expectedCalls ?? expectedWarmCalls({ loopLengths: [], gapsMs: [], currentLoopCalls: Math.max(1, i.callsSoFar) }, ttlMsOf(i.ttl)).calls));
  // A change that adds tokens (a restore) has a negative saving: it costs them on every later call.
  const q = quoteDollars(quoteRewrite(rewriteTokens, tokensPerCall, i.ttl, expectedCalls), i.model, i.overrides);
  const rewriteCost = rewriteTokens > 0 ? Math.max(0, q.rewriteCost) : 0;
  const savingPerCall = q.savingPerCall;
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
