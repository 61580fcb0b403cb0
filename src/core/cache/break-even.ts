/**
 * The one pricer of a change to cached content: what rewriting the cached prefix
 * costs, what it saves per later call, and whether it pays back over the calls the
 * cache is expected to stay warm. Used by the engine's cache-aware applier (and the
 * price shown before a user's action); the multipliers are the cache rules'.
 *
 * Units: base-input tokens (a token billed at the model's plain input price), so a
 * quote is model-independent; {@link quoteDollars} converts with the catalog price.
 *
 *   rewrite cost   = (B − S)·w − B·r   the tail from the first edit is written at w
 *                                       instead of read at r, once
 *   saving / call  = S·r                S fewer tokens read on every later warm call
 *   break-even     = rewrite cost / saving per call
 *
 * B: cached tokens from the first edited position to the end of the cached prefix;
 * S: tokens the change saves per request; w: write multiplier of the TTL in use.
 */
import { modelPrice, type PriceOverrides } from '../models';
import type { CacheTtl } from '../api/wire';
import { CACHE_READ_MULTIPLIER, writeMultiplier } from '../api/cache-rules';

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

export function quoteRewrite(rewritten: number, saved: number, ttl: CacheTtl, expectedCalls: number): RewriteQuote {
  const w = writeMultiplier(ttl);
  const r = CACHE_READ_MULTIPLIER;
  const rewriteCost = Math.max(0, rewritten - saved) * w - rewritten * r;
  const savingPerCall = saved * r;
  const breakEvenCalls = rewriteCost <= 0 ? 0 : savingPerCall > 0 ? rewriteCost / savingPerCall : Infinity;
  const net = savingPerCall * expectedCalls - rewriteCost;
  return { rewritten, saved, ttl, rewriteCost, savingPerCall, breakEvenCalls, expectedCalls, net, pays: net > 0 && saved > 0 };
}

/** A quote's amounts in USD at a model's input price (catalog, with overrides applied by the caller's model id). */
export function quoteDollars(q: RewriteQuote, model: string, overrides?: PriceOverrides): { rewriteCost: number; savingPerCall: number; net: number } {
  const perToken = modelPrice(model, overrides).input / 1_000_000;
  return { rewriteCost: q.rewriteCost * perToken, savingPerCall: q.savingPerCall * perToken, net: q.net * perToken };
}

/** One line for a decision log: saved and rewritten tokens, expected calls, both prices, the verdict. */
export function describeQuote(q: RewriteQuote): string {
  const be = Number.isFinite(q.breakEvenCalls) ? q.breakEvenCalls.toFixed(1) : '∞';
  return (
    `saves ${Math.round(q.saved)} tokens/call, rewrites ${Math.round(q.rewritten)} cached tokens (${q.ttl} TTL): ` +
    `rewrite costs ${Math.round(q.rewriteCost)}, saving ${Math.round(q.savingPerCall)}/call (base-input tokens), ` +
    `break-even ${be} calls vs ${q.expectedCalls.toFixed(1)} expected warm calls → ${q.pays ? 'pays' : 'does not pay yet'}`
  );
}
