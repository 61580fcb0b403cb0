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
  const expectedCalls = Math.max(
    1,
    Math.round(
      i.expectedCalls ??
        expectedWarmCalls({ loopLengths: [], gapsMs: [], currentLoopCalls: Math.max(1, i.callsSoFar) }, ttlMsOf(i.ttl))
          .calls,
    ),
  );
  // A change that adds tokens (a restore) has a negative saving: it costs them on every later call.
  const q = quoteDollars(quoteRewrite(rewriteTokens, tokensPerCall, i.ttl, expectedCalls), i.model, i.overrides);
  const rewriteCost = rewriteTokens > 0 ? Math.max(0, q.rewriteCost) : 0;
  const savingPerCall = q.savingPerCall;
  const breakEvenCalls = rewriteCost === 0 ? 0 : savingPerCall > 0 ? Math.ceil(rewriteCost / savingPerCall) : null;
  const paysBack = i.savingUnknown ? true : savingPerCall * expectedCalls - rewriteCost >= 0;
  const summary = priceSentence({
    cold,
    idleMs: i.idleMs,
    rewriteTokens,
    rewriteCost,
    tokensPerCall,
    savingPerCall,
    breakEvenCalls,
    expectedCalls,
    savingUnknown: i.savingUnknown,
  });
  return {
    rewriteCost,
    rewriteTokens,
    savingPerCall,
    tokensPerCall,
    breakEvenCalls,
    expectedCalls,
    paysBack,
    cold,
    summary,
  };
}

interface SentenceFacts {
  readonly cold: boolean;
  readonly idleMs: number | undefined;
  readonly rewriteTokens: number;
  readonly rewriteCost: number;
  readonly tokensPerCall: number;
  readonly savingPerCall: number;
  readonly breakEvenCalls: number | null;
  readonly expectedCalls: number;
  readonly savingUnknown?: boolean;
}

/**
 * The price as one complete sentence: what the next call rewrites, what every later call
 * saves or adds, whether a saving pays the rewrite back, and the calls expected. A change
 * that adds tokens (a restore) says what it adds first: it is a cost, not a saving.
 */
export function priceSentence(f: SentenceFacts): string {
  const rewrite = f.cold
    ? `the cache is cold (idle ${Math.round((f.idleMs ?? 0) / 60_000)} min), so nothing cached is rewritten`
    : f.rewriteTokens <= 0
      ? 'rewrites nothing cached'
      : f.rewriteCost > 0
        ? `rewrites ${fmtK(f.rewriteTokens)} cached tokens on the next call (${fmtUsd(f.rewriteCost)} extra)`
        : `rewrites ${fmtK(f.rewriteTokens)} cached tokens on the next call at no extra cost ` +
          '(what is left costs less to write than all of it to read)';
  let perCall: string;
  if (f.savingUnknown) perCall = 'the saving per call shows once it runs';
  else if (f.tokensPerCall > 0)
    perCall = `saves ${fmtK(f.tokensPerCall)} tokens (${fmtUsd(f.savingPerCall)}) on every later call`;
  else if (f.tokensPerCall < 0)
    perCall = `adds ${fmtK(-f.tokensPerCall)} tokens (${fmtUsd(-f.savingPerCall)}) to every later call`;
  else perCall = 'saves nothing per call';
  const payback =
    f.savingUnknown || f.tokensPerCall < 0 || f.rewriteCost <= 0
      ? ''
      : f.breakEvenCalls === null
        ? ', so it never pays back'
        : `, so it pays back after ${f.breakEvenCalls} ${f.breakEvenCalls === 1 ? 'call' : 'calls'}`;
  const adds = f.tokensPerCall < 0 && !f.savingUnknown;
  const body = adds ? `${perCall}, and ${rewrite}` : `${rewrite}, and ${perCall}${payback}`;
  const expected = `about ${f.expectedCalls} more ${f.expectedCalls === 1 ? 'call is' : 'calls are'} expected`;
  return `${body[0].toUpperCase()}${body.slice(1)}; ${expected}`;
}
