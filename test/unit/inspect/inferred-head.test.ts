/**
 * The inspector of a transcript (issue 26): the system prompt and tools the transcript does not
 * hold are shown as inferred rows, sized from the first call's recorded usage as the report
 * sizes them, and the session's `none` is the report's (same bill model), within 1%.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInspect } from '../../../src/cli/inspect';
import { importTranscript } from '../../../src/core/import';
import { buildReport } from '../../../src/core/report';
import { ReplayInspector } from '../../../src/host/standalone/replay-inspector';

// m-claude (CC0-1.0, see test/fixtures/transcripts/SOURCES.md): a 20-call Opus 4.5 session.
const FILE = join(__dirname, '../../fixtures/transcripts/m-claude/343e3472-b9b6-4561-ade0-21d1a4730c11.jsonl');

function reportNone(): { none: number; lastTotal: number } {
  const rep = buildReport({ paths: [FILE], strategies: ['none'], config: {} });
  const row = rep.sessions.find((s) => !s.sidechain)!;
  const calls = importTranscript(FILE).calls.filter((c) => c.usage);
  const u = calls.at(-1)!.usage!;
  const lastTotal = u.input_tokens + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
  return { none: row.strategies.none!.inputCost, lastTotal };
}

describe('inspect of a transcript', () => {
  const report = reportNone();

  it("prints the inferred system prompt and tools as rows and its none total is the report's", () => {
    const out = JSON.parse(runInspect(FILE, { strategy: 'none', config: {}, json: true })) as {
      bill: { none: number };
      inferred: { rows: { ref: string; tokens: number }[]; note: string };
    };
    expect(Math.abs(out.bill.none / report.none - 1)).toBeLessThan(0.01);
    const inferred = out.inferred.rows.reduce((n, r) => n + r.tokens, 0);
    // The recorded first call holds ~25k tokens of system prompt and tools the transcript lacks.
    expect(inferred).toBeGreaterThan(10_000);
    expect(out.inferred.note).toMatch(/inferred/);
    const text = runInspect(FILE, { strategy: 'none', config: {}, json: false });
    expect(text).toMatch(/^system\.0 +system +inferred/m);
    expect(text).toContain(`none $${report.none.toFixed(3)}`);
  });

  it("the served inspector's session cost is the report's none and its context counts the inferred prefix", () => {
    const inspector = new ReplayInspector(importTranscript(FILE), { strategy: 'none' });
    const s = inspector.snapshot();
    expect(Math.abs(s.cost.session / report.none - 1)).toBeLessThan(0.01);
    expect(s.totals.inferredTokens).toBeGreaterThan(10_000);
    // The next request reads the inferred prefix from the cache, and its price says so.
    expect(s.cost.nextTokens.cacheRead).toBeGreaterThanOrEqual(s.totals.inferredTokens!);
    // The next request is about as large as the last recorded call (within 15%: it adds that call's response).
    expect(Math.abs(s.totals.sentTokens / report.lastTotal - 1)).toBeLessThan(0.15);
    const head = inspector.handle({ op: 'head' }) as { rows: { section: string; text: string }[] };
    expect(head.rows.length).toBeGreaterThan(0);
    expect(head.rows.every((r) => r.section === 'system' && /inferred/.test(r.text))).toBe(true);
  });
});
