import { describe, expect, it } from 'vitest';
import {
  Calibrator,
  CLAUDE_4_PRIOR,
  MIN_CALIBRATION_SAMPLES,
  RawCounter,
  TokenEstimator,
  usageDelta,
  type UsageSample,
} from '../../../src/core/tokens';
import type { CallRecord, ContentBlockParam } from '../../../src/core/session';

/** Deterministic PRNG (mulberry32) so the synthetic data is the same on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  'alpha',
  'beta',
  'gamma',
  'delta',
  'function',
  'return',
  'const',
  'value',
  'error',
  'path',
  'file',
  'the',
  'of',
  '42',
  '{',
  '}',
  '();',
];
function words(r: () => number, n: number): string {
  return Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]).join(r() < 0.2 ? '\n' : ' ');
}

/** A tool loop step: assistant (text? + tool_use) then user (tool_result). */
function step(r: () => number, i: number): ContentBlockParam[] {
  const blocks: ContentBlockParam[] = [];
  if (r() < 0.5) blocks.push({ type: 'text', text: words(r, 5 + Math.floor(r() * 40)) });
  blocks.push({
    type: 'tool_use',
    id: `toolu_${i}`,
    name: 'Bash',
    input: { command: words(r, 3 + Math.floor(r() * 10)) },
  });
  blocks.push({ type: 'tool_result', tool_use_id: `toolu_${i}`, content: words(r, 10 + Math.floor(r() * 800)) });
  return blocks;
}

/** Synthetic truth: a known ratio and overheads, with ±3% noise. */
const TRUE_RATIO = 1.4;
const TRUE_PER_TOOL_BLOCK = 30;
const TRUE_PER_MESSAGE = 5;
function truth(raw: RawCounter, blocks: ContentBlockParam[], r: () => number): number {
  let t = 2 * TRUE_PER_MESSAGE;
  for (const b of blocks) {
    if (b.type === 'text') t += TRUE_RATIO * raw.count(b.text);
    if (b.type === 'tool_use')
      t += TRUE_PER_TOOL_BLOCK + TRUE_RATIO * raw.count(`${b.name} ${JSON.stringify(b.input)}`);
    if (b.type === 'tool_result') t += TRUE_PER_TOOL_BLOCK + TRUE_RATIO * raw.count(b.content as string);
  }
  return Math.round(t * (1 + (r() - 0.5) * 0.06));
}

function sample(model: string, blocks: ContentBlockParam[], trueDelta: number): UsageSample {
  return { model, addedBlocks: blocks, addedMessages: 2, trueDelta };
}

describe('Calibrator', () => {
  it('converges on synthetic data with a known ratio', () => {
    const r = rng(7);
    const c = new Calibrator();
    const raw = c.extractor.raw;
    for (let i = 0; i < 300; i++) {
      const b = step(r, i);
      c.observe(sample('claude-sonnet-4-5', b, truth(raw, b, r)));
    }
    const p = c.parameters('claude-sonnet-4-5');
    expect(p.ratio).toBeCloseTo(TRUE_RATIO, 1);
    expect(Math.abs(p.classRatio.tool_result - TRUE_RATIO)).toBeLessThan(0.05);
    expect(Math.abs(p.perToolBlock - TRUE_PER_TOOL_BLOCK)).toBeLessThan(8);
    // Held-out steps: relative error of predictions.
    const errs: number[] = [];
    for (let i = 0; i < 100; i++) {
      const b = step(r, 1000 + i);
      const t = truth(raw, b, () => 0.5);
      errs.push(Math.abs(c.predict('claude-sonnet-4-5', c.extractor.blocks(b, 2)) - t) / t);
    }
    errs.sort((a, b) => a - b);
    expect(errs[50]).toBeLessThan(0.03);
  });

  it('starts from the documented prior and learns per model', () => {
    const c = new Calibrator();
    expect(c.parameters('claude-sonnet-4-5').ratio).toBe(CLAUDE_4_PRIOR.ratio);
    expect(c.parameters('claude-opus-4-7').ratio).toBeCloseTo(CLAUDE_4_PRIOR.ratio * 1.3, 5);
    const r = rng(3);
    for (let i = 0; i < 50; i++) {
      const b = step(r, i);
      c.observe(sample('claude-opus-4-7-20260101', b, 2 * truth(c.extractor.raw, b, r)));
    }
    expect(c.parameters('claude-opus-4-7').ratio).toBeGreaterThan(2);
    // Another generation is untouched; models of the same generation share a pooled prior.
    expect(c.parameters('claude-sonnet-4-5').ratio).toBe(CLAUDE_4_PRIOR.ratio);
    expect(c.parameters('claude-opus-5').ratio).toBeGreaterThan(2);
    expect(c.quality('claude-opus-5')).toBe('estimated');
  });

  it('goes estimated → calibrated after MIN_CALIBRATION_SAMPLES accepted deltas; rejected ones do not count', () => {
    const est = new TokenEstimator({ model: 'claude-sonnet-4-5' });
    const block: ContentBlockParam = { type: 'text', text: 'some words here' };
    expect(est.quality()).toBe('estimated');
    expect(est.block(block).quality).toBe('estimated');
    const r = rng(11);
    expect(est.observe({ addedBlocks: step(r, 0), trueDelta: -500 })).toMatchObject({
      accepted: false,
      reason: 'nonpositive',
    });
    expect(est.observe({ addedBlocks: [], trueDelta: 100 })).toMatchObject({ accepted: false, reason: 'empty' });
    for (let i = 0; i < MIN_CALIBRATION_SAMPLES - 1; i++) {
      const b = step(r, i);
      expect(est.observe({ addedBlocks: b, trueDelta: truth(est.calibrator.extractor.raw, b, r) }).accepted).toBe(true);
    }
    expect(est.quality()).toBe('estimated');
    const b = step(r, 99);
    est.observe({ addedBlocks: b, trueDelta: truth(est.calibrator.extractor.raw, b, r) });
    expect(est.quality()).toBe('calibrated');
    expect(est.block(block).quality).toBe('calibrated');
    expect(est.forModel('claude-opus-4-7').quality()).toBe('estimated');
    expect(est.calibrator.parameters('claude-sonnet-4-5').rejected).toBe(2);
  });

  it('learns from a negative delta when removed blocks explain it', () => {
    const c = new Calibrator();
    const thinking: ContentBlockParam = {
      type: 'thinking',
      thinking: 'earlier reasoning that the API stops counting '.repeat(30),
      signature: 's',
    };
    const added: ContentBlockParam[] = [{ type: 'text', text: 'next question' }];
    const predicted =
      c.predict('claude-sonnet-4-5', c.extractor.blocks(added, 1)) -
      c.predict('claude-sonnet-4-5', c.extractor.blocks([thinking]));
    expect(predicted).toBeLessThan(0);
    const res = c.observe({
      model: 'claude-sonnet-4-5',
      addedBlocks: added,
      addedMessages: 1,
      removedBlocks: [thinking],
      trueDelta: Math.round(predicted),
    });
    expect(res).toEqual({ accepted: true, predicted: expect.closeTo(predicted, 6) });
    expect(
      c.observe({ model: 'claude-sonnet-4-5', addedBlocks: added, addedMessages: 1, trueDelta: -200 }).reason,
    ).toBe('nonpositive');
  });

  it('rejects outliers once calibrated, but follows a persistent change', () => {
    const c = new Calibrator();
    const r = rng(5);
    for (let i = 0; i < 20; i++) {
      const b = step(r, i);
      c.observe(sample('m', b, truth(c.extractor.raw, b, r)));
    }
    const b = step(r, 100);
    const t = truth(c.extractor.raw, b, r);
    expect(c.observe(sample('m', b, t * 5)).reason).toBe('outlier');
    const results = Array.from({ length: 6 }, (_, i) => {
      const s = step(r, 200 + i);
      return c.observe(sample('m', s, 3 * truth(c.extractor.raw, s, r))).accepted;
    });
    expect(results.slice(0, 2)).toEqual([false, false]);
    expect(results).toContain(true);
  });

  it('round-trips its state through JSON', () => {
    const est = new TokenEstimator({ model: 'claude-sonnet-4-5-20250929' });
    const r = rng(9);
    for (let i = 0; i < 30; i++) {
      const b = step(r, i);
      est.observe({ addedBlocks: b, trueDelta: truth(est.calibrator.extractor.raw, b, r) });
    }
    const saved = JSON.parse(JSON.stringify(est.toJSON())) as unknown;
    const back = TokenEstimator.fromJSON(saved, { model: 'claude-sonnet-4-5' });
    const probe = step(r, 500);
    for (const b of probe) expect(back.block(b)).toEqual(est.block(b));
    expect(back.calibrator.parameters('claude-sonnet-4-5')).toEqual(est.calibrator.parameters('claude-sonnet-4-5'));
    expect(back.toJSON()).toEqual(est.toJSON());
  });

  it('ignores a malformed saved state instead of throwing', () => {
    for (const bad of [null, 42, { version: 2 }, { version: 1, models: { m: { a: [1], b: [], samples: 'x' } } }]) {
      const c = Calibrator.fromJSON(bad);
      expect(c.quality('m')).toBe('estimated');
      expect(c.toJSON()).toEqual({ version: 1, models: {} });
    }
  });
});

describe('usageDelta', () => {
  const usage = (n: number) => ({
    input_tokens: 5,
    cache_creation_input_tokens: n,
    cache_read_input_tokens: 1000,
    output_tokens: 10,
  });
  const call = (index: number, at: number, epochStart: number, n: number): CallRecord => ({
    index,
    at,
    epochStart,
    usage: usage(n),
  });
  it('is the difference of total inputs within an epoch, undefined across a compaction', () => {
    expect(usageDelta(call(0, 1, 0, 100), call(1, 3, 0, 350))).toBe(250);
    expect(usageDelta(call(0, 1, 0, 100), call(1, 3, 2, 350))).toBeUndefined();
    expect(usageDelta(call(0, 1, 0, 100), { index: 1, at: 3, epochStart: 0 })).toBeUndefined();
  });
});
