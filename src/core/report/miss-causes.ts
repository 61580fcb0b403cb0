/**
 * "Why your cache missed": a row's recorded cache misses, each put on the cause its rule names
 * (call-rules.ts causesOf, the rule `report --explain` shows per call), with what it cost.
 * A miss is what a billed call re-wrote (or sent uncached) of the prefix the previous billed call of the
 * conversation had cached; it costs those tokens at the price they were billed at over the cache-read price.
 */
import { costOf } from '../cache/cost';
import { causesOf, gapOf, type CauseKind } from './call-rules';
import type { FitResult } from './fit';
import type { RecordedCall } from '../import/recorded';
import type { MissCause } from '../../protocol/report-types';

/** The cause each kind is reported under (one line of the report's section each). */
export const CAUSE_LABELS: Readonly<Record<CauseKind | 'none', string>> = {
  ttl: 'TTL expiry after a gap',
  'model-switch': 'model switch (each model has its own cache)',
  cold: 'first call on a model (cold cache)',
  version: 'client version change (new system prompt)',
  microcompact: 'microcompact (the client cleared old tool results)',
  rewrite: 'client rewrote the history (resumed or edited)',
  earlier: 'client changed an earlier conversation the transcript does not hold (compaction, microcompact)',
  'others-cold': "shared prefix cold (the client's other sessions had not kept it warm)",
  'turn-end': 'a request the transcript does not hold wrote the cache when the turn ended',
  'session-prompt': 'client rewrote the session part of the system prompt',
  unexplained: 'client invalidation the transcript does not explain',
  invalidation: 'client invalidation',
  none: 'no rule names a cause (the prefix changed in a way the transcript does not show)',
};

/**
 * The cause a call's miss is put on when its rule names several: a gap past the TTL empties the cache whatever
 * else changed; the first call on a model after another model's calls misses because of the switch.
 */
function mainCause(kinds: readonly CauseKind[]): CauseKind | 'none' {
  if (kinds.includes('ttl')) return 'ttl';
  return kinds[0] === 'cold' ? 'model-switch' : (kinds[0] ?? 'none');
}

/** Cost of a call's re-written tokens as billed (writes first, then uncached input) over their cost as cache reads. */
function missCost(call: RecordedCall, lost: number): { tokens: number; dollars: number } {
  const u = call.usage;
  const writes = Math.min(lost, u.cache_creation_input_tokens);
  const input = Math.min(lost - writes, u.input_tokens);
  const allWrites = u.cache_creation_input_tokens;
  const share1h = allWrites ? u.cache_creation.ephemeral_1h_input_tokens / allWrites : 0;
  const w1h = Math.round(writes * share1h);
  const split = { ephemeral_5m_input_tokens: writes - w1h, ephemeral_1h_input_tokens: w1h };
  const asBilled = {
    input_tokens: input,
    output_tokens: 0,
    cache_creation_input_tokens: writes,
    cache_creation: split,
  };
  const billed = costOf(asBilled, call.model);
  const asRead = costOf({ input_tokens: 0, output_tokens: 0, cache_read_input_tokens: writes + input }, call.model);
  return { tokens: writes + input, dollars: Math.max(0, billed.total - asRead.total) };
}

/** A row's misses by cause, costliest first. `calls`: the imported calls, in the fit's order. */
export function missCauses(
  fit: FitResult,
  byId: ReadonlyMap<string, RecordedCall>,
  calls: readonly { apiMessageId?: string }[],
): MissCause[] {
  const out = new Map<string, { calls: number; tokens: number; dollars: number }>();
  /** What the previous billed call had in cache after it (reads + writes). */
  let cached: number | undefined;
  calls.forEach((c, i) => {
    const r = c.apiMessageId && fit.billed[i] && !fit.foreign.includes(i) ? byId.get(c.apiMessageId) : undefined;
    if (!r) return;
    const u = r.usage;
    const before = cached;
    cached = u.cache_read_input_tokens + u.cache_creation_input_tokens;
    const kinds = causesOf(fit, i, gapOf(fit, i)).map((k) => k.kind);
    const lost = before === undefined ? 0 : before - u.cache_read_input_tokens;
    if (lost <= 0) return;
    const m = missCost(r, lost);
    if (m.tokens <= 0) return;
    const label = CAUSE_LABELS[mainCause(kinds)];
    const t = out.get(label) ?? { calls: 0, tokens: 0, dollars: 0 };
    t.calls++;
    t.tokens += m.tokens;
    t.dollars += m.dollars;
    out.set(label, t);
  });
  return [...out].map(([cause, t]) => ({ cause, ...t })).sort((a, b) => b.dollars - a.dollars);
}
