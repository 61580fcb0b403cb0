/**
 * Simulated cost of a sequence of requests with prompt caching priced as the API
 * does: the cache simulator decides reads and writes, the price table the dollars.
 * Used for "what the next request costs" and by the benchmarks.
 */
import { costOf, type Cost } from '../cache/cost';
import { CacheSimulator, type CacheUsage, type SimBlock } from '../cache/simulator';
import type { CacheTtl, RequestBody } from '../api/wire';
import type { ContentBlockParam } from '../session/types';
import type { TokenAccountant } from '../tokens/types';
import { placeholderSystem, type ClientPrefix } from './client-prefix';

export interface LedgerEntry {
  usage: CacheUsage;
  cost: Cost;
  totalInput: number;
}

export interface LedgerTotals {
  calls: number;
  inputTokens: number;
  cacheWriteTokens: number;
  cacheReadTokens: number;
  /**
   * USD, input side only (uncached input + cache writes + reads): output is what the model said, the same whatever we
   * trim.
   */
  inputCost: number;
}

export class CostLedger {
  private readonly sim = new CacheSimulator();
  readonly totals: LedgerTotals = { calls: 0, inputTokens: 0, cacheWriteTokens: 0, cacheReadTokens: 0, inputCost: 0 };

  constructor(
    private readonly model: string,
    private readonly tokens: TokenAccountant,
    private readonly ttl: CacheTtl = '5m',
    /** The inferred client prefix the requests carry as a placeholder system block: counted at its size. */
    private readonly clientPrefix?: ClientPrefix,
  ) {}

  private tokensOf = (block: SimBlock): number => {
    const t = block.type;
    const p = this.clientPrefix;
    if (p && t === 'text' && (block as { text?: unknown }).text === placeholderSystem(p)[0].text) return p.tokens;
    if (
      t === 'text' ||
      t === 'tool_use' ||
      t === 'tool_result' ||
      t === 'thinking' ||
      t === 'redacted_thinking' ||
      t === 'image' ||
      t === 'document'
    ) {
      return this.tokens.block(block as ContentBlockParam).tokens;
    }
    return this.tokens.text(JSON.stringify(block)).tokens;
  };

  /** Price one request sent at time `now` (ms). */
  step(body: RequestBody, now: number): LedgerEntry {
    const usage = this.sim.step(body, this.tokensOf, now);
    const cost = costOf({ ...usage, output_tokens: 0 }, this.model, this.ttl);
    const totalInput = usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens;
    this.totals.calls++;
    this.totals.inputTokens += totalInput;
    this.totals.cacheWriteTokens += usage.cache_creation_input_tokens;
    this.totals.cacheReadTokens += usage.cache_read_input_tokens;
    this.totals.inputCost += cost.total;
    return { usage, cost, totalInput };
  }

  /** Share of input tokens read from the cache. */
  hitRatio(): number {
    return this.totals.inputTokens ? this.totals.cacheReadTokens / this.totals.inputTokens : 0;
  }
}
