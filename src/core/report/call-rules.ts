/**
 * The rule that decided each call's simulated usage, and whether the recording agrees: what
 * `report --explain` shows per call, and what a loose row's note names for its largest differences.
 */
import { TTL_1H_MS, TTL_5M_MS } from '../cache/simulator';
import type { BillStep } from './bill-model';
import { TTL_SLACK_MS, type FitResult } from './fit';
import type { RecordedCall } from '../import/recorded';
import { callCost } from './recorded';

export interface UsageRow {
  readonly input: number;
  readonly write5m: number;
  readonly write1h: number;
  readonly read: number;
  readonly cost: number;
}

/** Per-call input differences below this share of the recorded call count as a match. */
const MATCH_TOLERANCE = 0.02;

export function simulatedRow(s: BillStep): UsageRow {
  const u = s.usage;
  const w1h = u.cache_creation?.ephemeral_1h_input_tokens ?? 0;
  const r = Math.round;
  return {
    input: r(u.input_tokens),
    write5m: r(u.cache_creation_input_tokens - w1h),
    write1h: r(w1h),
    read: r(u.cache_read_input_tokens),
    cost: s.cost,
  };
}

export function recordedRow(r: RecordedCall): UsageRow {
  const u = r.usage;
  return {
    input: u.input_tokens,
    write5m: u.cache_creation.ephemeral_5m_input_tokens,
    write1h: u.cache_creation.ephemeral_1h_input_tokens,
    read: u.cache_read_input_tokens,
    cost: callCost(r.model, u).input,
  };
}

/** Milliseconds from the end of the previous response to call i's request (undefined on the first). */
export function gapOf(fit: FitResult, i: number): number | undefined {
  return i > 0 ? fit.timings[i].now + TTL_SLACK_MS - fit.timings[i - 1].refresh : undefined;
}

/** Kinds of cause a call's rule names (the keys of the report's "Why your cache missed"). */
export type CauseKind =
  | 'cold'
  | 'model-switch'
  | 'version'
  | 'microcompact'
  | 'rewrite'
  | 'earlier'
  | 'others-cold'
  | 'turn-end'
  | 'session-prompt'
  | 'unexplained'
  | 'invalidation'
  | 'ttl';

/** The causes that decided call i's simulated usage, in the order its rule names them. */
export function causesOf(fit: FitResult, i: number, gapMs = gapOf(fit, i)): { kind: CauseKind; text: string }[] {
  const ctx = fit.contexts[i];
  const prev = fit.contexts[i - 1];
  const why: { kind: CauseKind; text: string }[] = [];
  const add = (kind: CauseKind, text: string): number => why.push({ kind, text });
  const seen = fit.contexts.slice(0, i).some((c) => c.model === ctx.model);
  if (i === 0 || !seen) add('cold', `first call on ${ctx.model}: cold cache`);
  else if (prev && prev.model !== ctx.model) add('model-switch', `model switch back to ${ctx.model}`);
  const v = fit.versionChanges.find((x) => x.call === i);
  if (v) add('version', `client ${v.from} → ${v.to}: new system prompt`);
  const cleared = fit.microcompacts.some((m) => m.call === i);
  if (cleared) add('microcompact', 'microcompact: cleared results rewrite the history');
  const rw = fit.rewrites.find((r) => r.call === i);
  if (rw) add('rewrite', `client sent ${rw.tokens} tokens less than the transcript (rescaled)`);
  const er = fit.earlierRewrites.find((r) => r.call === i);
  if (er) add('earlier', earlierRule(er));
  if (fit.turnEndWrites[i])
    add('turn-end', 'read past the last request: one the transcript does not hold wrote it when the turn ended');
  if (i > 0 && fit.sessionEpochs[i] > fit.sessionEpochs[i - 1]) {
    add('session-prompt', 'the session part of the system prompt rewritten (the shared part read alone)');
  }
  if (fit.unexplained.includes(i)) add('unexplained', 'client invalidation the transcript does not explain (followed)');
  else if (fit.invalidations.includes(i)) add('invalidation', 'client invalidation (followed)');
  const ttlMs = fit.timings[i].ttl === '1h' ? TTL_1H_MS : TTL_5M_MS;
  const gap = gapMs !== undefined && gapMs > ttlMs + TTL_SLACK_MS;
  if (gap) add('ttl', `gap past the ${fit.timings[i].ttl} TTL`);
  // After such a gap the shared prefix is warm only if other sessions kept it so (fit.ts othersKeptWarm).
  if (gap && fit.othersWarm[i] === false)
    add('others-cold', "shared prefix cold too: the client's other sessions had not kept it warm");
  return why;
}

/** "prefix part not in the transcript 94153 → 67218 tokens (…)": how that part of the prefix changed. */
export function earlierRule(r: { from: number; to: number; compaction: boolean }): string {
  const how = r.compaction
    ? 'a compaction dropped the earlier conversation; what is left is context the client sent again'
    : 'the client cleared or rewrote part of it, other bytes from the system prompt on';
  return `prefix part not in the transcript ${Math.round(r.from)} → ${Math.round(r.to)} tokens (${how})`;
}

/** The rule that decided call i's simulated usage, and whether the recording agrees. */
export function ruleOf(
  fit: FitResult,
  i: number,
  rec: UsageRow | undefined,
  sim: UsageRow,
  gapMs = gapOf(fit, i),
): string {
  if (fit.foreign.includes(i)) return 'side request on another model: priced as recorded';
  if (!rec) return 'not billed in this row (counted in another file)';
  const why = causesOf(fit, i, gapMs).map((c) => c.text);
  const recTotal = rec.input + rec.write5m + rec.write1h + rec.read;
  const simTotal = sim.input + sim.write5m + sim.write1h + sim.read;
  const off = Math.abs(sim.cost - rec.cost) > MATCH_TOLERANCE * Math.max(rec.cost, 1e-9);
  if (!off) return why.length ? why.join('; ') : 'match';
  const diffs: string[] = [];
  if (Math.abs(simTotal - recTotal) > MATCH_TOLERANCE * recTotal)
    diffs.push(`size ${simTotal - recTotal > 0 ? '+' : ''}${simTotal - recTotal}`);
  if (sim.read !== rec.read) diffs.push(`read ${sim.read - rec.read > 0 ? '+' : ''}${sim.read - rec.read}`);
  const recW = rec.write5m + rec.write1h;
  const simW = sim.write5m + sim.write1h;
  if (simW !== recW) diffs.push(`write ${simW - recW > 0 ? '+' : ''}${simW - recW}`);
  if (rec.write1h > 0 !== sim.write1h > 0)
    diffs.push(`1h writes ${rec.write1h > 0 ? 'recorded, not simulated' : 'simulated, not recorded'}`);
  return `${why.length ? `${why.join('; ')}; ` : ''}OFF (${diffs.join(', ') || 'price'})`;
}

/** A loose row's cause: its calls with the largest cost differences, each with its rule. */
export function largestDifferences(
  fit: FitResult,
  byId: ReadonlyMap<string, RecordedCall>,
  calls: readonly { apiMessageId?: string }[],
  n = 3,
): string {
  const rows = calls.flatMap((c, i) => {
    const r = c.apiMessageId && fit.billed[i] ? byId.get(c.apiMessageId) : undefined;
    if (!r) return [];
    const rec = recordedRow(r);
    const sim = simulatedRow(fit.steps[i]);
    return [{ i, delta: sim.cost - rec.cost, rec, sim }];
  });
  rows.sort((a, b) => Math.abs(b.delta) - Math.abs(a.delta));
  const top = rows.slice(0, n).filter((r) => Math.abs(r.delta) > 0);
  const usd = (x: number): string => `${x >= 0 ? '+' : '−'}$${Math.abs(x).toFixed(3)}`;
  return top.map((r) => `call ${r.i} ${usd(r.delta)} (${ruleOf(fit, r.i, r.rec, r.sim)})`).join('; ');
}
