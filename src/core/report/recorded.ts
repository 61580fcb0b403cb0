/**
 * What recorded calls cost, counted the way the API billed them
 * (docs/anthropic-api.md, "Counting what a recorded session cost"): 5-minute and 1-hour cache writes priced apart,
 * output apart from input, and the steps billed apart inside a call (`usage.iterations`, e.g. a server-side
 * compaction) added to the bill while their tokens stay out of the token totals (which equal ccusage's:
 * top-level usage only). The calls themselves come from the importers (import/recorded.ts).
 */
import { costOf, type PricedUsage } from '../cache/cost';
import type { RecordedCall, RecordedUsage } from '../import/recorded';

/** Totals of a set of calls, in tokens and US dollars. */
export interface RecordedTotals {
  inputCost: number;
  outputCost: number;
  inputTokens: number;
  cacheWriteTokens: number;
  cacheWrite1hTokens: number;
  cacheReadTokens: number;
  outputTokens: number;
  /**
   * Cost of the steps billed apart inside calls (compaction iterations), input and output side; in inputCost/outputCost
   * too.
   */
  iterationCost: number;
}

/** Input-side and output cost of one call (USD), prices from the model catalog. */
export function callCost(model: string, u: RecordedUsage): { input: number; output: number } {
  const c = costOf(u as PricedUsage, model);
  return { input: c.input + c.cacheWrite + c.cacheRead, output: c.output };
}

/** Cost of the steps billed apart inside a call (compaction iterations), USD. */
export function iterationsCost(model: string, u: RecordedUsage): { input: number; output: number } {
  let input = 0;
  let output = 0;
  for (const it of u.iterations ?? []) {
    const c = callCost(model, it);
    input += c.input;
    output += c.output;
  }
  return { input, output };
}

export function emptyTotals(): RecordedTotals {
  return {
    inputCost: 0,
    outputCost: 0,
    inputTokens: 0,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    cacheReadTokens: 0,
    outputTokens: 0,
    iterationCost: 0,
  };
}

/** Add one call to totals (mutates `t`). */
export function addCall(t: RecordedTotals, call: RecordedCall): void {
  const c = callCost(call.model, call.usage);
  const it = iterationsCost(call.model, call.usage);
  t.inputCost += c.input + it.input;
  t.outputCost += c.output + it.output;
  t.iterationCost += it.input + it.output;
  t.inputTokens += call.usage.input_tokens;
  t.cacheWriteTokens += call.usage.cache_creation_input_tokens;
  t.cacheWrite1hTokens += call.usage.cache_creation.ephemeral_1h_input_tokens;
  t.cacheReadTokens += call.usage.cache_read_input_tokens;
  t.outputTokens += call.usage.output_tokens;
}

export function totalsOf(calls: readonly RecordedCall[]): RecordedTotals {
  const t = emptyTotals();
  for (const c of calls) addCall(t, c);
  return t;
}

/** Add `b` into `a` (mutates `a`). */
export function addTotals(a: RecordedTotals, b: RecordedTotals): void {
  for (const k of Object.keys(a) as (keyof RecordedTotals)[]) a[k] += b[k];
}
