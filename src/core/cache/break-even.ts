/**
 * The quote of a change to cached content, on the one pricer (cost.ts): what rewriting
 * the cached prefix costs, what it saves per later call, and whether it pays back over the
 * calls the cache is expected to stay warm. Used by the engine's cache-aware applier, the
 * price shown before a user's action, the MCP switch price and the findings.
 *
 * A quote is not a formula of its own: each amount is the difference of two requests'
 * input sides priced by {@link inputSidePrice}, the request with the edit and without it.
 *
 *   rewrite cost   = price(write B − S) − price(read B)   the next call writes the tail from
 *                                                         the first edit instead of reading it
 *   saving / call  = price(read B) − price(read B − S)    every later warm call reads S fewer
 *   break-even     = rewrite cost / saving per call
 *
 * B: cached tokens from the first edited position to the end of the cached prefix;
 * S: tokens the change saves per request. With the catalog's multipliers that is
 * (B − S)·w − B·r and S·r.
 *
 * Units: by default base-input tokens (a token billed at the model's plain input price
 * costs 1), so a quote is model-independent; {@link quoteDollars} prices the same two
 * requests at the model's catalog price (overrides included).
 */
import { modelPrice, type ModelPrice, type PriceOverrides } from '../models';
import type { CacheTtl } from '../api/wire';
import { BASE_INPUT_PRICE, inputSidePrice } from './cost';

export interface RewriteQuote {
  /** Cached tokens rewritten (B). */
  readonly rewritten: number;
  /** Tokens saved per later request (S). */
  readonly saved: number;
  readonly ttl: CacheTtl;
  /** Extra cost of the rewrite over reading the same prefix, base-input tokens (may be ≤ 0). */
  readonly rewriteCost: number;
  /** Saving on each later call while the cache is warm, base-input tokens. */
  readonly savingPerCall: number;
  /** Calls after which the saving has paid the rewrite (0 when the rewrite costs nothing extra). */
  readonly breakEvenCalls: number;
  /** Expected warm calls the saving has to pay back over. */
  readonly expectedCalls: number;
  /** savingPerCall × expectedCalls − rewriteCost. */
  readonly net: number;
  readonly pays: boolean;
}

export function quoteRewrite(
  rewritten: number,
  saved: number,
  ttl: CacheTtl,
  expectedCalls: number,
  price: ModelPrice = BASE_INPUT_PRICE,
): RewriteQuote {
  const unedited = inputSidePrice({ read: rewritten }, price, ttl);
  const rewriteCost = inputSidePrice({ written: Math.max(0, rewritten - saved) }, price, ttl) - unedited;
  const savingPerCall = unedited - inputSidePrice({ read: rewritten - saved }, price, ttl);
  const breakEvenCalls = rewriteCost <= 0 ? 0 : savingPerCall > 0 ? rewriteCost / savingPerCall : Infinity;
  const net = savingPerCall * expectedCalls - rewriteCost;
  return {
    rewritten,
    saved,
    ttl,
    rewriteCost,
    savingPerCall,
    breakEvenCalls,
    expectedCalls,
    net,
    pays: net > 0 && saved > 0,
  };
}

/** A quote's amounts in USD: the same two requests priced at the model's catalog price (with overrides). */
export function quoteDollars(
  q: RewriteQuote,
  model: string,
  overrides?: PriceOverrides,
): { rewriteCost: number; savingPerCall: number; net: number } {
  const d = quoteRewrite(q.rewritten, q.saved, q.ttl, q.expectedCalls, modelPrice(model, overrides));
  return { rewriteCost: d.rewriteCost, savingPerCall: d.savingPerCall, net: d.net };
}

/** One line for a decision log: saved and rewritten tokens, expected calls, both prices, the verdict. */
export function describeQuote(q: RewriteQuote): string {
  const be = Number.isFinite(q.breakEvenCalls) ? q.breakEvenCalls.toFixed(1) : '∞';
  return (
    `saves ${Math.round(q.saved)} tokens/call, rewrites ${Math.round(q.rewritten)} cached tokens (${q.ttl} TTL): ` +
    `rewrite costs ${Math.round(q.rewriteCost)}, saving ${Math.round(q.savingPerCall)}/call (base-input tokens), ` +
    `break-even ${be} calls vs ${q.expectedCalls.toFixed(1)} expected warm calls → ` +
    `${q.pays ? 'pays' : 'does not pay yet'}`
  );
}
