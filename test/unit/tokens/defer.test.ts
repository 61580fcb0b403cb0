/**
 * Deferred counting for latency paths: big texts are estimated from their characters
 * (provisional, quality `estimated`), nothing is encoded for them until `refine`, and
 * refining makes every holder of counts (estimator, message index) exact again.
 */
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ContextEngine } from '../../../src/core/engine';
import { importTranscript } from '../../../src/core/import';
import { Session, type ContentBlockParam } from '../../../src/core/session';
import {
  CharRatios,
  cl100kCount,
  PRIOR_CHARS_PER_TOKEN,
  RawCounter,
  TokenEstimator,
  type DeferPolicy,
} from '../../../src/core/tokens';
import { MessageIndex } from '../../../src/core/trimming';
import { TRANSCRIPT_DIR } from '../../bench/tokens';

const POLICY: DeferPolicy = { minChars: 512, budgetChars: 1_000 };
const big = (seed: string, n = 2_000): string =>
  Array.from({ length: n / 20 }, (_, i) => `${seed}${i}`.padEnd(19, '.')).join('\n');

describe('RawCounter with a defer policy', () => {
  it('estimates a big text from its characters without encoding it, the same way until refined', () => {
    const encode = vi.fn((t: string) => Math.ceil(t.length / 2));
    const rc = new RawCounter({ encode, defer: POLICY });
    const text = big('a');
    const first = rc.quick(text, 'code');
    expect(first).toEqual({ tokens: Math.round(text.length / PRIOR_CHARS_PER_TOKEN.code), exact: false });
    expect(rc.quick(text, 'code')).toEqual(first);
    expect(encode).not.toHaveBeenCalled();
    expect(rc.stats()).toMatchObject({ pending: 1, pendingChars: text.length });

    const generation = rc.generation;
    expect(rc.refine(text.length)).toBe(0);
    expect(encode).toHaveBeenCalledTimes(1);
    expect(rc.generation).toBeGreaterThan(generation);
    expect(rc.quick(text, 'code')).toEqual({ tokens: Math.ceil(text.length / 2), exact: true });
    expect(rc.stats()).toMatchObject({ pending: 0, pendingChars: 0 });
  });

  it('encodes short texts exactly until the per-call budget is spent, then estimates them too', () => {
    const encode = vi.fn((t: string) => t.length);
    const rc = new RawCounter({ encode, defer: POLICY });
    const short = (i: number): string => `short text number ${i} `.repeat(10).slice(0, 200);
    const results = [0, 1, 2, 3, 4, 5].map((i) => rc.quick(short(i)));
    // 1,000 chars of budget: five 200-char texts exact, the sixth estimated.
    expect(results.map((r) => r.exact)).toEqual([true, true, true, true, true, false]);
    rc.newBudget();
    expect(rc.quick(short(6)).exact).toBe(true);
  });

  it('refines oldest first, about maxChars at a time, and an exact count resolves a pending estimate', () => {
    const encode = vi.fn((t: string) => t.length);
    const rc = new RawCounter({ encode, defer: POLICY });
    const texts = ['a', 'b', 'c', 'd'].map((s) => big(s));
    for (const t of texts) rc.quick(t);
    expect(rc.refine(texts[0].length)).toBe(3);
    expect(encode.mock.calls.map((c) => c[0])).toEqual([texts[0]]);
    expect(rc.count(texts[2])).toBe(texts[2].length);
    expect(rc.stats().pending).toBe(2);
    expect(rc.refine(Infinity)).toBe(0);
    expect(encode).toHaveBeenCalledTimes(4);
  });

  it('counts a huge text in slices of at most maxChars per step, to the same total (issue 27)', () => {
    const lengths: number[] = [];
    const rc = new RawCounter({ encode: (t) => (lengths.push(t.length), cl100kCount(t)), defer: POLICY });
    const text = 'a line of tool output, 42 words\n'.repeat(6_000);
    rc.quick(text);
    expect(rc.refine(4_096)).toBe(1);
    expect(lengths).toHaveLength(1);
    expect(lengths[0]).toBeLessThanOrEqual(4_096);
    while (rc.refine(4_096) > 0);
    expect(Math.max(...lengths)).toBeLessThanOrEqual(4_096);
    expect(lengths.reduce((a, b) => a + b)).toBe(text.length);
    expect(rc.quick(text)).toEqual({ tokens: cl100kCount(text), exact: true });
  });

  it('a text whose count throws keeps its estimate and leaves the queue: the next step goes on (issue 27)', () => {
    const rc = new RawCounter({
      encode: (t) =>
        t.startsWith('bad')
          ? (() => {
              throw new RangeError('boom');
            })()
          : t.length,
      defer: POLICY,
    });
    const bad = `bad${big('x')}`;
    const estimate = rc.quick(bad).tokens;
    rc.quick(big('y'));
    expect(() => rc.refine(Infinity)).toThrow('boom');
    expect(rc.quick(bad)).toEqual({ tokens: estimate, exact: true });
    expect(rc.refine(Infinity)).toBe(0);
    expect(rc.quick(big('y')).exact).toBe(true);
  });

  it('without a policy every count is exact, as before', () => {
    const encode = vi.fn((t: string) => t.length);
    const rc = new RawCounter({ encode });
    expect(rc.quick(big('x'))).toEqual({ tokens: 2_000 - 1, exact: true });
  });
});

describe('CharRatios', () => {
  it('learns a class ratio from exact counts, starting at the measured prior', () => {
    const r = new CharRatios();
    expect(r.charsPerToken('code')).toBeCloseTo(PRIOR_CHARS_PER_TOKEN.code, 5);
    for (let i = 0; i < 50; i++) r.observe('code', 4_000, 2_000);
    expect(r.charsPerToken('code')).toBeGreaterThan(2);
    expect(r.charsPerToken('code')).toBeLessThan(2.1);
    expect(r.charsPerToken('text')).toBeCloseTo(PRIOR_CHARS_PER_TOKEN.text, 5);
    // Short texts say little about the ratio: ignored.
    r.observe('text', 10, 10);
    expect(r.charsPerToken('text')).toBeCloseTo(PRIOR_CHARS_PER_TOKEN.text, 5);
  });

  it('estimates a real transcript within 10% of its exact cl100k total from the prior alone', () => {
    const imp = importTranscript(join(TRANSCRIPT_DIR, '43391f62-680a-4688-9dd8-3637467d6b23.jsonl'));
    const exact = new TokenEstimator();
    const quick = new TokenEstimator({ rawCounter: new RawCounter({ defer: { minChars: 0, budgetChars: 0 } }) });
    let e = 0;
    let q = 0;
    let provisional = 0;
    for (const m of imp.messages)
      for (const b of m.blocks) {
        e += exact.block(b.param).tokens;
        const c = quick.block(b.param);
        q += c.tokens;
        if (c.provisional) provisional++;
      }
    expect(provisional).toBeGreaterThan(50);
    expect(Math.abs(q - e) / e).toBeLessThan(0.1);
  });
});

describe('estimates in the estimator and the message index', () => {
  function session(): Session {
    const s = new Session({ model: 'claude-sonnet-4-5' });
    s.append('user', 'Read the files.');
    for (let i = 0; i < 6; i++) {
      s.append('assistant', [{ type: 'tool_use', id: `toolu_${i}`, name: 'Read', input: { file_path: `f${i}.ts` } }]);
      s.append('user', [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: big(`line ${i} `, 3_000) }]);
    }
    return s;
  }

  it('a provisional block is `estimated` and becomes exact (the same count as never deferring) after refine', () => {
    const est = new TokenEstimator({ defer: POLICY });
    const block: ContentBlockParam = { type: 'tool_result', tool_use_id: 'toolu_1', content: big('z', 5_000) };
    const first = est.block(block);
    expect(first).toMatchObject({ quality: 'estimated', provisional: true });
    est.refine(Infinity);
    const refined = est.block(block);
    expect(refined.provisional).toBeUndefined();
    expect(refined.tokens).toBe(new TokenEstimator().block(block).tokens);
  });

  it('the message index counts estimated messages again once refined, and only then agrees with an exact index', () => {
    const s = session();
    const est = new TokenEstimator({ defer: POLICY });
    const idx = new MessageIndex(s, est);
    idx.update();
    const exactIdx = new MessageIndex(s, new TokenEstimator());
    exactIdx.update();
    const n = s.messages.length;
    expect(idx.provisionalMessages).toBe(6);
    expect(idx.rangeTokens(0, n)).not.toBe(exactIdx.rangeTokens(0, n));
    est.refine(Infinity);
    idx.update();
    expect(idx.provisionalMessages).toBe(0);
    expect(idx.rangeTokens(0, n)).toBe(exactIdx.rangeTokens(0, n));
    expect(idx.originalTokens(0, n)).toBe(exactIdx.originalTokens(0, n));
    expect(idx.messageTokens(4)).toBe(exactIdx.messageTokens(4));
  });

  it('the engine reports estimated quality while counts are provisional, and calibrates from exact counts only', () => {
    const s = session();
    const engine = new ContextEngine(s, { strategy: 'none', estimator: new TokenEstimator({ defer: POLICY }) });
    const first = engine.prepare({ callIndex: 0, now: 1_000 });
    expect(first.stats.quality).toBe('estimated');
    expect(engine.tokens.pending()).toBe(6);
    engine.observeUsage({ input_tokens: 10_000, output_tokens: 10 }, s.messages.length, 0, true);
    s.append('assistant', [{ type: 'tool_use', id: 'toolu_9', name: 'Read', input: { file_path: 'g.ts' } }]);
    s.append('user', [{ type: 'tool_result', tool_use_id: 'toolu_9', content: big('new ', 4_000) }]);
    engine.prepare({ callIndex: 1, now: 2_000 });
    expect(engine.tokens.pending()).toBe(7);
    const observe = vi.spyOn(engine.tokens.calibrator, 'observe');
    engine.observeUsage({ input_tokens: 12_000, output_tokens: 10 }, s.messages.length, 0, true);
    expect(observe).toHaveBeenCalledTimes(1);
    // The added block was encoded for the sample, not learned from as an estimate.
    expect(engine.tokens.pending()).toBe(6);
    while (engine.tokens.refine(4_096) > 0);
    expect(engine.prepare({ callIndex: 2, now: 3_000 }).stats.quality).toBe(engine.tokens.quality());
    expect(engine.index.provisionalMessages).toBe(0);
  });
});
