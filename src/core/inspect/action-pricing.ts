/**
 * Prices the inspector's actions on the view it shows (rows of the next request, the
 * session's calls) with cache/action-price.ts, and keeps the actions the user chose to
 * defer to the next cold cache (applied when the session has been idle past its TTL).
 */
import type { ActionResult, Finding, InspectorRow, InspectorSnapshot } from '../../protocol';
import type { ActionPrice, PricedAction } from '../../protocol/prices';
import { priceAction } from '../cache/action-price';
import { ttlMsOf } from '../api/cache-rules';
import type { CacheTtl } from '../api/wire';
import { COMPACT_KEEP_RECENT, InspectorActionError, type UserAction } from './actions';

/** What a user trim without text leaves of a block, in tokens (a one-line summary with refs). */
const USER_TRIM_TOKENS = 60;
/** What a compaction's digest keeps of the range it replaces. */
const COMPACT_KEEP_SHARE = 0.1;

export interface PricingContext {
  readonly snapshot: InspectorSnapshot;
  readonly model: string;
  readonly ttl: CacheTtl;
  readonly callsSoFar: number;
  /** The engine's expected warm calls (ContextEngine.expectedWarmCalls). */
  readonly expectedCalls?: number;
  readonly idleMs: number | undefined;
}

/** The rows, looked up once per snapshot: row by block id, cached tokens from each row on. */
class RowIndex {
  private readonly at = new Map<string, number>();
  /** suffix[i]: cached tokens sent from row i on (suffix[rows.length] = 0). */
  private readonly suffix: number[];

  constructor(readonly rows: readonly InspectorRow[]) {
    this.suffix = new Array<number>(rows.length + 1).fill(0);
    for (let i = rows.length - 1; i >= 0; i--) {
      const r = rows[i];
      this.at.set(r.blockId, i);
      this.suffix[i] = this.suffix[i + 1] + (r.cached && r.sent ? r.tokens : 0);
    }
  }

  /** Cached tokens from row `from` on: what the next call writes again after an edit there. */
  cachedFrom(from: number): number {
    return this.suffix[Math.min(this.rows.length, Math.max(0, from))];
  }

  indexOf(blockId: string): number {
    const i = this.at.get(blockId);
    if (i === undefined) throw new InspectorActionError(`no block ${blockId} in the next request`);
    return i;
  }
}

/** Where the action edits the request and the tokens per call it saves. */
function effect(ix: RowIndex, a: PricedAction): { from: number; tokensPerCall: number; savingUnknown?: boolean } {
  const rows = ix.rows;
  switch (a.op) {
    case 'trim': {
      const i = ix.indexOf(a.blockId);
      const after = a.text ? Math.ceil(a.text.length / 4) : USER_TRIM_TOKENS;
      return { from: i, tokensPerCall: Math.max(0, rows[i].tokens - after) };
    }
    case 'restore':
    case 'pin': {
      const i = ix.indexOf(a.blockId);
      // Pinning a trimmed block sends it verbatim again, like a restore; a verbatim one changes nothing.
      const delta = rows[i].tokens - rows[i].originalTokens;
      return delta === 0 ? { from: rows.length, tokensPerCall: 0 } : { from: i, tokensPerCall: delta };
    }
    case 'unpin':
      return { from: rows.length, tokensPerCall: 0 };
    case 'compact': {
      const messages = [...new Set(rows.map((r) => r.messageId))];
      const cut = messages.length - COMPACT_KEEP_RECENT;
      if (cut <= 0) return { from: rows.length, tokensPerCall: 0 };
      const kept = new Set(messages.slice(cut));
      const range = rows.filter((r) => !kept.has(r.messageId) && r.sent);
      const tokens = range.reduce((s, r) => s + r.tokens, 0);
      return { from: rows.findIndex((r) => r.sent), tokensPerCall: Math.round(tokens * (1 - COMPACT_KEEP_SHARE)) };
    }
    case 'setStrategy':
      return { from: rows.findIndex((r) => r.sent), tokensPerCall: 0, savingUnknown: true };
  }
}

function priceWith(ix: RowIndex, c: Omit<PricingContext, 'snapshot'>, a: PricedAction): ActionPrice {
  const e = effect(ix, a);
  return priceAction({
    model: c.model,
    ttl: c.ttl,
    rewriteTokens: ix.cachedFrom(e.from),
    tokensPerCall: e.tokensPerCall,
    callsSoFar: c.callsSoFar,
    expectedCalls: c.expectedCalls,
    idleMs: c.idleMs,
    savingUnknown: e.savingUnknown,
  });
}

/** The price of an action on the view as it is now. */
export function priceOfAction(c: PricingContext, a: PricedAction): ActionPrice {
  return priceWith(new RowIndex(c.snapshot.rows), c, a);
}

/** The snapshot's findings, each with its action's price (the same price the action asks before it runs). */
export function withPrices(snapshot: InspectorSnapshot, c: Omit<PricingContext, 'snapshot'>): Finding[] {
  if (!snapshot.findings.some((f) => f.action)) return snapshot.findings;
  const ix = new RowIndex(snapshot.rows);
  // Compaction's price is the same for every finding that offers it.
  let compact: ActionPrice | undefined;
  return snapshot.findings.map((f) => {
    const a = f.action;
    if (!a) return f;
    const action: PricedAction | undefined =
      a.kind === 'compact' ? { op: 'compact' } : a.blockId ? { op: a.kind, blockId: a.blockId } : undefined;
    if (!action) return f;
    try {
      const price = action.op === 'compact' ? (compact ??= priceWith(ix, c, action)) : priceWith(ix, c, action);
      return { ...f, price };
    } catch {
      return f;
    }
  });
}

/** Actions waiting for the next cold cache. */
export class DeferredActions {
  private readonly queue: UserAction[] = [];

  get size(): number {
    return this.queue.length;
  }

  add(a: PricedAction, ttl: CacheTtl): ActionResult {
    if (a.op === 'setStrategy')
      throw new InspectorActionError('a strategy switch cannot wait: switch it when you want it');
    this.queue.push(a);
    return {
      message: `Waiting for the next cold cache (idle past the ${ttl} TTL) to apply it: then it rewrites nothing`,
    };
  }

  /** The queued actions when the cache is cold now (they leave the queue), else none. */
  takeIfCold(idleMs: number | undefined, ttl: CacheTtl): UserAction[] {
    if (this.queue.length === 0 || idleMs === undefined || idleMs <= ttlMsOf(ttl)) return [];
    return this.queue.splice(0);
  }
}
