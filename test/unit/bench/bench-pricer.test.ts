/**
 * The bench's cost figures are the report's (issue 26: every figure from one pricer): on a small fixture
 * session, the engine section's cost per strategy is what `trimline report` prints for that file and
 * strategy, and the inspector's (transcriptBill) too.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importTranscript } from '../../../src/core/import';
import { reportFile } from '../../../src/core/report/session-report';
import { mainRow, transcriptBill } from '../../../src/core/report/transcript-bill';
import { CONTENDERS, runOne } from '../../bench/engine-bench';
import { setupSession } from '../../bench/session-setup';

// CC0-1.0, test/fixtures/transcripts/NOTICE.md: a 20-call Claude Code session.
const FILE = join(__dirname, '../../fixtures/transcripts/m-claude/343e3472-b9b6-4561-ade0-21d1a4730c11.jsonl');
const contender = (name: string) => CONTENDERS.find((c) => c.name === name)!;

describe("the bench prices with the report's pricer", () => {
  const s = setupSession(importTranscript(FILE));
  const report = mainRow(
    reportFile(FILE, readFileSync(FILE, 'utf8'), new Set(), {
      strategies: ['default', 'tool-pruning'],
      config: {},
    }).rows,
  )!;

  it.each(['none', 'default', 'tool-pruning'])('%s costs what report says', (name) => {
    const row = runOne(s, contender(name)).row;
    expect(row.pricedBy).toBe('report');
    expect(row.inputCost).toBe(report.strategies[name]!.inputCost);
    expect(row.inputCost).toBeGreaterThan(0);
  });

  it("default's share of none is the inspector's too", () => {
    const none = runOne(s, contender('none')).row.inputCost;
    const def = runOne(s, contender('default')).row.inputCost;
    const bill = transcriptBill(importTranscript(FILE), 'default', {})!;
    expect(def / none).toBeCloseTo(bill.strategyCost / bill.none, 12);
    expect(def).toBeLessThan(none);
  });
});
