/**
 * One transcript file → its report rows: the main conversation and each
 * subagent, each with its recorded spend, the fit of `none` to that spend,
 * every strategy's simulated cost and the top offenders.
 */
import { parseTranscript } from '../import';
import { parseJson } from '../import/errors';
import { jsonLines, releaseJsonLines } from '../import/json-lines';
import type { ImportedSession } from '../session/types';
import type { PipelineConfig } from '../trimming';
import { fitNone } from './fit';
import { largestDifferences } from './call-rules';
import { dearerBecause, fitNotes, looseNote } from './fit-notes';
import { clineRecorded } from './cline-usage';
import { OffenderTally } from './offenders';
import { callCost, iterationsCost, readRecorded, totalsOf, type RecordedCall, type RecordedConversation } from './recorded';
import { priceStrategy } from './strategies';
import { missCauses } from './miss-causes';
import { usageSlots } from './usage-slots';
import { NOTHING_BILLED } from '../../views/report-summary';
import { ANCHOR_TOLERANCE, type SessionFit, type SessionReport, type Skipped, type StrategyResult } from '../../protocol/report-types';

/** Model id when a row has no call with a model. */
const UNKNOWN_MODEL = 'unknown';

export interface FileReportOptions {
  /** Strategies to price besides `none`. */
  readonly strategies: readonly string[];
  readonly config: PipelineConfig;
}

export interface FileReport {
  readonly rows: SessionReport[];
  readonly skipped: Skipped[];
  readonly badLines: number;
}

/** The model most calls used. */
function mainModel(calls: readonly RecordedCall[], fallback: string | undefined): string {
  const n = new Map<string, number>();
  for (const c of calls) n.set(c.model, (n.get(c.model) ?? 0) + 1);
  let best = fallback ?? UNKNOWN_MODEL;
  let most = 0;
  for (const [m, k] of n) if (k > most) [best, most] = [m, k];
  return best;
}

/** The lines of one subagent of a main file, as their own transcript. */
export function sidechainText(text: string, agentId: string | undefined): string {
  const out: string[] = [];
  for (const l of jsonLines(text)) {
    const r = l.rec as { isSidechain?: unknown; agentId?: unknown } | null | undefined;
    if (typeof r === 'object' && r !== null && r.isSidechain === true && (agentId === undefined || r.agentId === agentId)) out.push(l.raw);
  }
  return out.join('\n');
}

function pct(x: number): string {
  return `${(100 * x).toFixed(1)}%`;
}

/** An import error's message without the file name it starts with (the row names the file). */
function withoutFile(message: string, file: string): string {
  return message.startsWith(`${file}: `) ? message.slice(file.length + 2) : message;
}

function noFit(status: SessionFit['status'], note: string): SessionFit {
  return { status, error: null, medianCallTotalError: null, medianCallCostError: null, unexplainedShare: null, unanchoredError: null, notes: [note] };
}

/** Rows of one conversation (main or subagent) of a file; `parsed`: its import when already made (Cline). */
function conversationRow(file: string, text: string, conv: RecordedConversation, inMainFile: boolean, opts: FileReportOptions, parsed?: ImportedSession): SessionReport {
  const recorded = totalsOf(conv.calls);
  const base = {
    file,
    sessionId: conv.sessionId,
    ...(conv.cwd ? { cwd: conv.cwd } : {}),
    slots: usageSlots(conv.calls),
    sidechain: conv.sidechain,
    agentId: conv.agentId,
    calls: conv.calls.length,
    firstTimestamp: conv.firstTimestamp ?? conv.calls[0]?.timestamp,
    recorded,
    duplicates: conv.duplicates,
  };
  let imp: ImportedSession;
  try {
    imp = parsed ?? parseTranscript(conv.sidechain && inMainFile ? sidechainText(text, conv.agentId) : text, file);
  } catch (e) {
    return { ...base, model: mainModel(conv.calls, undefined), fit: noFit('not-replayable', withoutFile((e as Error).message, file)), strategies: {}, offenders: [] };
  }
  const model = mainModel(conv.calls, imp.model);
  if (!conv.calls.length) {
    const why = conv.duplicates ? 'every response is counted in another file' : 'no usage recorded';
    return { ...base, model, fit: noFit('no-usage', why), strategies: {}, offenders: [] };
  }
  const byId = new Map<string, RecordedCall>();
  for (const c of conv.calls) byId.set(c.key.slice(0, c.key.lastIndexOf('|')), c);
  const tally = new OffenderTally(imp, model);
  const fit = fitNone(imp, model, byId, tally, conv.events);
  if (!fit.billed.some(Boolean)) return { ...base, model, fit: noFit('not-replayable', 'no recorded response was found in the imported conversation'), strategies: {}, offenders: [] };
  const noneTokens = fit.steps.reduce((a, s, i) => a + (fit.billed[i] ? s.totalInput : 0), 0);
  // Steps billed apart inside calls (compaction iterations) are carried into every strategy as recorded.
  // So are billed responses the imported history does not hold (nothing to replay): at their recorded cost.
  const inHistory = new Set(imp.calls.map((c) => c.apiMessageId));
  const unmatched = conv.calls.filter((c) => !inHistory.has(c.key.slice(0, c.key.lastIndexOf('|'))));
  const apart = conv.calls.reduce((a, c) => a + iterationsCost(c.model, c.usage).input, 0) + unmatched.reduce((a, c) => a + callCost(c.model, c.usage).input, 0);
  const noneWrites = fit.steps.reduce((a, s, i) => a + (fit.billed[i] ? s.writeCost : 0), 0);
  const followsUnexplained = fit.unexplained.length > 0 && fit.unanchoredError !== undefined;
  const none: StrategyResult = {
    inputCost: fit.simulatedCost + apart,
    writeCost: noneWrites,
    tokensSent: noneTokens,
    retention: 1,
    ...(followsUnexplained ? { documentedInputCost: fit.recordedCost * (1 + (fit.unanchoredError ?? 0)) + apart } : {}),
  };
  const strategies: Record<string, StrategyResult> = { none };
  for (const s of opts.strategies) {
    if (s === 'none') continue;
    const c = priceStrategy(imp, model, fit, s, opts.config, { documented: followsUnexplained });
    const documented = c.documentedInputCost !== undefined ? c.documentedInputCost + apart : undefined;
    const why = dearerBecause(s, c, { inputCost: fit.simulatedCost, writeCost: noneWrites });
    strategies[s] = {
      inputCost: c.inputCost + apart,
      writeCost: c.writeCost,
      tokensSent: c.tokensSent,
      retention: noneTokens ? c.tokensSent / noneTokens : 1,
      ...(documented !== undefined ? { documentedInputCost: documented } : {}),
      ...(why ? { dearerBecause: why } : {}),
    };
  }
  const explained = fitNotes(fit, imp, recorded);
  for (const [name, v] of Object.entries(strategies)) {
    if (name === 'none' || v.documentedInputCost === undefined || !none.documentedInputCost) continue;
    explained.notes.push(`${name} saves ${pct(1 - v.inputCost / none.inputCost)} of none following the recording's misses, ${pct(1 - v.documentedInputCost / none.documentedInputCost)} with the documented cache rules alone`);
  }
  if (unmatched.length) explained.notes.push(`${unmatched.length} billed response(s) are not in the replayed history: carried at their recorded cost in every strategy`);
  const error = fit.costError ?? null;
  const anchored = error !== null && Math.abs(error) <= ANCHOR_TOLERANCE;
  const sessionFit: SessionFit = {
    status: anchored ? 'anchored' : 'loose',
    error,
    medianCallTotalError: fit.medianTotalError ?? null,
    medianCallCostError: fit.medianCallCostError ?? null,
    unexplainedShare: explained.unexplainedShare,
    unanchoredError: fit.unanchoredError ?? fit.costError ?? null,
    notes: anchored ? explained.notes : [looseNote(error ?? 0, largestDifferences(fit, byId, imp.calls)), ...explained.notes],
  };
  const otherModels = [...new Set(conv.calls.map((c) => c.model).filter((m) => m !== model))];
  const misses = missCauses(fit, byId, imp.calls);
  const others = otherModels.length ? { otherModels } : {};
  return { ...base, model, ...others, misses, fit: sessionFit, strategies, offenders: tally.top(file) };
}

/**
 * Report rows of one file's text. Claude Code JSONL gets recorded spend and
 * a fit, and so does a Cline task from its ui_messages.json (cline-usage.ts);
 * other formats hold no usage, so they are listed as not anchored. `counted` carries the responses counted so far.
 */
export function reportFile(file: string, text: string, counted: Set<string>, opts: FileReportOptions): FileReport {
  try {
    return reportText(file, text, counted, opts);
  } finally {
    releaseJsonLines();
  }
}

function reportText(file: string, text: string, counted: Set<string>, opts: FileReportOptions): FileReport {
  const rec = readRecorded(text, counted);
  if (rec.conversations.length) {
    const rows = rec.conversations.map((c) => conversationRow(file, text, c, rec.hasMain, opts));
    return { rows, skipped: [], badLines: rec.badLines };
  }
  if (rec.claudeCode) return { rows: [], skipped: [{ file, reason: NOTHING_BILLED }], badLines: rec.badLines };
  try {
    const imp = parseTranscript(text, file);
    const cline = imp.format === 'cline' ? clineRecorded(file, imp, counted) : undefined;
    if (cline?.ok) {
      const row = conversationRow(file, text, cline.conv, false, opts, cline.imp);
      return { rows: [{ ...row, fit: { ...row.fit, notes: [...row.fit.notes, ...cline.notes] } }], skipped: [], badLines: rec.badLines };
    }
    const calls = imp.calls.filter((c) => c.usage).length;
    const row: SessionReport = {
      file,
      sidechain: false,
      model: imp.model ?? UNKNOWN_MODEL,
      calls,
      recorded: totalsOf([]),
      fit: noFit('no-usage', cline ? cline.reason : `${imp.format}: no billed usage recorded, so nothing to anchor a counterfactual on`),
      strategies: {},
      offenders: [],
      duplicates: 0,
    };
    // Lines are JSONL's unit; a whole-JSON transcript over several lines has no corrupt lines to count.
    return { rows: [row], skipped: [], badLines: imp.format === 'claude-code' ? rec.badLines : 0 };
  } catch (e) {
    return { rows: [], skipped: [{ file, reason: withoutFile((e as Error).message, file) }], badLines: parseJson(text).ok ? 0 : rec.badLines };
  }
}
