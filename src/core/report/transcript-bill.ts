/**
 * The report's figures for one transcript, for the inspector (issue 26): what `none` and a
 * strategy cost by the bill model `trimline report` uses (the same function, so the inspector's
 * `none` is the report's), and the system prompt and tools the transcript does not hold, sized
 * from the first call's recorded usage as the report sizes them (sizing.ts).
 */
import { readFileSync } from 'node:fs';
import type { ImportedSession } from '../session/types';
import type { PipelineConfig } from '../trimming';
import type { SessionReport } from '../../protocol/report-types';
import type { InferredPrefix } from './bill-types';
import { reportFile } from './session-report';
import { sizeSession } from './sizing';

export interface TranscriptBill {
  /** The session's main model (the report row's). */
  readonly model: string;
  /** Input-side USD: simulated `none`, the strategy asked for (the same as none for `none`), and recorded. */
  readonly none: number;
  readonly strategy: string;
  readonly strategyCost: number;
  readonly recorded: number;
  /** `none` lands within the report's tolerance of the recorded bill. */
  readonly anchored: boolean;
  /** The inferred system prompt and tools of the main model: tokens and whether other sessions kept them warm. */
  readonly prefix: InferredPrefix;
}

/**
 * The report's row for the session `imp` (its main conversation, or the one conversation a
 * subagent file holds), or undefined when the transcript records no usage to price it by.
 * `text`: the file's text when the caller has it (else it is read from `imp.file`).
 */
export function transcriptBill(
  imp: ImportedSession,
  strategy: string,
  config: PipelineConfig,
  text?: string,
): TranscriptBill | undefined {
  try {
    const body = text ?? readFileSync(imp.file, 'utf8');
    const strategies = strategy === 'none' ? [] : [strategy];
    const rows = reportFile(imp.file, body, new Set(), { strategies, config }).rows;
    const row = mainRow(rows);
    const none = row?.strategies.none;
    if (!row || !none) return undefined;
    const priced = strategy === 'none' ? none : row.strategies[strategy];
    return {
      model: row.model,
      none: none.inputCost,
      strategy,
      strategyCost: priced?.inputCost ?? none.inputCost,
      recorded: row.recorded.inputCost,
      anchored: row.fit.status === 'anchored',
      prefix: sizeSession(imp, row.model).prefix,
    };
  } catch {
    // A transcript the report cannot price (unreadable, no usage): the inspector shows what it has.
    return undefined;
  }
}

/** The row a transcript's figures are read from: its main conversation, else the first priced one. */
export function mainRow(rows: readonly SessionReport[]): SessionReport | undefined {
  return rows.find((r) => !r.sidechain && r.strategies.none) ?? rows.find((r) => r.strategies.none);
}

const SHARED = 'tool definitions and the stable system prompt';
const SESSION = "the project's system block and injected reminders";

/** The inferred prefix as the inspector's rows: the shared part (tools, stable system) and the session's own. */
export function inferredHeadRows(p: InferredPrefix): { ref: string; tokens: number; what: string }[] {
  const rows: { ref: string; tokens: number; what: string }[] = [];
  if (p.shared > 0) rows.push({ ref: 'system.0', tokens: p.shared, what: SHARED });
  if (p.session > 0) rows.push({ ref: `system.${rows.length}`, tokens: p.session, what: SESSION });
  return rows;
}

/** Why the rows are there, for every surface that shows them. */
export const INFERRED_NOTE =
  'inferred: the transcript does not hold the system prompt and tools; ' +
  "sized from the first call's recorded usage, as `trimline report` does";
