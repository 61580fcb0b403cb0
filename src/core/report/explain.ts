/**
 * `trimline report --explain SESSION`: one session's calls, the recorded usage
 * against the simulated `none`, and the rule that decided each difference.
 * The same fit as the report's row (fitNone), shown per call instead of summed.
 */
import { parseTranscript } from '../import';
import { releaseJsonLines } from '../import/json-lines';
import { fitNone, TTL_SLACK_MS, type FitResult } from './fit';
import { callCost, readRecorded, type RecordedCall, type RecordedConversation } from './recorded';
import { sidechainText } from './session-report';
import { TTL_1H_MS, TTL_5M_MS } from '../cache/simulator';
import type { BillStep } from './bill-model';

/** One call of an explained session. */
export interface ExplainedCall {
  readonly call: number;
  readonly model: string;
  /** Minutes from the end of the previous response to this request (undefined on the first). */
  readonly gapMinutes?: number;
  readonly ttl: string;
  readonly recorded?: UsageRow;
  readonly simulated: UsageRow;
  /** Input-side cost, USD: simulated − recorded (0 when not billed here). */
  readonly costDelta: number;
  readonly rule: string;
}

export interface UsageRow {
  readonly input: number;
  readonly write5m: number;
  readonly write1h: number;
  readonly read: number;
  readonly cost: number;
}

export interface ExplainedSession {
  readonly file: string;
  readonly sessionId?: string;
  readonly agentId?: string;
  readonly model: string;
  readonly recordedCost: number;
  readonly simulatedCost: number;
  readonly calls: ExplainedCall[];
}

/** Per-call input differences below this share of the recorded call count as a match. */
const MATCH_TOLERANCE = 0.02;

function simulatedRow(s: BillStep): UsageRow {
  const u = s.usage;
  const w1h = u.cache_creation?.ephemeral_1h_input_tokens ?? 0;
  const r = Math.round;
  return { input: r(u.input_tokens), write5m: r(u.cache_creation_input_tokens - w1h), write1h: r(w1h), read: r(u.cache_read_input_tokens), cost: s.cost };
}

function recordedRow(r: RecordedCall): UsageRow {
  const u = r.usage;
  return { input: u.input_tokens, write5m: u.cache_creation.ephemeral_5m_input_tokens, write1h: u.cache_creation.ephemeral_1h_input_tokens, read: u.cache_read_input_tokens, cost: callCost(r.model, u).input };
}

/** The rule that decided call i's simulated usage, and whether the recording agrees. */
function ruleOf(fit: FitResult, i: number, rec: UsageRow | undefined, sim: UsageRow, gapMs: number | undefined): string {
  if (fit.foreign.includes(i)) return 'side request on another model: priced as recorded';
  if (!rec) return 'not billed in this row (counted in another file)';
  const ctx = fit.contexts[i];
  const prev = fit.contexts[i - 1];
  const why: string[] = [];
  if (i === 0 || !fit.contexts.slice(0, i).some((c) => c.model === ctx.model)) why.push(`first call on ${ctx.model}: cold cache`);
  else if (prev && prev.model !== ctx.model) why.push(`model switch back to ${ctx.model}`);
  const v = fit.versionChanges.find((x) => x.call === i);
  if (v) why.push(`client ${v.from} → ${v.to}: new system prompt`);
  if (fit.microcompacts.some((m) => m.call === i)) why.push('microcompact: cleared results rewrite the history');
  const rw = fit.rewrites.find((r) => r.call === i);
  if (rw) why.push(`client sent ${rw.tokens} tokens less than the transcript (rescaled)`);
  if (i > 0 && fit.sessionEpochs[i] > fit.sessionEpochs[i - 1]) why.push('the session part of the system prompt rewritten (the shared part read alone)');
  if (fit.unexplained.includes(i)) why.push('client invalidation the transcript does not explain (followed)');
  else if (fit.invalidations.includes(i)) why.push('client invalidation (followed)');
  const ttlMs = fit.timings[i].ttl === '1h' ? TTL_1H_MS : TTL_5M_MS;
  if (gapMs !== undefined && gapMs > ttlMs + TTL_SLACK_MS) why.push(`gap past the ${fit.timings[i].ttl} TTL`);
  const recTotal = rec.input + rec.write5m + rec.write1h + rec.read;
  const simTotal = sim.input + sim.write5m + sim.write1h + sim.read;
  const off = Math.abs(sim.cost - rec.cost) > MATCH_TOLERANCE * Math.max(rec.cost, 1e-9);
  if (!off) return why.length ? why.join('; ') : 'match';
  const diffs: string[] = [];
  if (Math.abs(simTotal - recTotal) > MATCH_TOLERANCE * recTotal) diffs.push(`size ${simTotal - recTotal > 0 ? '+' : ''}${simTotal - recTotal}`);
  if (sim.read !== rec.read) diffs.push(`read ${sim.read - rec.read > 0 ? '+' : ''}${sim.read - rec.read}`);
  const recW = rec.write5m + rec.write1h;
  const simW = sim.write5m + sim.write1h;
  if (simW !== recW) diffs.push(`write ${simW - recW > 0 ? '+' : ''}${simW - recW}`);
  if (rec.write1h > 0 !== sim.write1h > 0) diffs.push(`1h writes ${rec.write1h > 0 ? 'recorded, not simulated' : 'simulated, not recorded'}`);
  return `${why.length ? `${why.join('; ')}; ` : ''}OFF (${diffs.join(', ') || 'price'})`;
}

function explainConversation(file: string, text: string, conv: RecordedConversation, inMainFile: boolean): ExplainedSession | undefined {
  if (!conv.calls.length) return undefined;
  const imp = parseTranscript(conv.sidechain && inMainFile ? sidechainText(text, conv.agentId) : text, file);
  const counts = new Map<string, number>();
  for (const c of conv.calls) counts.set(c.model, (counts.get(c.model) ?? 0) + 1);
  const model = [...counts].sort((a, b) => b[1] - a[1])[0][0];
  const byId = new Map<string, RecordedCall>();
  for (const c of conv.calls) byId.set(c.key.slice(0, c.key.lastIndexOf('|')), c);
  const fit = fitNone(imp, model, byId, undefined, conv.events);
  const calls = imp.calls.map((c, i): ExplainedCall => {
    const r = c.apiMessageId && fit.billed[i] ? byId.get(c.apiMessageId) : undefined;
    const rec = r ? recordedRow(r) : undefined;
    const sim = simulatedRow(fit.steps[i]);
    const gapMs = i > 0 ? fit.timings[i].now + TTL_SLACK_MS - fit.timings[i - 1].refresh : undefined;
    return {
      call: i,
      model: fit.contexts[i].model,
      gapMinutes: gapMs !== undefined ? gapMs / 60000 : undefined,
      ttl: fit.timings[i].systemTtl === fit.timings[i].ttl ? fit.timings[i].ttl : `${fit.timings[i].systemTtl}/${fit.timings[i].ttl}`,
      recorded: rec,
      simulated: sim,
      costDelta: rec ? sim.cost - rec.cost : 0,
      rule: ruleOf(fit, i, rec, sim, gapMs),
    };
  });
  return { file, sessionId: conv.sessionId, agentId: conv.agentId, model, recordedCost: fit.recordedCost, simulatedCost: fit.simulatedCost, calls };
}

/** The explained conversations of one file whose session id, agent id or file name matches `session` (all when it names the file). */
export function explainFile(file: string, text: string, session: string): ExplainedSession[] {
  try {
    const rec = readRecorded(text, new Set());
    const all = file.includes(session);
    const convs = rec.conversations.filter((c) => all || c.sessionId?.startsWith(session) || c.agentId?.startsWith(session));
    return convs.map((c) => explainConversation(file, text, c, rec.hasMain)).filter((x): x is ExplainedSession => x !== undefined);
  } finally {
    releaseJsonLines();
  }
}

function usageCells(u: UsageRow | undefined): string {
  if (!u) return `${'—'.padStart(8)}${''.padStart(24)}${''.padStart(9)}`;
  return `${String(u.input).padStart(8)}${String(u.write5m).padStart(8)}${String(u.write1h).padStart(8)}${String(u.read).padStart(8)}${u.cost.toFixed(4).padStart(9)}`;
}

/** An explained session as text: a header, then one line per call. */
export function formatExplained(s: ExplainedSession): string {
  const err = s.recordedCost > 0 ? ` (${(100 * (s.simulatedCost / s.recordedCost - 1)).toFixed(1)}%)` : '';
  const head = [
    `${s.file}  session ${s.sessionId ?? '?'}${s.agentId ? ` agent ${s.agentId}` : ''}  model ${s.model}`,
    `recorded input-side $${s.recordedCost.toFixed(4)}, simulated none $${s.simulatedCost.toFixed(4)}${err}`,
    `call   gap(min) ttl    | recorded: input   w5m     w1h     read    cost | simulated: input w5m w1h read cost |   Δ$     rule`,
  ];
  const lines = s.calls.map((c) => {
    const gap = c.gapMinutes === undefined ? '' : c.gapMinutes.toFixed(1);
    const model = c.model === s.model ? '' : ` [${c.model}]`;
    return `${String(c.call).padStart(4)} ${gap.padStart(8)} ${c.ttl.padEnd(6)} |${usageCells(c.recorded)} |${usageCells(c.simulated)} | ${c.costDelta.toFixed(4).padStart(8)} ${c.rule}${model}`;
  });
  return [...head, ...lines].join('\n');
}
