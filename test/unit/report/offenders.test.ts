/**
 * The offenders tally settles most calls lazily (a read call on a prefix of the results, settled
 * when a result leaves the request): it must give what pricing every sent result on every billed
 * call gives, result by result, on sessions with microcompacts, model switches, side calls,
 * 1-hour writes and long tool loops.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTranscript } from '../../../src/core/import';
import { modelPrice } from '../../../src/core/models';
import type { BillStep, SpanSink } from '../../../src/core/report/bill-model';
import { fitNone } from '../../../src/core/report/fit';
import { OffenderTally, spanCost } from '../../../src/core/report/offenders';
import { readRecorded } from '../../../src/core/import/claude-code-usage';
import type { RecordedCall } from '../../../src/core/import/recorded';

/** The plain definition: every billed call prices every tool result it sent by where it sat. */
class EveryCall {
  readonly rows = new Map<string, { tokens: number; sent: number; dollars: number }>();
  private sent: { id: string; start: number; tokens: number }[] = [];
  constructor(
    private readonly results: ReadonlySet<string>,
    private readonly model: string,
  ) {}

  readonly spans: SpanSink = (parts, start) => {
    this.sent = [];
    let pos = start;
    for (const p of parts) {
      for (const f of p.folded) {
        if (f.block.logId && f.block.id === f.block.logId && this.results.has(f.block.logId))
          this.sent.push({ id: f.block.logId, start: pos, tokens: f.tokens });
        pos += f.tokens;
      }
    }
  };

  commit(step: BillStep, ttl: '5m' | '1h', billed: boolean): void {
    if (!billed) return;
    const price = modelPrice(this.model);
    for (const s of this.sent) {
      const row = this.rows.get(s.id) ?? { tokens: s.tokens, sent: 0, dollars: 0 };
      row.sent++;
      row.dollars += spanCost(s.start, s.tokens, step, price, ttl);
      this.rows.set(s.id, row);
    }
  }
}

const FILES = [
  'test/fixtures/transcripts/m-claude/3cfce0ff-0725-47be-a572-f8af8122b71e.jsonl',
  'test/fixtures/transcripts/m-claude/abc757d1-3da3-42fb-bb7b-ffa293a4ba29.jsonl',
  'test/fixtures/report-causes/everything.jsonl',
  'test/fixtures/report-causes/microcompact.jsonl',
  'test/fixtures/report-causes/model-switch.jsonl',
  'test/fixtures/report-causes/side-calls.jsonl',
  'test/fixtures/report-causes/one-hour-mixed.jsonl',
];

describe('OffenderTally', () => {
  it.each(FILES)('equals pricing every sent result on every billed call: %s', (path) => {
    const text = readFileSync(resolve(path), 'utf8');
    const imp = parseTranscript(text, path);
    const rec = readRecorded(text, new Set());
    const conv = rec.conversations[0];
    const byId = new Map<string, RecordedCall>(conv.calls.map((c) => [c.key.split('|')[0], c]));
    const model = imp.model ?? conv.calls[0].model;
    const results = new Set(
      imp.messages.flatMap((m) => m.blocks.filter((b) => b.param.type === 'tool_result').map((b) => b.id)),
    );
    const lazy = new OffenderTally(imp, model);
    const plain = new EveryCall(results, model);
    fitNone(imp, model, byId, lazy, conv.events);
    fitNone(imp, model, byId, plain, conv.events);

    const got = lazy.top(path, Number.MAX_SAFE_INTEGER);
    const want = [...plain.rows.values()];
    expect(want.length).toBeGreaterThan(0);
    expect(got).toHaveLength(want.length);
    type Row = { tokens: number; timesResent: number; dollars: number };
    const order = (a: Row, b: Row): number =>
      a.tokens - b.tokens || a.timesResent - b.timesResent || a.dollars - b.dollars;
    const expected = want
      .map((r) => ({ tokens: Math.round(r.tokens), timesResent: Math.max(0, r.sent - 1), dollars: r.dollars }))
      .sort(order);
    const actual = got.map((r) => ({ tokens: r.tokens, timesResent: r.timesResent, dollars: r.dollars })).sort(order);
    actual.forEach((r, i) => {
      expect([r.tokens, r.timesResent]).toEqual([expected[i].tokens, expected[i].timesResent]);
      expect(Math.abs(r.dollars - expected[i].dollars)).toBeLessThanOrEqual(1e-9 * Math.max(1e-6, expected[i].dollars));
    });
    // Ranked by cost, dearest first.
    for (let i = 1; i < got.length; i++) expect(got[i - 1].dollars).toBeGreaterThanOrEqual(got[i].dollars - 1e-10);
  });
});
