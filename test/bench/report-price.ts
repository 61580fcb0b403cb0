/**
 * The bench's cost figures, from the report's pricer (issue 26: every figure from one pricer). A bench
 * session's cost under a contender is what `trimline report` says for that file's main conversation
 * (`reportFile`, the row `mainRow` picks, the same one `inspect` shows): the bench calls the report, it
 * does not price the requests again. The bench keeps its own measures of validity, user text,
 * references and tokens on its own replay.
 */
import { readFileSync } from 'node:fs';
import { mainRow } from '../../src/core/report/transcript-bill';
import { reportFile } from '../../src/core/report/session-report';
import type { StrategyResult } from '../../src/protocol/report-types';
import type { PipelineConfig } from '../../src/core/trimming';

export interface ReportPrice {
  /** Input-side USD of the strategy, as `report` prints it. */
  readonly inputCost: number;
  /** The same with the documented cache rules alone (the recording's own misses not followed). */
  readonly documentedInputCost: number;
}

/** Priced reports per file and config: one fit per file and config, every strategy asked so far. */
const memo = new Map<string, Map<string, StrategyResult>>();

function key(file: string, config: PipelineConfig | undefined): string {
  return `${file}\u0000${JSON.stringify(config ?? {})}`;
}

/**
 * What `report` says `spec` costs on `file` (its main conversation) under `config`, or undefined when the
 * report cannot price the file (no recorded usage). `alongside`: other specs to price in the same pass.
 */
export function reportPrice(
  file: string,
  spec: string,
  config?: PipelineConfig,
  alongside: readonly string[] = [],
): ReportPrice | undefined {
  const k = key(file, config);
  let priced = memo.get(k);
  if (!priced?.has(spec)) {
    const strategies = [...new Set([spec, ...alongside])].filter((x) => x !== 'none' && !priced?.has(x));
    let rows;
    try {
      rows = reportFile(file, readFileSync(file, 'utf8'), new Set(), { strategies, config: config ?? {} }).rows;
    } catch {
      return undefined;
    }
    const row = mainRow(rows);
    if (!row) return undefined;
    priced = new Map([...(priced ?? []), ...Object.entries(row.strategies)]);
    memo.set(k, priced);
  }
  const r = priced.get(spec);
  return r && { inputCost: r.inputCost, documentedInputCost: r.documentedInputCost ?? r.inputCost };
}
