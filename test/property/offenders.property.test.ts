/**
 * The offenders tally's lazy accounting (whole-read results counted on a prefix and settled when they
 * leave the request) against its definition, pricing every sent result on every billed call, over random
 * step sequences: requests that grow, change a message in the middle, start over, shift the prompt's
 * start, are not billed, and read any share of the prompt from cache.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { modelPrice } from '../../src/core/models';
import type { BillBlock, BillStep, SpanParts } from '../../src/core/report/bill-model';
import { OffenderTally, spanCost } from '../../src/core/report/offenders';
import type { ImportedSession } from '../../src/core/session/types';

const RUNS = Math.max(200, Math.floor(Number(process.env.TRIMLINE_PROP_RUNS ?? 10_000) / 10));
const MODEL = 'claude-sonnet-4-5-20250929';
const RESULTS = 12;

/** A session whose tool results are r0…r11 (what the tally asks the log). */
const IMP = {
  messages: [
    {
      blocks: Array.from({ length: RESULTS }, (_, i) => ({
        id: `r${i}`,
        param: { type: 'tool_result', tool_use_id: `u${i}`, content: '' },
        toolName: 'Read',
      })),
    },
  ],
} as unknown as ImportedSession;

type Op =
  | { kind: 'append'; blocks: { result: number; tokens: number }[] }
  | { kind: 'change'; at: number; blocks: { result: number; tokens: number }[] }
  | { kind: 'restart' }
  | { kind: 'start'; start: number }
  | { kind: 'call'; read: number; written: number; billed: boolean; hour: boolean };

const blocksArb = fc.array(
  fc.record({ result: fc.integer({ min: -1, max: RESULTS - 1 }), tokens: fc.integer({ min: 1, max: 5000 }) }),
  { minLength: 1, maxLength: 3 },
);
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: blocksArb.map((blocks) => ({ kind: 'append' as const, blocks })) },
  {
    weight: 3,
    arbitrary: fc.record({ at: fc.nat(), blocks: blocksArb }).map((r) => ({ kind: 'change' as const, ...r })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 3 }).map((k) => ({ kind: 'start' as const, start: k * 1000 })) },
  {
    weight: 6,
    arbitrary: fc
      .record({
        read: fc.double({ min: 0, max: 1, noNaN: true }),
        written: fc.double({ min: 0, max: 1, noNaN: true }),
        billed: fc.boolean(),
        hour: fc.boolean(),
      })
      .map((r) => ({ kind: 'call' as const, ...r })),
  },
);

/** One message as billed: its blocks (a result's id is its log id; -1 is some other block). */
function message(blocks: { result: number; tokens: number }[], serial: number): SpanParts {
  const folded = blocks.map((b, i): { block: BillBlock; tokens: number } => {
    const id = b.result >= 0 ? `r${b.result}` : `x${serial}.${i}`;
    return {
      block: { id, tokens: b.tokens, thinking: false, logId: b.result >= 0 ? id : undefined },
      tokens: b.tokens,
    };
  });
  return { folded };
}

describe('OffenderTally (property)', () => {
  it('equals pricing every sent result on every billed call', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 5, maxLength: 60, size: 'large' }), (ops) => {
        const tally = new OffenderTally(IMP, MODEL);
        const price = modelPrice(MODEL);
        const want = new Map<string, { tokens: number; sent: number; dollars: number }>();
        let msgs: SpanParts[] = [];
        let start = 0;
        let serial = 0;
        for (const o of ops) {
          if (o.kind === 'append') msgs = [...msgs, message(o.blocks, serial++)];
          else if (o.kind === 'change' && msgs.length)
            msgs = msgs.map((m, i) => (i === o.at % msgs.length ? message(o.blocks, serial++) : m));
          else if (o.kind === 'restart') msgs = [];
          else if (o.kind === 'start') start = o.start;
          else if (o.kind === 'call') {
            tally.spans(msgs, start);
            const total = start + msgs.reduce((a, m) => a + m.folded.reduce((x, f) => x + f.tokens, 0), 0);
            const readTokens = o.read * total;
            const step = { readTokens, writtenUpTo: readTokens + o.written * (total - readTokens) } as BillStep;
            tally.commit(step, o.hour ? '1h' : '5m', o.billed);
            if (!o.billed) continue;
            let pos = start;
            for (const m of msgs) {
              for (const f of m.folded) {
                if (f.block.logId) {
                  const row = want.get(f.block.logId) ?? { tokens: f.tokens, sent: 0, dollars: 0 };
                  row.sent++;
                  row.dollars += spanCost(pos, f.tokens, step, price, o.hour ? '1h' : '5m');
                  want.set(f.block.logId, row);
                }
                pos += f.tokens;
              }
            }
          }
        }
        const got = tally.top('f', Number.MAX_SAFE_INTEGER);
        expect(got).toHaveLength(want.size);
        const norm = (rows: { tokens: number; timesResent: number; dollars: number }[]) =>
          rows
            .map((r) => [r.tokens, r.timesResent, r.dollars] as const)
            .sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
        const exp = norm(
          [...want.values()].map((r) => ({
            tokens: Math.round(r.tokens),
            timesResent: Math.max(0, r.sent - 1),
            dollars: r.dollars,
          })),
        );
        const act = norm(got);
        act.forEach((r, i) => {
          expect([r[0], r[1]]).toEqual([exp[i][0], exp[i][1]]);
          expect(Math.abs(r[2] - exp[i][2])).toBeLessThanOrEqual(1e-9 * Math.max(1e-6, exp[i][2]));
        });
      }),
      { numRuns: RUNS },
    );
  });
});
