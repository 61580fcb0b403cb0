/**
 * Cache-aware application of proposals.
 *
 * Editing a block invalidates the prompt cache from that block on. A proposal that
 * changes content after the previously cached prefix (new content), or any proposal
 * when the cache has expired anyway, is free: applied at once. A proposal inside the
 * cached prefix is deferred until a batch is worth it:
 *
 *   rewrite cost  = (B − S)·w − B·r      (the tail from the batch's first edit is
 *                                          written at w instead of read at r, once)
 *   future saving = S · r · K            (S fewer tokens read on each of K next calls)
 *
 * with B the cached tokens from the batch's first edited position to the end of the
 * cached prefix, S the tokens the batch saves, w/r the write/read multipliers (1.25
 * or 2 for the 1-hour TTL, and 0.1) and K the expected number of further calls. The
 * applier picks the suffix batch with the largest net saving; all pending proposals
 * behind the break point ride along for free. Urgent proposals (a hard budget) skip
 * the test. Each deferral and application is recorded in the decision log.
 */
import type { Session } from '../session/session';
import type { DecisionLog } from './decisions';
import type { MessageIndex } from './message-index';
import type { Proposal } from './types';

export interface CacheAwareOptions {
  enabled: boolean;
  /** Cache write multiplier on base input price (5m: 1.25, 1h: 2). */
  writeMultiplier: number;
  readMultiplier: number;
  ttlMs: number;
  /** Expected further calls: the calls so far, clamped to [minHorizon, maxHorizon]. */
  minHorizon: number;
  maxHorizon: number;
  /** Expected further calls per call made so far. */
  horizonFactor: number;
  /**
   * A batch inside the cached prefix must also save at least this share of the cached
   * tokens it rewrites: many small rewrites cost more than one big one (each rewrite
   * re-writes the whole tail), so batches wait until they are worth a real cut.
   */
  minBatchFraction: number;
}

export const CACHE_AWARE_DEFAULTS: CacheAwareOptions = {
  enabled: true,
  writeMultiplier: 1.25,
  readMultiplier: 0.1,
  ttlMs: 5 * 60_000,
  // A session that has made n calls is about as likely to make n more (Lindy); never
  // assume fewer than 4 (a turn rarely ends in fewer) nor more than 40 (a cache rarely
  // survives longer without a pause past its TTL).
  minHorizon: 4,
  maxHorizon: 40,
  horizonFactor: 1,
  minBatchFraction: 0.9,
};

export interface CacheState {
  /** Messages [0, cachedUpTo) were in the previous request (its cached prefix). */
  cachedUpTo: number;
  /** Time of the previous call (ms); undefined = nothing cached yet. */
  lastCallAt?: number;
}

export interface ApplyContext {
  session: Session;
  index: MessageIndex;
  decisions: DecisionLog;
  callIndex: number;
  now: number;
  cache: CacheState;
}

function keyOf(p: Proposal): string {
  const o = p.overlay;
  if (o.kind === 'summary') return o.author === 'strategy:atomic-window' || o.author === 'strategy:strands-window' ? `${o.author}:range` : o.fromMessageId;
  if (o.kind === 'prune') return o.blockId ?? o.messageId;
  return o.blockId;
}

export class CacheAwareApplier {
  private readonly pending = new Map<string, Proposal>();
  /** Proposals whose deferral is already in the decision log (logged once, not every call). */
  private readonly deferLogged = new WeakSet<Proposal>();

  constructor(private readonly o: CacheAwareOptions = CACHE_AWARE_DEFAULTS) {}

  isPending(id: string): boolean {
    return this.pending.has(id);
  }
  pendingCount(): number {
    return this.pending.size;
  }
  pendingSavings(): number {
    let s = 0;
    for (const p of this.pending.values()) s += p.saved;
    return s;
  }

  add(p: Proposal): void {
    this.pending.set(keyOf(p), p);
  }

  /** Decide what to apply now; returns the number of overlays applied. */
  flush(ctx: ApplyContext): number {
    if (!this.pending.size) return 0;
    const { cache } = ctx;
    const expired = cache.lastCallAt === undefined || ctx.now - cache.lastCallAt >= this.o.ttlMs;
    const all = [...this.pending.values()];
    let applied = 0;
    if (!this.o.enabled || expired) {
      const why = !this.o.enabled ? 'cache-aware application off' : cache.lastCallAt === undefined ? 'nothing cached yet' : `cache expired (${Math.round((ctx.now - cache.lastCallAt!) / 1000)}s since the last call ≥ TTL): rewriting costs nothing extra`;
      for (const p of all) applied += this.apply(ctx, p, why);
      return applied;
    }
    // Urgent proposals break the cache where they start; everything pending behind that
    // point rides along for free (the tail is rewritten anyway).
    let breakAt = cache.cachedUpTo;
    for (const p of all) if (p.urgent) breakAt = Math.min(breakAt, p.position);
    const costly: Proposal[] = [];
    for (const p of all) {
      if (p.urgent) applied += this.apply(ctx, p, 'over a hard budget: applied regardless of the cache');
      else if (p.position >= cache.cachedUpTo) applied += this.apply(ctx, p, 'after the cached prefix: no cache cost');
      else if (p.position >= breakAt) applied += this.apply(ctx, p, 'rides along: the cache breaks earlier anyway');
      else costly.push(p);
    }
    if (!costly.length) return applied;
    applied += this.batch(ctx, costly);
    return applied;
  }

  private batch(ctx: ApplyContext, costly: Proposal[]): number {
    const { cache } = ctx;
    const K = Math.min(this.o.maxHorizon, Math.max(this.o.minHorizon, ctx.callIndex * this.o.horizonFactor));
    const w = this.o.writeMultiplier;
    const r = this.o.readMultiplier;
    costly.sort((a, b) => b.position - a.position);
    let S = 0;
    let best = { net: 0, k: -1, S: 0, B: 0 };
    for (let k = 0; k < costly.length; k++) {
      S += costly[k].saved;
      if (k + 1 < costly.length && costly[k + 1].position === costly[k].position) continue;
      const B = ctx.index.rangeTokens(costly[k].position, cache.cachedUpTo);
      const net = S * r * K - ((Math.max(0, B - S) * w) - B * r);
      if (net > best.net && S >= this.o.minBatchFraction * B) best = { net, k, S, B };
    }
    if (best.k < 0) {
      for (const p of costly) {
        if (this.deferLogged.has(p)) continue;
        this.deferLogged.add(p);
        ctx.decisions.add({
          callIndex: ctx.callIndex,
          by: 'cache-aware',
          action: 'defer',
          targets: [keyOf(p)],
          reason: `deferred: inside the cached prefix; saves ~${p.saved} tokens/call, not yet worth rewriting the cache (batch of ${costly.length} pending)`,
          tokensSaved: 0,
        });
      }
      return 0;
    }
    let applied = 0;
    const why = `batch of ${best.k + 1}: saves ~${best.S} tokens/call × ${K} expected calls, more than rewriting ${best.B} cached tokens costs`;
    for (let k = 0; k <= best.k; k++) applied += this.apply(ctx, costly[k], why);
    return applied;
  }

  private apply(ctx: ApplyContext, p: Proposal, why: string): number {
    this.pending.delete(keyOf(p));
    const o = p.overlay;
    try {
      if (p.replaces && ctx.session.overlay(p.replaces)) ctx.session.removeOverlay(p.replaces, o.author);
      const added = ctx.session.addOverlay(o);
      p.onApplied?.();
      ctx.decisions.add({
        callIndex: ctx.callIndex,
        by: o.author,
        action: 'apply',
        targets: [keyOf(p)],
        reason: `${o.reason} — ${why}`,
        tokensSaved: p.saved,
        overlayIds: [added.id],
      });
      return 1;
    } catch (e) {
      // The target changed since the proposal (e.g. the user pinned it): skip, and say so.
      ctx.decisions.add({ callIndex: ctx.callIndex, by: o.author, action: 'skip', targets: [keyOf(p)], reason: `not applied: ${(e as Error).message}`, tokensSaved: 0 });
      return 0;
    }
  }
}
