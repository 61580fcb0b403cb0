/**
 * The cost ledger of a live session: real usage from every API response,
 * priced with the one price table (models/, overridable). Unlike
 * engine/cost-ledger.ts (a simulation for replays), nothing here is estimated.
 */
import { costOf, type Cost } from '../cache/cost';
import type { PriceOverrides } from '../models';
import type { CacheTtl } from '../api/wire';
import type { CallUsage } from '../session/types';

export interface LedgerTotals {
  readonly calls: number;
  /** Uncached input tokens (after the last cache breakpoint). */
  readonly inputTokens: number;
  readonly cacheWriteTokens: number;
  readonly cacheReadTokens: number;
  readonly outputTokens: number;
  /** USD. */
  readonly cost: number;
  /** False when some call was priced with assumed or fallback prices. */
  readonly exactPrices: boolean;
}

export const EMPTY_TOTALS: LedgerTotals = {
  calls: 0,
  inputTokens: 0,
  cacheWriteTokens: 0,
  cacheReadTokens: 0,
  outputTokens: 0,
  cost: 0,
  exactPrices: true,
};

/** Totals plus one call. */
export function addUsage(t: LedgerTotals, usage: CallUsage, cost: Cost): LedgerTotals {
  return {
    calls: t.calls + 1,
    inputTokens: t.inputTokens + usage.input_tokens,
    cacheWriteTokens: t.cacheWriteTokens + (usage.cache_creation_input_tokens ?? 0),
    cacheReadTokens: t.cacheReadTokens + (usage.cache_read_input_tokens ?? 0),
    outputTokens: t.outputTokens + usage.output_tokens,
    cost: t.cost + cost.total,
    exactPrices: t.exactPrices && cost.exactPrices,
  };
}

export class UsageLedger {
  /** Calls made by this process (this run of the CLI, this window of the extension). */
  private runTotals: LedgerTotals = EMPTY_TOTALS;
  /** Every call of the session, including those recorded before a resume. */
  private sessionTotals: LedgerTotals = EMPTY_TOTALS;

  constructor(
    private readonly ttl: CacheTtl = '5m',
    private readonly prices?: PriceOverrides,
  ) {}

  /** Price one call's usage. */
  price(usage: CallUsage, model: string): Cost {
    return costOf(usage, model, this.ttl, this.prices);
  }

  /** Count a call made now (in both the run and the session totals). */
  add(usage: CallUsage, model: string): Cost {
    const cost = this.price(usage, model);
    this.runTotals = addUsage(this.runTotals, usage, cost);
    this.sessionTotals = addUsage(this.sessionTotals, usage, cost);
    return cost;
  }

  /** Count a call recorded earlier (a resumed session's history): session totals only. */
  addPrevious(usage: CallUsage, model: string): void {
    this.sessionTotals = addUsage(this.sessionTotals, usage, this.price(usage, model));
  }

  get run(): LedgerTotals {
    return this.runTotals;
  }

  get session(): LedgerTotals {
    return this.sessionTotals;
  }
}
