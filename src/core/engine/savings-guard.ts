/**
 * "Saved so far vs `none`", per session, and the guard it feeds: an edit inside the cached prefix
 * is a bet that the saving pays the rewrite back before the cache goes cold. The guard makes the
 * session's own money the stake: a rewrite at a warm moment goes ahead only while what the session
 * has saved so far covers its cost (less {@link LOSS_TOLERANCE} of what `none` has cost), so a
 * rewrite that never pays back cannot make the session dearer than `none`. Edits at free moments
 * (the cache cold anyway) and after the cached prefix cost nothing extra and are never held.
 *
 * Both sides are priced call by call on the same shadow cache (the prefix the previous request
 * left, read while within its TTL, on the same model and history epoch): `none` sends every
 * message untrimmed and keeps its whole previous request cached; the engine's request reads up
 * to where its first edit of this call (or the latest alive write before it) starts, and writes
 * the rest. Both are priced by the one pricer (cache/cost.ts inputSidePrice) at the model's prices.
 */
import { quoteDollars, type RewriteQuote } from '../cache/break-even';
import { inputSidePrice } from '../cache/cost';
import { ttlMsOf } from '../api/cache-rules';
import { modelPrice } from '../models';
import type { CacheTtl } from '../api/wire';
import type { CacheState, MessageIndex, RewriteGuard } from '../trimming';

/** A session may end at most this share of `none`'s cost above it by rewrites (the promise: ≤ none + 0.5%). */
export const LOSS_TOLERANCE = 0.005;
/**
 * Share of a quote's expected saving it is uncertain by: the expected warm calls are a mean over
 * loops and pauses that vary call to call; a margin below this share is noise, not a saving.
 */
export const QUOTE_UNCERTAINTY = 0.25;

/** One call as the shadow cache sees it (tokens; positions are log positions). */
export interface ShadowCall {
  readonly now: number;
  readonly model: string;
  readonly epochStart: number;
  /** The TTL this call writes with, and the client's (what `none` writes with). */
  readonly ttl: CacheTtl;
  readonly noneTtl: CacheTtl;
  /** Tools + system tokens in front of the messages. */
  readonly head: number;
  /** Of the head, read from the cache even when this session's cache is cold (the client's other sessions keep it). */
  readonly sharedHead: number;
  /** Messages of the request untrimmed, and as sent. */
  readonly noneTokens: number;
  readonly sentTokens: number;
  /** Tokens of the request's messages the previous request cached and this one sends unchanged (read). */
  readonly sentKept: number;
  /** Untrimmed messages of the previous request (what `none` has cached). */
  readonly noneKept: number;
  /** The client made the whole cache cold this call (its system prompt or tools changed). */
  readonly coldAtStart?: boolean;
}

/** What {@link SavingsGuard.account} reads of a prepared call. */
export interface AccountInput {
  readonly index: Pick<MessageIndex, 'rangeTokens' | 'originalTokens'>;
  readonly cache: CacheState;
  /** Log position of this call's first applied edit (Infinity: none). */
  readonly firstApplied: number;
  readonly epochStart: number;
  readonly upTo: number;
  readonly now: number;
  readonly ttl: CacheTtl;
  readonly noneTtl: CacheTtl;
  readonly model: string;
  readonly head: number;
  readonly sharedHead: number;
}

export interface SavingsSnapshot {
  /** USD the session's requests cost so far (input side), and what `none` would have cost. */
  readonly paid: number;
  readonly none: number;
  /** none − paid, USD. */
  readonly saved: number;
  /** Rewrites of the cached prefix the guard stopped. */
  readonly held: number;
}

export class SavingsGuard implements RewriteGuard {
  private paid = 0;
  private none = 0;
  private held = 0;
  private last?: { now: number; model: string; epochStart: number; ttl: CacheTtl; noneTtl: CacheTtl };
  /** The guard already said why it holds in this warm stretch (said once until the next free moment). */
  private said = false;
  /** End of the previous request (what `none` has cached). */
  private lastUpTo = 0;

  /** `model`: the session's model now (rewrite quotes are in its base-input tokens). */
  constructor(private readonly model: () => string) {}

  /** Whether the previous call's cache (written with `ttl`) is still warm for this one. */
  private warm(c: ShadowCall, ttl: CacheTtl): boolean {
    const l = this.last;
    if (l === undefined || c.coldAtStart) return false;
    return c.now - l.now < ttlMsOf(ttl) && l.model === c.model && l.epochStart === c.epochStart;
  }

  /** Price one prepared call on the shadow cache, both ways (`none` at the client's TTL). */
  record(c: ShadowCall): void {
    const p = modelPrice(c.model);
    const price = (read: number, total: number, ttl: CacheTtl): number =>
      inputSidePrice({ read, written: total - read }, p, ttl);
    const cold = Math.min(c.sharedHead, c.head);
    const noneWarm = this.warm(c, this.last?.noneTtl ?? c.noneTtl);
    const warm = this.warm(c, this.last?.ttl ?? c.ttl);
    this.none += price(noneWarm ? c.head + c.noneKept : cold, c.head + c.noneTokens, c.noneTtl);
    this.paid += price(warm ? c.head + c.sentKept : cold, c.head + c.sentTokens, c.ttl);
    this.last = { now: c.now, model: c.model, epochStart: c.epochStart, ttl: c.ttl, noneTtl: c.noneTtl };
  }

  /** Price a prepared call and `none`'s: the request reads up to where this call's first edit breaks the prefix. */
  account(c: AccountInput): void {
    const { index, cache, firstApplied, epochStart, upTo } = c;
    const cold = cache.coldFrom?.position ?? Infinity;
    let readEnd = Math.min(cache.cachedUpTo, upTo);
    if (firstApplied < readEnd) {
      // It reads up to the latest alive write before the edit (cache-aware.ts rewriteStart).
      let start = epochStart;
      for (const w of cache.writeEnds ?? []) if (w <= firstApplied && w > start) start = w;
      readEnd = start;
    }
    this.record({
      now: c.now,
      model: c.model,
      epochStart,
      ttl: c.ttl,
      noneTtl: c.noneTtl,
      head: c.head,
      sharedHead: c.sharedHead,
      coldAtStart: cold <= epochStart,
      noneTokens: index.originalTokens(epochStart, upTo),
      sentTokens: index.rangeTokens(epochStart, upTo),
      sentKept: index.rangeTokens(epochStart, Math.max(epochStart, Math.min(readEnd, cold))),
      noneKept: index.originalTokens(epochStart, Math.max(epochStart, Math.min(this.lastUpTo, upTo, cold))),
    });
    this.lastUpTo = upTo;
  }

  /** A free moment: the cache is cold anyway; the guard's word of this stretch is said again when it holds again. */
  freeMoment(): void {
    this.said = false;
  }

  /**
   * Whether the rewrite a quote prices may go ahead now (in base-input tokens of the session's model), and
   * the guard's line when it may not (undefined when it was already said in this warm stretch).
   */
  allows(q: RewriteQuote): { ok: boolean; line?: string } {
    // A rewrite that costs nothing extra over reading the prefix risks nothing.
    if (q.rewriteCost <= 0) return { ok: true };
    const cost = quoteDollars(q, this.model()).rewriteCost;
    const saved = this.none - this.paid;
    const slack = LOSS_TOLERANCE * this.none;
    const margin = q.net;
    const uncertainty = QUOTE_UNCERTAINTY * q.savingPerCall * q.expectedCalls;
    const unsure = margin <= uncertainty;
    if (!unsure && saved - cost >= -slack) return { ok: true };
    this.held++;
    if (this.said) return { ok: false };
    this.said = true;
    const why = unsure
      ? `the quote's margin (${Math.round(margin)} base-input tokens) is within its uncertainty ` +
        `(${Math.round(uncertainty)}: ` +
        `${QUOTE_UNCERTAINTY * 100}% of the expected saving)`
      : `the rewrite would cost $${cost.toFixed(4)} and the session has saved $${saved.toFixed(4)} vs none so far ` +
        `(paid $${this.paid.toFixed(4)}, none $${this.none.toFixed(4)}, ` +
        `tolerance ${(LOSS_TOLERANCE * 100).toFixed(1)}% ` +
        `of none): if it never paid back, the session would cost more than none`;
    return { ok: false, line: `guard: no rewrite of the cached prefix until the next free moment: ${why}` };
  }

  snapshot(): SavingsSnapshot {
    return { paid: this.paid, none: this.none, saved: this.none - this.paid, held: this.held };
  }
}
