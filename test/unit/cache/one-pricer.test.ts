/**
 * One pricer (issue 26): every rewrite quote in the product is the difference of two requests'
 * input sides priced by cache/cost.ts. The engine's quote, the MCP switch price, the findings'
 * price of a broken prefix and the offenders' per-span dollars agree on the same inputs, and
 * with the cache simulator's usage of the two requests priced by costOf.
 */
import { describe, expect, it } from 'vitest';
import { quoteDollars, quoteRewrite } from '../../../src/core/cache/break-even';
import { costOf } from '../../../src/core/cache/cost';
import { CacheSimulator, type SimBlock, type SimRequest } from '../../../src/core/cache/simulator';
import { invalidationQuote } from '../../../src/core/inspect/findings';
import { toolSwitchCost } from '../../../src/core/mcp/inventory';
import { modelPrice } from '../../../src/core/models';
import { spanCost } from '../../../src/core/report/offenders';
import type { BillStep } from '../../../src/core/report/bill-model';
import type { RequestDiff } from '../../../src/protocol';

/** The example: 50k cached tokens from the edit on, 5k of them removed, 5-minute writes, Sonnet 4.6. */
const B = 50_000;
const S = 5_000;
const MODEL = 'claude-sonnet-4-6';

/** The simulator's price of a request after a first one that wrote `first`; the input side in USD. */
function simulatedPair(first: SimBlock[], second: SimBlock[], sizes: Map<string, number>): number {
  const sim = new CacheSimulator({ minTokens: 0 });
  const tokensOf = (b: SimBlock): number => sizes.get((b as { text?: string }).text ?? '') ?? 0;
  const req = (content: SimBlock[]): SimRequest => ({ model: MODEL, messages: [{ role: 'user', content }] });
  sim.step(req(first), tokensOf, 0);
  return costOf({ ...sim.step(req(second), tokensOf, 1000), output_tokens: 0 }, MODEL).total;
}

describe('one pricer', () => {
  it("quotes the issue example as two prices apart: $0.153750, not the MCP formula's old $0.155250", () => {
    const q = quoteRewrite(B, S, '5m', 1);
    expect(q.rewriteCost).toBeCloseTo(45_000 * 1.25 - 50_000 * 0.1, 6);
    expect(quoteDollars(q, MODEL).rewriteCost * 1e6).toBeCloseTo(153_750, 6);
    expect(toolSwitchCost(B, S, modelPrice(MODEL)).rewriteUsd * 1e6).toBeCloseTo(153_750, 6);
  });

  it('the engine quote, the MCP switch, the findings and the offenders agree in dollars', () => {
    const price = modelPrice(MODEL);
    const engine = quoteDollars(quoteRewrite(B, S, '5m', 10), MODEL);
    const mcp = toolSwitchCost(B, S, price);
    const diff: RequestDiff = {
      call: 3,
      added: [],
      removed: [],
      changed: [],
      commonPrefix: 0,
      addedTokens: 0,
      removedTokens: S,
      invalidatedTokens: B,
      savedTokens: S,
      cacheBreakAt: '0.0',
    };
    const finding = invalidationQuote(diff, 10, MODEL);
    // Offenders: the same span priced where it sits in the call with the edit (written) and without (read).
    const step = (readTokens: number, writtenUpTo: number): BillStep =>
      ({ readTokens, writtenUpTo, usage: undefined, cost: 0, writeCost: 0, totalInput: 0 }) as unknown as BillStep;
    const offenders = spanCost(0, B - S, step(0, B - S), price, '5m') - spanCost(0, B, step(B, B), price, '5m');
    const expected = ((B - S) * price.cacheWrite5m - B * price.cacheRead) / 1e6;
    for (const v of [engine.rewriteCost, mcp.rewriteUsd, finding.cost, offenders]) expect(v).toBeCloseTo(expected, 12);
    const saving = (S * price.cacheRead) / 1e6;
    for (const v of [engine.savingPerCall, mcp.savedPerCallUsd, finding.saved / 10]) expect(v).toBeCloseTo(saving, 12);
    expect(finding.saved).toBeCloseTo(engine.savingPerCall * 10, 12);
  });

  it('agrees with the simulator: rewrite and saving are the simulated prices of two requests apart', () => {
    const sizes = new Map([
      ['removed', S],
      ['kept', B - S],
      ['next', 0],
    ]);
    const removed: SimBlock = { type: 'text', text: 'removed' } as SimBlock;
    const kept = (): SimBlock => ({ type: 'text', text: 'kept', cache_control: { type: 'ephemeral' } }) as SimBlock;
    const unedited = simulatedPair([removed, kept()], [removed, kept()], sizes);
    const edited = simulatedPair([removed, kept()], [kept()], sizes);
    const quote = quoteDollars(quoteRewrite(B, S, '5m', 1), MODEL);
    expect(edited - unedited).toBeCloseTo(quote.rewriteCost, 12);
    // A later call: B − S read instead of B.
    const laterEdited = simulatedPair([kept()], [kept()], sizes);
    expect(unedited - laterEdited).toBeCloseTo(quote.savingPerCall, 12);
  });

  it('prices a 1-hour rewrite at the 1-hour write and an overridden price as overridden', () => {
    const hour = quoteDollars(quoteRewrite(B, S, '1h', 1), MODEL);
    const p = modelPrice(MODEL);
    expect(hour.rewriteCost).toBeCloseTo(((B - S) * p.cacheWrite1h - B * p.cacheRead) / 1e6, 12);
    // An override of the read price alone moves the dollars (not the input price times base-token multipliers).
    const over = quoteDollars(quoteRewrite(B, S, '5m', 1), MODEL, { [MODEL]: { cacheRead: 0.6 } });
    expect(over.rewriteCost).toBeCloseTo(((B - S) * p.cacheWrite5m - B * 0.6) / 1e6, 12);
  });
});
