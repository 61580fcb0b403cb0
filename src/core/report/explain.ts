/**
 * `trimline report --explain SESSION`: one session's calls, the recorded usage
 * against the simulated `none`, and the rule that decided each difference.
 * The same fit as the report's row (fitNone), shown per call instead of summed.
 */
import { readTranscriptRecord, type TranscriptRecord } from '../import';
import { releaseJsonLines } from '../import/json-lines';
import type { RecordedCall, RecordedSession } from '../import/recorded';
import { fitNone } from './fit';
import { gapOf, recordedRow, ruleOf, simulatedRow, type UsageRow } from './call-rules';

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

export type { UsageRow } from './call-rules';

export interface ExplainedSession {
  readonly file: string;
  readonly sessionId?: string;
  readonly agentId?: string;
  readonly model: string;
  readonly recordedCost: number;
  readonly simulatedCost: number;
  readonly calls: ExplainedCall[];
}

function explainConversation(file: string, conv: RecordedSession): ExplainedSession | undefined {
  if (!conv.calls.length) return undefined;
  const imp = conv.session();
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
    const gapMs = gapOf(fit, i);
    return {
      call: i,
      model: fit.contexts[i].model,
      gapMinutes: gapMs !== undefined ? gapMs / 60000 : undefined,
      ttl:
        fit.timings[i].systemTtl === fit.timings[i].ttl
          ? fit.timings[i].ttl
          : `${fit.timings[i].systemTtl}/${fit.timings[i].ttl}`,
      recorded: rec,
      simulated: sim,
      costDelta: rec ? sim.cost - rec.cost : 0,
      rule: ruleOf(fit, i, rec, sim, gapMs),
    };
  });
  return {
    file,
    sessionId: conv.sessionId,
    agentId: conv.agentId,
    model,
    recordedCost: fit.recordedCost,
    simulatedCost: fit.simulatedCost,
    calls,
  };
}

/**
 * The explained conversations of one file whose session id, agent id or file name matches `session` (all when it names
 * the file).
 */
export function explainFile(file: string, text: string, session: string): ExplainedSession[] {
  try {
    let src: TranscriptRecord;
    try {
      src = readTranscriptRecord(text, file, new Set());
    } catch {
      return []; // not a transcript: nothing recorded to explain
    }
    const all = file.includes(session);
    const named = (c: RecordedSession): boolean =>
      all || !!c.sessionId?.startsWith(session) || !!c.agentId?.startsWith(session);
    const convs = src.recorded.conversations.filter(named);
    return convs.map((c) => explainConversation(file, c)).filter((x): x is ExplainedSession => x !== undefined);
  } finally {
    releaseJsonLines();
  }
}

function usageCells(u: UsageRow | undefined): string {
  if (!u) return `${'—'.padStart(8)}${''.padStart(24)}${''.padStart(9)}`;
  const cells = [u.input, u.write5m, u.write1h, u.read].map((n) => String(n).padStart(8)).join('');
  return `${cells}${u.cost.toFixed(4).padStart(9)}`;
}

/** An explained session as text: a header, then one line per call. */
export function formatExplained(s: ExplainedSession): string {
  const err = s.recordedCost > 0 ? ` (${(100 * (s.simulatedCost / s.recordedCost - 1)).toFixed(1)}%)` : '';
  const head = [
    `${s.file}  session ${s.sessionId ?? '?'}${s.agentId ? ` agent ${s.agentId}` : ''}  model ${s.model}`,
    `recorded input-side $${s.recordedCost.toFixed(4)}, simulated none $${s.simulatedCost.toFixed(4)}${err}`,
    'call   gap(min) ttl    | recorded: input   w5m     w1h     read    cost ' +
      '| simulated: input w5m w1h read cost |   Δ$     rule',
  ];
  const lines = s.calls.map((c) => {
    const gap = c.gapMinutes === undefined ? '' : c.gapMinutes.toFixed(1);
    const model = c.model === s.model ? '' : ` [${c.model}]`;
    const head = `${String(c.call).padStart(4)} ${gap.padStart(8)} ${c.ttl.padEnd(6)}`;
    const cells = `|${usageCells(c.recorded)} |${usageCells(c.simulated)} |`;
    return `${head} ${cells} ${c.costDelta.toFixed(4).padStart(8)} ${c.rule}${model}`;
  });
  return [...head, ...lines].join('\n');
}
