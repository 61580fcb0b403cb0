/**
 * Where one request reads the prompt cache and what it writes, given the request's prefix
 * positions (simulator.ts computes them: a chain hash and the tokens up to each position)
 * and its breakpoints. The API's rules (docs/anthropic-api.md, "Prompt caching"): each
 * breakpoint reads the longest live prefix within the lookback window, a hit refreshes its
 * TTL; every breakpoint past the read point whose prefix reaches the model's minimum writes.
 */
import { TTL_1H_MS } from '../api/cache-rules';
import type { PrefixTable } from './prefix-table';
import type { CacheTrace, CacheUsage } from './sim-types';

/** Per position of the request: its prefix's chain hash (two words) and the tokens up to it. */
export interface Positions {
  readonly chainA: Uint32Array;
  readonly chainB: Uint32Array;
  readonly cum: Float64Array;
}

/** The request as the rules see it: `n` positions, `total` tokens, breakpoints with their TTLs. */
export interface Breakpoints {
  readonly n: number;
  readonly total: number;
  readonly breakpoints: readonly number[];
  readonly bpTtl: readonly number[];
}

/** The usage the API would report and the trace of where it read and wrote; `entries` is updated. */
export function readAndWrite(
  entries: PrefixTable,
  at: Positions,
  rules: { readonly lookback: number; readonly minTokens: number },
  req: Breakpoints,
  nowMs: number,
  refreshMs: number,
): { usage: CacheUsage; trace: CacheTrace } {
  const { n, total, breakpoints, bpTtl } = req;
  // Reads: longest live prefix reachable from any breakpoint within the lookback window.
  let readPos = -1;
  for (const p of breakpoints) {
    const stop = Math.max(0, p - rules.lookback + 1);
    for (let k = p; k >= stop; k--) {
      const slot = entries.find(at.chainA[k], at.chainB[k]);
      if (slot >= 0 && entries.expiresAt(slot) > nowMs) {
        entries.touch(slot, refreshMs);
        if (k > readPos) readPos = k;
        break;
      }
    }
  }
  const readTokens = readPos >= 0 ? at.cum[readPos] : 0;

  // Writes: every breakpoint past the read point whose prefix reaches the minimum.
  const min = rules.minTokens;
  const writes: number[] = [];
  const below: number[] = [];
  let start = readTokens;
  let created5m = 0;
  let created1h = 0;
  breakpoints.forEach((p, i) => {
    if (p <= readPos) return;
    if (at.cum[p] < min) {
      below.push(p);
      return;
    }
    const ttl = bpTtl[i];
    const prior = entries.find(at.chainA[p], at.chainB[p]);
    const keepTtl = prior >= 0 && entries.expiresAt(prior) > nowMs ? Math.max(entries.ttl(prior), ttl) : ttl;
    entries.set(at.chainA[p], at.chainB[p], refreshMs + keepTtl, keepTtl);
    const segment = at.cum[p] - start;
    if (segment > 0) {
      if (ttl === TTL_1H_MS) created1h += segment;
      else created5m += segment;
    }
    start = Math.max(start, at.cum[p]);
    writes.push(p);
  });

  const trace: CacheTrace = {
    totalTokens: total,
    blockCount: n,
    breakpoints: [...breakpoints],
    readPosition: readPos,
    writePositions: writes,
    belowMinimum: below,
  };
  const creation = created5m + created1h;
  const usage: CacheUsage = {
    input_tokens: total - readTokens - creation,
    cache_creation_input_tokens: creation,
    cache_read_input_tokens: readTokens,
    cache_creation: { ephemeral_5m_input_tokens: created5m, ephemeral_1h_input_tokens: created1h },
  };
  return { usage, trace };
}
