/**
 * Recorded calls → usage per 15-minute UTC slot (protocol/report-types.ts UsageSlot): small enough to keep
 * in every row and its cache entry, fine enough to group into local days in any time zone.
 */
import type { RecordedCall } from '../import/recorded';
import { callCost, iterationsCost } from './recorded';
import type { UsageSlot } from '../../protocol/report-types';

export const SLOT_MS = 15 * 60_000;

/** The calls' usage per slot, oldest first; calls without a timestamp are left out. */
export function usageSlots(calls: readonly RecordedCall[]): UsageSlot[] {
  const slots = new Map<number, { -readonly [K in keyof UsageSlot]: UsageSlot[K] }>();
  for (const c of calls) {
    const t = c.timestamp ? Date.parse(c.timestamp) : NaN;
    if (!Number.isFinite(t)) continue;
    const at = Math.floor(t / SLOT_MS) * SLOT_MS;
    let s = slots.get(at);
    if (!s) {
      const start = new Date(at).toISOString();
      const tokens = { inputTokens: 0, outputTokens: 0, cacheWriteTokens: 0, cacheReadTokens: 0 };
      s = { start, calls: 0, ...tokens, inputCost: 0, outputCost: 0 };
      slots.set(at, s);
    }
    const cost = callCost(c.model, c.usage);
    const apart = iterationsCost(c.model, c.usage);
    s.calls++;
    s.inputTokens += c.usage.input_tokens;
    s.outputTokens += c.usage.output_tokens;
    s.cacheWriteTokens += c.usage.cache_creation_input_tokens;
    s.cacheReadTokens += c.usage.cache_read_input_tokens;
    s.inputCost += cost.input + apart.input;
    s.outputCost += cost.output + apart.output;
  }
  return [...slots].sort((a, b) => a[0] - b[0]).map(([, s]) => s);
}
