/**
 * Recorded spend: each response once (final record), 1-hour writes priced apart, subagents apart, copies never twice.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRecorded } from '../../../src/core/import/claude-code-usage';
import { recordedUsage } from '../../../src/core/import/recorded';
import { callCost, totalsOf } from '../../../src/core/report/recorded';

const DIR = resolve('test/fixtures/report/projects/-home-u-proj');
const MAIN = `${DIR}/11111111-1111-4111-8111-111111111111.jsonl`;
const SUB = `${DIR}/11111111-1111-4111-8111-111111111111/subagents/agent-b2.jsonl`;
/** claude-sonnet-4-5 per million: input 3, 5m write 3.75, 1h write 6, read 0.30, output 15. */
const M = 1_000_000;

describe('readRecorded', () => {
  it('counts a response written over three lines once, with its final usage (not the message_start placeholder)', () => {
    const rec = readRecorded(readFileSync(MAIN, 'utf8'), new Set());
    const main = rec.conversations.find((c) => !c.sidechain)!;
    expect(main.calls.map((c) => c.key)).toEqual(['msg_A|req_1', 'msg_B|req_2']);
    expect(main.calls[0].usage.output_tokens).toBe(120);
  });

  it('prices 1-hour cache writes at 2× input and 5-minute ones at 1.25×, output apart', () => {
    const rec = readRecorded(readFileSync(MAIN, 'utf8'), new Set());
    const main = rec.conversations.find((c) => !c.sidechain)!;
    const t = totalsOf(main.calls);
    // msg_A: 3 in, 2000 5m writes, 14000 reads; msg_B: 5 in, 800 1h writes, 16000 reads.
    expect(t.inputCost).toBeCloseTo((3 * 3 + 2000 * 3.75 + 14000 * 0.3 + 5 * 3 + 800 * 6 + 16000 * 0.3) / M, 12);
    expect(t.outputCost).toBeCloseTo(((120 + 40) * 15) / M, 12);
    expect(t.cacheWrite1hTokens).toBe(800);
  });

  it('keeps subagent lines of the parent file as their own conversation, skips synthetic entries, counts corrupt lines', () => {
    const rec = readRecorded(readFileSync(MAIN, 'utf8'), new Set());
    const side = rec.conversations.filter((c) => c.sidechain);
    expect(side).toHaveLength(1);
    expect(side[0].agentId).toBe('a1');
    expect(side[0].calls.map((c) => c.model)).toEqual(['claude-haiku-4-5-20251001']);
    expect(rec.conversations.flatMap((c) => c.calls).some((c) => c.key.startsWith('msg_X'))).toBe(false);
    expect(rec.badLines).toBe(1);
    expect(rec.hasMain).toBe(true);
  });

  it('never counts a response twice across files: a copied line in a subagent file is a duplicate', () => {
    const counted = new Set<string>();
    readRecorded(readFileSync(MAIN, 'utf8'), counted);
    const sub = readRecorded(readFileSync(SUB, 'utf8'), counted);
    expect(sub.hasMain).toBe(false);
    expect(sub.conversations).toHaveLength(1);
    expect(sub.conversations[0].calls.map((c) => c.key)).toEqual(['msg_T|req_5']);
    expect(sub.conversations[0].duplicates).toBe(1);
  });

  it('without a split, writes are 5-minute ones; a partial split leaves the rest as 5-minute writes', () => {
    expect(
      recordedUsage({ input_tokens: 1, output_tokens: 2, cache_creation_input_tokens: 100 }).cache_creation,
    ).toEqual({ ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 0 });
    expect(
      recordedUsage({ cache_creation_input_tokens: 100, cache_creation: { ephemeral_1h_input_tokens: 30 } })
        .cache_creation,
    ).toEqual({ ephemeral_5m_input_tokens: 70, ephemeral_1h_input_tokens: 30 });
    expect(
      callCost(
        'claude-opus-4-5',
        recordedUsage({
          cache_creation_input_tokens: 1_000_000,
          cache_creation: { ephemeral_1h_input_tokens: 1_000_000, ephemeral_5m_input_tokens: 0 },
        }),
      ).input,
    ).toBeCloseTo(10, 9);
  });
});
