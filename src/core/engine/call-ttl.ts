/**
 * The quote behind a call's TTL choice: what the call writes, the prefix a pause would lose, and how often this
 * session lost its cache for reasons its requests do not show (cache/long-ttl.ts prices the 1-hour TTL from these).
 */
import { ttlMsOf } from '../api/cache-rules';
import type { CacheTtl } from '../api/wire';
import { quoteLongTtl, type LongTtlQuote } from '../cache/long-ttl';
import { lastBelow } from '../session/sorted';
import type { CacheState, MessageIndex, PipelineRunResult } from '../trimming';

export interface CallTtlInput {
  readonly index: MessageIndex;
  readonly run: PipelineRunResult;
  readonly cache: CacheState;
  readonly epochStart: number;
  readonly upTo: number;
  readonly now: number;
  /** The session's TTL (the client's, behind the proxy). */
  readonly ttl: CacheTtl;
  /** Tools and system tokens of the head, and those the client's other sessions keep cached. */
  readonly headTokens: number;
  readonly sharedHead: number;
  /** A strategy prunes closed turns (tool-pruning): the next prompt rewrites from the current turn's steps on. */
  readonly prunesClosedTurns: boolean;
  /** Calls expected to follow in the current loop. */
  readonly restOfLoop: number;
  /** Share of calls that lost a warm cache for a reason their request does not show. */
  readonly lossRate: number;
  readonly minTokens: number;
}

export function quoteCallTtl(i: CallTtlInput): LongTtlQuote {
  const { index, run, cache, epochStart, upTo, now } = i;
  // Written this call: what is new since the cached end, from this call's first applied edit on, and from where
  // the cache is cold this call (a model switch, a new epoch: its start; idle past the TTL: everything, head
  // included).
  const expired = cache.lastCallAt === undefined || now - cache.lastCallAt >= ttlMsOf(cache.ttl ?? i.ttl);
  const coldAt = expired ? epochStart : (cache.coldFrom?.position ?? Infinity);
  const fromMessage = Math.max(epochStart, Math.min(cache.cachedUpTo, upTo, run.firstApplied, coldAt));
  const own = Math.max(0, i.headTokens - i.sharedHead);
  const written = index.rangeTokens(fromMessage, upTo) + (expired ? own : 0);
  // With closed turns pruned, the next prompt rewrites from the current turn's steps on: only what comes before
  // them is read.
  const turn = lastBelow(index.prompts, upTo, -1);
  const readTo = turn >= epochStart && i.prunesClosedTurns ? turn + 1 : upTo;
  return quoteLongTtl({
    written,
    prefix: own + index.rangeTokens(epochStart, readTo),
    restOfLoop: i.restOfLoop,
    gapsMs: run.evidence.gapsMs,
    lossRate: i.lossRate,
    atRisk: own + index.rangeTokens(epochStart, upTo),
    minTokens: i.minTokens,
  });
}
