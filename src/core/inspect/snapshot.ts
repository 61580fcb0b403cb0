/**
 * The inspector snapshot: everything the inspector webview shows, as one typed object
 * built from the engine state and the prepared next request. Pure; both hosts call it
 * after every change (a new call, a pin, a trim, a restore, a strategy switch).
 */
import type { BlockState, CompositionEntry, InspectorRow, InspectorSnapshot } from '../../protocol';
import type { ContextEngine, PreparedCall } from '../engine/context-engine';
import type { CostLedger } from '../engine/cost-ledger';
import { viewRows } from '../engine/view-rows';
import { inputSidePrice } from '../cache/cost';
import { modelPrice } from '../models';
import { blockText } from '../session/log';
import type { ContentBlockParam } from '../session/types';
import { composition } from './composition';
import { findings } from './findings';
import { refOf } from './flat';
import type { CallHistory } from './history';

/** Characters of block text in a row preview (the row shows one line; expanded, a few). */
export const PREVIEW_CHARS = 300;

export interface SnapshotOptions {
  sessionId: string;
  title: string;
  strategy: string;
  /** A live agent session (true) or a replayed transcript (false). */
  live: boolean;
  /**
   * Log position up to which the previous request was cached: used for the rows'
   * `cached` flag only when the next request has not been priced (no recorded calls).
   */
  cachedUpTo: number;
  callHistory: CallHistory;
  /** Session totals from this ledger when the host steps its own; default the history's. */
  ledger?: CostLedger;
  /** Strategy specs offered in the switcher. */
  strategies?: string[];
  /** Start of the request's history (after a compaction); default 0. */
  epochStart?: number;
  /** Time the next request would be sent (ms), for cache expiry; default one second after the last call. */
  now?: number;
  /**
   * A transcript that does not hold its system prompt and tools: their tokens inferred from the
   * recorded usage (counted in the request's totals) and the session's input cost as the report
   * prices it (report/transcript-bill.ts), shown instead of the messages-only replay's.
   */
  inferred?: { tokens: number; sessionCost: number };
}

/** Plain text of a block for the preview (binary payloads by name, not bytes). */
export function previewText(param: ContentBlockParam, max = PREVIEW_CHARS): string {
  if (param.type === 'image' || param.type === 'document') return `[${param.type}]`;
  const text = blockText(param);
  return text.length > max ? text.slice(0, max) : text;
}

/**
 * Row previews by block object: blocks are immutable and the request builder reuses
 * the objects of unchanged messages, so a row's preview is computed once and is the
 * same string in the next snapshot (the snapshot delta compares it by reference).
 */
const previews = new WeakMap<object, string>();

function rowPreview(param: ContentBlockParam): string {
  let p = previews.get(param);
  if (p === undefined) previews.set(param, (p = previewText(param)));
  return p;
}

/** The composition with the inferred system prompt and tools first (they come first in every request). */
function withInferred(entries: CompositionEntry[], tokens: number): CompositionEntry[] {
  if (tokens <= 0) return entries;
  return [{ group: 'system', label: 'System prompt and tools (inferred from usage)', tokens }, ...entries];
}

export function buildSnapshot(engine: ContextEngine, prepared: PreparedCall, o: SnapshotOptions): InspectorSnapshot {
  const { session, tokens } = engine;
  const history = o.callHistory;
  const now = o.now ?? (history.lastCallAt() ?? Date.now()) + 1000;
  const priced = history.priceNext(prepared.body, prepared.blockMap, now);
  const cachedIds = new Set<string>();
  for (let i = 0; i <= priced.readPosition && i < priced.flat.length; i++) cachedIds.add(priced.flat[i].id);
  const usePriced = history.length > 0;
  const rows: InspectorRow[] = viewRows(engine, prepared, o.epochStart ?? 0, o.cachedUpTo).map((r) => {
    const block = session.block(r.blockId);
    // The block as sent is in the request body (via the block map); unsent blocks show their original.
    const at = r.sent ? prepared.blockMap.positionOf(r.blockId) : undefined;
    const content = at ? prepared.body.messages[at.messageIndex].content : undefined;
    const sent = Array.isArray(content) ? (content[at!.blockIndex] as ContentBlockParam | undefined) : undefined;
    const overlay = r.overlayId ? session.overlay(r.overlayId) : undefined;
    const row: InspectorRow = {
      ...r,
      cached: usePriced ? cachedIds.has(r.blockId) : r.cached,
      preview: rowPreview(sent ?? block?.param ?? { type: 'text', text: typeof content === 'string' ? content : '' }),
    };
    if (overlay) {
      row.call = overlay.callIndex;
      row.saved = Math.max(0, overlay.tokensBefore - overlay.tokensAfter);
    }
    return row;
  });
  let systemTokens = 0;
  let toolsTokens = 0;
  for (const b of priced.flat) {
    if (b.section === 'system') systemTokens += history.tokensOf(b.param);
    else if (b.section === 'tools') toolsTokens += history.tokensOf(b.param);
  }
  const byState: Record<BlockState, number> = { verbatim: 0, trimmed: 0, summarized: 0, pruned: 0, pinned: 0 };
  let original = 0;
  for (const r of rows) {
    byState[r.state]++;
    original += r.originalTokens;
  }
  const u = priced.usage;
  const inferred = o.inferred?.tokens ?? 0;
  systemTokens += inferred;
  const messagesSent = u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
  const sentTokens = messagesSent + inferred;
  // The inferred system prompt and tools come first in every request: the next one (inside the TTL) reads them.
  const prefixRead = inferred > 0 ? inputSidePrice({ read: inferred }, modelPrice(engine.model), engine.ttl) : 0;
  const nextDiff = history.length ? history.diffNext(prepared.body, prepared.blockMap) : undefined;
  const account = engine.savings();
  const snapshot: InspectorSnapshot = {
    sessionId: o.sessionId,
    title: o.title,
    model: engine.model,
    strategy: o.strategy,
    contextWindow: engine.contextWindow,
    callIndex: history.nextCall,
    quality: tokens.quality(),
    rows,
    totals: {
      sentTokens,
      untrimmedTokens: systemTokens + toolsTokens + original,
      systemTokens,
      toolsTokens,
      byState,
      ...(o.inferred ? { inferredTokens: inferred } : {}),
    },
    cache: {
      hitRatio: o.ledger ? o.ledger.hitRatio() : history.hitRatio,
      breakpoints: prepared.breakpoints.length,
      breakpointRefs: prepared.breakpoints.map((b) => refOf(session, b.at)),
      nextCachedTokens: u.cache_read_input_tokens + inferred,
    },
    cost: {
      session: o.inferred?.sessionCost ?? (o.ledger ? o.ledger.totals.inputCost : history.sessionCost),
      nextRequest: priced.cost.total + prefixRead,
      nextInput: priced.cost.input,
      nextCacheWrite: priced.cost.cacheWrite,
      nextCacheRead: priced.cost.cacheRead + prefixRead,
      nextTokens: {
        input: u.input_tokens,
        cacheWrite: u.cache_creation_input_tokens,
        cacheRead: u.cache_read_input_tokens + inferred,
      },
      exactPrices: priced.cost.exactPrices,
      ...(account.none > 0 ? { vsNone: { saved: account.saved, none: account.none, held: account.held } } : {}),
    },
    calls: [...history.points],
    composition: withInferred(composition(session, history.tokensOf, priced.flat), inferred),
    findings: findings({
      session,
      tokens,
      rows,
      sentTokens,
      contextWindow: engine.contextWindow,
      model: engine.model,
      ttl: engine.ttl,
      diffs: history.diffs,
      nextDiff,
    }),
    strategies: o.strategies ?? [],
    live: o.live,
  };
  if (priced.readPosition >= 0 && priced.flat[priced.readPosition])
    snapshot.cache.cachedUpToRef = refOf(session, priced.flat[priced.readPosition].id);
  return snapshot;
}
