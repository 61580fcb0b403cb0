/**
 * One transcript file → its report rows: the main conversation and each
 * subagent, each with its recorded spend, the fit of `none` to that spend,
 * every strategy's simulated cost and the top offenders.
 */
import { readTranscriptRecord, type TranscriptRecord } from '../import';
import { parseJson } from '../import/errors';
import { jsonLines, releaseJsonLines } from '../import/json-lines';
import type { RecordedCall, RecordedSession } from '../import/recorded';
import type { ImportedSession } from '../session/types';
import type { PipelineConfig } from '../trimming';
import { fitNone } from './fit';
import { largestDifferences } from './call-rules';
import { dearerBecause, fitNotes, looseNote } from './fit-notes';
import { OffenderTally } from './offenders';
import { callCost, iterationsCost, totalsOf } from './recorded';
import { priceStrategy } from './strategies';
import { missCauses } from './miss-causes';
import { usageSlots } from './usage-slots';
import { NOTHING_BILLED } from '../../views/report-summary';
import {
  ANCHOR_TOLERANCE,
  type SessionFit,
  type SessionReport,
  type Skipped,
  type StrategyResult,
} from '../../protocol/report-types';

/** Why a file of a format that records no usage has no fit (after the format's name). */
const NO_USAGE = 'no billed usage recorded, so nothing to anchor a counterfactual on';

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

function pct(x: number): string {
  return `${(100 * x).toFixed(1)}%`;
}

/** An import error's message without the file name it starts with (the row names the file). */
function withoutFile(message: string, file: string): string {
  return message.startsWith(`${file}: `) ? message.slice(file.length + 2) : message;
}

function noFit(status: SessionFit['status'], note: string): SessionFit {
  return {
    status,
    error: null,
    medianCallTotalError: null,
    medianCallCostError: null,
    unexplainedShare: null,
    unanchoredError: null,
    notes: [note],
  };
}

/** The row of one conversation (main or subagent) of a file, with the notes its importer adds. */
function conversationRow(file: string, conv: RecordedSession, opts: FileReportOptions): SessionReport {
  const row = fittedRow(file, conv, opts);
  return conv.notes?.length ? { ...row, fit: { ...row.fit, notes: [...row.fit.notes, ...conv.notes] } } : row;
}

function fittedRow(file: string, conv: RecordedSession, opts: FileReportOptions): SessionReport {
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
    imp = conv.session();
  } catch (e) {
    return {
      ...base,
      model: mainModel(conv.calls, undefined),
      fit: noFit('not-replayable', withoutFile((e as Error).message, file)),
      strategies: {},
      offenders: [],
    };
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
  if (!fit.billed.some(Boolean))
    return {
      ...base,
      model,
      fit: noFit('not-replayable', 'no recorded response was found in the imported conversation'),
      strategies: {},
      offenders: [],
    };
  const noneTokens = fit.steps.reduce((a, s, i) => a + (fit.billed[i] ? s.totalInput : 0), 0);
  // Steps billed apart inside calls (compaction iterations) are carried into every strategy as recorded.
  // So are billed responses the imported history does not hold (nothing to replay): at their recorded cost.
  const inHistory = new Set(imp.calls.map((c) => c.apiMessageId));
  const unmatched = conv.calls.filter((c) => !inHistory.has(c.key.slice(0, c.key.lastIndexOf('|'))));
  const apart =
    conv.calls.reduce((a, c) => a + iterationsCost(c.model, c.usage).input, 0) +
    unmatched.reduce((a, c) => a + callCost(c.model, c.usage).input, 0);
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
    explained.notes.push(
      `${name} saves ${pct(1 - v.inputCost / none.inputCost)} of none following the recording's misses, ` +
        `${pct(1 - v.documentedInputCost / none.documentedInputCost)} with the documented cache rules alone`,
    );
  }
  if (unmatched.length)
    explained.notes.push(
      `${unmatched.length} billed response(s) are not in the replayed history: ` +
        'carried at their recorded cost in every strategy',
    );
  const error = fit.costError ?? null;
  const anchored = error !== null && Math.abs(error) <= ANCHOR_TOLERANCE;
  const sessionFit: SessionFit = {
    status: anchored ? 'anchored' : 'loose',
    error,
    medianCallTotalError: fit.medianTotalError ?? null,
    medianCallCostError: fit.medianCallCostError ?? null,
    unexplainedShare: explained.unexplainedShare,
    unanchoredError: fit.unanchoredError ?? fit.costError ?? null,
    notes: anchored
      ? explained.notes
      : [looseNote(error ?? 0, largestDifferences(fit, byId, imp.calls)), ...explained.notes],
  };
  const otherModels = [...new Set(conv.calls.map((c) => c.model).filter((m) => m !== model))];
  const misses = missCauses(fit, byId, imp.calls);
  const others = otherModels.length ? { otherModels } : {};
  return { ...base, model, ...others, misses, fit: sessionFit, strategies, offenders: tally.top(file) };
}

/**
 * Report rows of one file's text: each conversation its importer's `recorded` hands over
 * (TranscriptImporter, import/detect.ts) gets its recorded spend and a fit; a file whose
 * format records no usage is listed as not anchored. `counted` carries the responses counted so far.
 */
export function reportFile(file: string, text: string, counted: Set<string>, opts: FileReportOptions): FileReport {
  try {
    return reportText(file, text, counted, opts);
  } finally {
    releaseJsonLines();
  }
}

/** Lines of a text that is not one JSON document and that do not parse (a file no importer could read). */
function unreadableLines(text: string): number {
  return parseJson(text).ok ? 0 : jsonLines(text).filter((l) => l.error !== undefined).length;
}

function skippedFile(file: string, text: string, e: unknown): FileReport {
  const reason = withoutFile((e as Error).message, file);
  return { rows: [], skipped: [{ file, reason }], badLines: unreadableLines(text) };
}

function reportText(file: string, text: string, counted: Set<string>, opts: FileReportOptions): FileReport {
  let src: TranscriptRecord;
  try {
    src = readTranscriptRecord(text, file, counted);
  } catch (e) {
    return skippedFile(file, text, e);
  }
  const rec = src.recorded;
  if (rec.conversations.length) {
    return { rows: rec.conversations.map((c) => conversationRow(file, c, opts)), skipped: [], badLines: rec.badLines };
  }
  if (rec.nothingBilled) return { rows: [], skipped: [{ file, reason: NOTHING_BILLED }], badLines: rec.badLines };
  let imp: ImportedSession;
  try {
    imp = src.session();
  } catch (e) {
    return skippedFile(file, text, e);
  }
  const row: SessionReport = {
    file,
    sidechain: false,
    model: imp.model ?? UNKNOWN_MODEL,
    calls: imp.calls.filter((c) => c.usage).length,
    recorded: totalsOf([]),
    fit: noFit('no-usage', rec.reason ?? `${src.format}: ${NO_USAGE}`),
    strategies: {},
    offenders: [],
    duplicates: 0,
  };
  return { rows: [row], skipped: [], badLines: rec.badLines };
}
