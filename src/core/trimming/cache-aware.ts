/**
 * Cache-aware application of proposals.
 *
 * Editing a block invalidates the prompt cache from that block on. A proposal that
 * changes content after the previously cached prefix (new content) is free: applied at
 * once. So is every proposal at a free moment, when the cache is cold anyway: nothing
 * cached yet, idle past the TTL in use (the TTL of the request's breakpoints: 5 minutes
 * or 1 hour), or cold from some position on because the model changed, the client
 * changed its system prompt, tools or an earlier message, or the history was compacted
 * ({@link CacheState.coldFrom}). Otherwise a proposal inside the cached prefix waits
 * until a batch pays for its rewrite by break-even (cache/break-even.ts): the saving
 * per call over the calls the cache is expected to stay warm (cache/warm-calls.ts,
 * from this session's own loops and pauses) must exceed the extra cost of rewriting
 * the tail from the batch's first edit. The applier picks the suffix batch with the
 * largest net saving; all pending proposals behind its break point ride along for
 * free. Urgent proposals (a hard budget) skip the test. Each deferral and application
 * is recorded in the decision log with the numbers (saved and rewritten tokens,
 * expected calls, both prices, the verdict).
 */
import { describeQuote, quoteRewrite, type RewriteQuote } from '../cache/break-even';
import { quoteHoldBack, type HoldBackQuote } from '../cache/hold-back';
import { ttlMsOf } from '../api/cache-rules';
import { expectedWarmCalls, WARM_CALL_DEFAULTS, type LoopEvidence, type WarmCallOptions } from '../cache/warm-calls';
import type { CacheTtl } from '../api/wire';
import type { Session } from '../session/session';
import type { DecisionLog } from './decisions';
import type { MessageIndex } from './message-index';
import type { Foresight, Proposal } from './types';

export interface CacheAwareOptions extends WarmCallOptions {
  enabled: boolean;
  /** Write with the 1-hour TTL on calls where the pause likely to follow pays for it (cache/long-ttl.ts). */
  adaptiveTtl: boolean;
  /** Ask the session's guard before a rewrite of the cached prefix at a warm moment (engine/savings-guard.ts). */
  guard: boolean;
}

export const CACHE_AWARE_DEFAULTS: CacheAwareOptions = {
  enabled: true,
  adaptiveTtl: true,
  guard: true,
  ...WARM_CALL_DEFAULTS,
};

export interface CacheState {
  /** Messages [0, cachedUpTo) were in the previous request (its cached prefix). */
  cachedUpTo: number;
  /** Time of the previous call (ms); undefined = nothing cached yet. */
  lastCallAt?: number;
  /** TTL of the message breakpoints this call (the client's, behind the proxy). Default 5m. */
  ttl?: CacheTtl;
  /** Messages from this position on are known cold for this call (a free moment from there), and why. */
  coldFrom?: { position: number; why: string };
  /** Log positions where alive cache writes end: a rewrite starts at the latest one before its first edit. */
  writeEnds?: readonly number[];
  /** Never dearer than `none`: asked before a rewrite of the cached prefix when warm (engine/savings-guard.ts). */
  guard?: RewriteGuard;
}

/** The session's guard against rewrites that do not pay back. */
export interface RewriteGuard {
  /** Whether the rewrite the quote prices may go ahead now; `line` says why not (once per warm stretch). */
  allows(q: RewriteQuote): { ok: boolean; line?: string };
  /** The cache is cold anyway this call: edits are free, and the guard speaks again when it next holds. */
  freeMoment(): void;
}

export interface ApplyContext {
  session: Session;
  index: MessageIndex;
  decisions: DecisionLog;
  callIndex: number;
  now: number;
  cache: CacheState;
  /** The session's loops and pauses so far (trimming/loop-evidence.ts). */
  evidence?: LoopEvidence;
  /** First log position of the request (a rewrite with no alive write before it starts here). */
  epochStart?: number;
  /**
   * Set when the pipeline prunes closed turns: the current turn's prompt position. A saving on
   * content from here on lasts only for the rest of the loop (the turn's steps go when it closes).
   */
  turnStart?: number;
}

/**
 * Where a rewrite caused by an edit at `position` starts: after the latest alive write that
 * ends at or before it (the request reads up to there), else at the first message.
 */
function rewriteStart(cache: CacheState, position: number, epochStart: number): number {
  if (!cache.writeEnds) return position;
  let start = epochStart;
  for (const w of cache.writeEnds) if (w <= position && w > start) start = w;
  return start;
}

function keyOf(p: Proposal): string {
  const o = p.overlay;
  if (o.kind === 'summary') return o.fromMessageId;
  if (o.kind === 'prune') return o.blockId ?? o.messageId;
  return o.blockId;
}

export class CacheAwareApplier {
  private readonly pending = new Map<string, Proposal>();
  /** Proposals whose deferral is already in the decision log (logged once, not every call). */
  private readonly deferLogged = new WeakSet<Proposal>();
  private added = 0;
  /** Lowest log position an overlay was applied at since {@link takeFirstApplied} last asked (Infinity: none). */
  private firstApplied = Infinity;

  constructor(private readonly o: CacheAwareOptions = CACHE_AWARE_DEFAULTS) {}

  /** Where this call's applied overlays start (the request is written again from there), and start afresh. */
  takeFirstApplied(): number {
    const p = this.firstApplied;
    this.firstApplied = Infinity;
    return p;
  }

  /** Whether the engine may choose the 1-hour TTL per call (cache-aware application on, and the option set). */
  get adaptiveTtl(): boolean {
    return this.o.enabled && this.o.adaptiveTtl;
  }

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

  /** Proposals added so far (a count that only grows: the pipeline knows whether anything is new). */
  get proposals(): number {
    return this.added;
  }

  add(p: Proposal): void {
    this.added++;
    this.pending.set(keyOf(p), p);
  }

  /** Decide what to apply now; returns the number of overlays applied. */
  flush(ctx: ApplyContext): number {
    if (!this.pending.size) return 0;
    const { cache } = ctx;
    const ttl = cache.ttl ?? '5m';
    const all = [...this.pending.values()];
    let applied = 0;
    const idle = cache.lastCallAt === undefined ? 0 : ctx.now - cache.lastCallAt;
    const expired = cache.lastCallAt !== undefined && idle >= ttlMsOf(ttl);
    if (!this.o.enabled || cache.lastCallAt === undefined || expired) {
      const why = !this.o.enabled
        ? 'cache-aware application off'
        : cache.lastCallAt === undefined
          ? 'free moment: nothing cached yet'
          : `free moment: cache expired (${Math.round(idle / 1000)} s idle ≥ the ${ttl} TTL), ` +
            'rewriting costs nothing extra';
      cache.guard?.freeMoment();
      for (const p of all) applied += this.apply(ctx, p, why);
      return applied;
    }
    // Urgent proposals break the cache where they start, and a cold range starts where it
    // starts; everything pending behind that point rides along for free.
    let breakAt = cache.cachedUpTo;
    let breakWhy = '';
    if (cache.coldFrom && cache.coldFrom.position < breakAt) {
      breakAt = cache.coldFrom.position;
      breakWhy = `free moment: ${cache.coldFrom.why}`;
      cache.guard?.freeMoment();
    }
    for (const p of all) {
      if (p.urgent && p.position < breakAt) {
        breakAt = p.position;
        breakWhy = 'rides along: the cache breaks earlier anyway';
      }
    }
    const costly: Proposal[] = [];
    for (const p of all) {
      if (p.urgent) applied += this.apply(ctx, p, 'over a hard budget: applied regardless of the cache');
      else if (p.position >= cache.cachedUpTo) applied += this.apply(ctx, p, 'after the cached prefix: no cache cost');
      else if (p.position >= breakAt) applied += this.apply(ctx, p, breakWhy);
      else costly.push(p);
    }
    if (!costly.length) return applied;
    applied += this.batch(ctx, costly, ttl);
    return applied;
  }

  /**
   * Write-time placement of the final message (cache/hold-back.ts): a trim of it is due next
   * call if the loop goes on; `held` is its tokens now. Undefined when cache-aware application is off.
   */
  holdBackQuote(f: Foresight, held: number, evidence: LoopEvidence, ttl: CacheTtl): HoldBackQuote | undefined {
    if (!this.o.enabled) return undefined;
    const e = expectedWarmCalls(evidence, ttlMsOf(ttl), this.o);
    return quoteHoldBack({ held, saved: f.saved, ttl, restOfLoop: e.restOfLoop, pWarmGap: e.pWarmGap });
  }

  /**
   * Expected warm calls for this call's TTL, from the session's evidence: over the session, and for the rest of this
   * loop.
   */
  expectedCalls(evidence: LoopEvidence, ttl: CacheTtl): { session: number; loop: number } {
    const e = expectedWarmCalls(evidence, ttlMsOf(ttl), this.o);
    return { session: e.calls, loop: e.restOfLoop };
  }

  private batch(ctx: ApplyContext, costly: Proposal[], ttl: CacheTtl): number {
    const { cache } = ctx;
    const horizon = this.expectedCalls(
      ctx.evidence ?? { loopLengths: [], gapsMs: [], currentLoopCalls: Math.max(1, ctx.callIndex) },
      ttl,
    );
    const turnStart = ctx.turnStart ?? Infinity;
    costly.sort((a, b) => b.position - a.position);
    let S = 0;
    let best: { k: number; q: RewriteQuote } | undefined;
    let bestRejected: RewriteQuote | undefined;
    for (let k = 0; k < costly.length; k++) {
      S += costly[k].saved;
      if (k + 1 < costly.length && costly[k + 1].position === costly[k].position) continue;
      const B = ctx.index.rangeTokens(rewriteStart(cache, costly[k].position, ctx.epochStart ?? 0), cache.cachedUpTo);
      // Sorted by position: the batch holds an older turn's content exactly when its first edit does.
      const K = costly[k].position >= turnStart ? horizon.loop : horizon.session;
      const q = quoteRewrite(B, S, ttl, K);
      if (q.pays && (!best || q.net > best.q.net)) best = { k, q };
      else if (!q.pays && (!bestRejected || q.net > bestRejected.net)) bestRejected = q;
    }
    if (!best) {
      // Written once, when first read (a deferral is logged once per proposal, rarely shown).
      const pending = costly.length;
      const rejected = bestRejected;
      let text: string | undefined;
      const reason = (): string =>
        (text ??=
          `deferred: inside the cached prefix (batch of ${pending} pending)` +
          (rejected ? `; best batch ${describeQuote(rejected)}` : ''));
      for (const p of costly) {
        if (this.deferLogged.has(p)) continue;
        this.deferLogged.add(p);
        ctx.decisions.add({
          callIndex: ctx.callIndex,
          by: 'cache-aware',
          action: 'defer',
          targets: [keyOf(p)],
          get reason() {
            return reason();
          },
          tokensSaved: 0,
        });
      }
      return 0;
    }
    const verdict = this.o.guard ? cache.guard?.allows(best.q) : undefined;
    if (verdict && !verdict.ok) {
      const reason = `${verdict.line}; best batch ${describeQuote(best.q)}`;
      const targets = costly.map(keyOf);
      const held = { callIndex: ctx.callIndex, by: 'cache-aware', action: 'defer' as const, targets, reason };
      if (verdict.line) ctx.decisions.add({ ...held, tokensSaved: 0 });
      return 0;
    }
    let applied = 0;
    const why = `batch of ${best.k + 1} ${describeQuote(best.q)}`;
    for (let k = 0; k <= best.k; k++) applied += this.apply(ctx, costly[k], why);
    return applied;
  }

  private apply(ctx: ApplyContext, p: Proposal, why: string): number {
    this.pending.delete(keyOf(p));
    const o = p.overlay;
    try {
      if (p.replaces && ctx.session.overlay(p.replaces)) ctx.session.removeOverlay(p.replaces, o.author);
      const added = ctx.session.addOverlay(o);
      this.firstApplied = Math.min(this.firstApplied, p.position);
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
      ctx.decisions.add({
        callIndex: ctx.callIndex,
        by: o.author,
        action: 'skip',
        targets: [keyOf(p)],
        reason: `not applied: ${(e as Error).message}`,
        tokensSaved: 0,
      });
      return 0;
    }
  }
}
