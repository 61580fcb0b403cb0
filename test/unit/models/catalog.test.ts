import { describe, expect, it } from 'vitest';
import {
  MODEL_TABLE,
  canonicalModelId,
  contextWindow,
  minCacheableTokens,
  modelInfo,
  modelPrice,
  type TokenizerGeneration,
} from '../../../src/core/models';

const M = 1_000_000;
const K200 = 200_000;

interface Expected {
  /** An id as a client sends it. */
  readonly asSent: string;
  readonly key: string;
  /** Input / output / 5m write / read, USD per million. */
  readonly prices: readonly [number, number, number, number];
  readonly window: number;
  readonly min: number;
  readonly prefillUnsupported: boolean;
  readonly keepsPriorThinking: boolean;
  readonly tokenizer: TokenizerGeneration;
  /** Prices from the reference table (not guessed). */
  readonly referencePrice: boolean;
}

function row(
  asSent: string,
  key: string,
  prices: Expected['prices'],
  window: number,
  min: number,
  flags: [boolean, boolean, TokenizerGeneration],
  referencePrice: boolean,
): Expected {
  return {
    asSent,
    key,
    prices,
    window,
    min,
    prefillUnsupported: flags[0],
    keepsPriorThinking: flags[1],
    tokenizer: flags[2],
    referencePrice,
  };
}

/** Every row of the catalog, with its facts from docs/anthropic-api.md (or the documented assumption). */
const EXPECTED: readonly Expected[] = [
  row('claude-sonnet-4-6', 'claude-sonnet-4-6', [3, 15, 3.75, 0.3], M, 1024, [true, true, 'claude-4'], true),
  row(
    'claude-sonnet-4-5-20250929',
    'claude-sonnet-4-5',
    [3, 15, 3.75, 0.3],
    K200,
    1024,
    [false, false, 'claude-4'],
    true,
  ),
  row('claude-sonnet-4-20250514', 'claude-sonnet-4', [3, 15, 3.75, 0.3], K200, 1024, [false, false, 'claude-4'], false),
  row(
    'claude-3-7-sonnet-20250219',
    'claude-sonnet-3-7',
    [3, 15, 3.75, 0.3],
    K200,
    1024,
    [false, false, 'claude-4'],
    false,
  ),
  row('claude-opus-4-8', 'claude-opus-4-8', [5, 25, 6.25, 0.5], M, 1024, [true, true, 'claude-4.7'], true),
  row('claude-opus-4-7', 'claude-opus-4-7', [5, 25, 6.25, 0.5], M, 4096, [true, true, 'claude-4.7'], true),
  row('claude-opus-4-6[1m]', 'claude-opus-4-6', [5, 25, 6.25, 0.5], M, 4096, [true, true, 'claude-4'], true),
  row('claude-opus-4-5-20251101', 'claude-opus-4-5', [5, 25, 6.25, 0.5], K200, 4096, [false, true, 'claude-4'], false),
  row(
    'claude-opus-4-1-20250805',
    'claude-opus-4-1',
    [15, 75, 18.75, 1.5],
    K200,
    1024,
    [false, false, 'claude-4'],
    false,
  ),
  row('claude-opus-4-20250514', 'claude-opus-4', [15, 75, 18.75, 1.5], K200, 1024, [false, false, 'claude-4'], false),
  row('claude-haiku-4-5-20251001', 'claude-haiku-4-5', [1, 5, 1.25, 0.1], K200, 4096, [false, false, 'claude-4'], true),
  row(
    'claude-3-5-haiku-20241022',
    'claude-haiku-3-5',
    [0.8, 4, 1, 0.08],
    K200,
    2048,
    [false, false, 'claude-4'],
    false,
  ),
  row('claude-sonnet-5', 'claude-sonnet-5', [2, 10, 2.5, 0.2], M, 1024, [true, true, 'claude-4.7'], true),
  row('claude-opus-5', 'claude-opus-5', [5, 25, 6.25, 0.5], M, 2048, [true, true, 'claude-4.7'], true),
];

/** Rows whose every value the reference gives (the others say in `assumed` what is guessed). */
const FULLY_IN_REFERENCE = new Set([
  'claude-sonnet-4-6',
  'claude-sonnet-4-5',
  'claude-opus-4-8',
  'claude-opus-4-7',
  'claude-opus-4-6',
  'claude-haiku-4-5',
]);

describe('the catalog, row by row', () => {
  it('has an expectation for every row, and every key is canonical', () => {
    expect(EXPECTED.map((e) => e.key).sort()).toEqual(Object.keys(MODEL_TABLE).sort());
    for (const key of Object.keys(MODEL_TABLE)) expect(canonicalModelId(key)).toBe(key);
  });

  for (const e of EXPECTED) {
    it(`${e.asSent}: every fact`, () => {
      const m = modelInfo(e.asSent);
      expect(m).toMatchObject({
        id: e.key,
        key: e.key,
        match: 'exact',
        contextWindow: e.window,
        minCacheableTokens: e.min,
        prefillUnsupported: e.prefillUnsupported,
        keepsPriorThinking: e.keepsPriorThinking,
        tokenizer: e.tokenizer,
        priceAssumed: !e.referencePrice,
      });
      const [input, output, write5m, read] = e.prices;
      expect(m.price.input).toBe(input);
      expect(m.price.output).toBe(output);
      expect(m.price.cacheWrite5m).toBeCloseTo(write5m, 10);
      expect(m.price.cacheWrite1h).toBeCloseTo(2 * input, 10);
      expect(m.price.cacheRead).toBeCloseTo(read, 10);
      expect(m.assumed === undefined).toBe(FULLY_IN_REFERENCE.has(e.key));
      expect(minCacheableTokens(e.asSent)).toBe(e.min);
      expect(contextWindow(e.asSent)).toBe(e.window);
    });
  }
});

describe('ids the catalog does not list', () => {
  it('a newer version of a known family takes the closest older row and says so', () => {
    const m = modelInfo('claude-opus-4-9');
    expect(m).toMatchObject({
      id: 'claude-opus-4-9',
      key: 'claude-opus-4-8',
      match: 'family',
      priceAssumed: true,
      prefillUnsupported: true,
      tokenizer: 'claude-4.7',
    });
    expect(m.assumed).toContain('claude-opus-4-8');
    expect(modelInfo('claude-sonnet-6').key).toBe('claude-sonnet-5');
    expect(modelInfo('claude-opus-4-2').key).toBe('claude-opus-4-1');
  });

  it('an older version than every row takes the oldest row of the family', () => {
    expect(modelInfo('claude-3-haiku-20240307')).toMatchObject({
      key: 'claude-haiku-3-5',
      match: 'family',
      priceAssumed: true,
    });
  });

  it('an unknown family gets Opus prices, a 200k window, the common cache minimum, and says so', () => {
    const m = modelInfo('claude-mythos-preview');
    expect(m).toMatchObject({
      id: 'claude-mythos-preview',
      key: 'unknown',
      match: 'unknown',
      contextWindow: K200,
      minCacheableTokens: 1024,
      priceAssumed: true,
    });
    expect(m.price).toMatchObject({ input: 5, output: 25 });
    expect(m.assumed).toMatch(/unknown model/);
    expect(m.prefillUnsupported).toBeUndefined();
    expect(m.tokenizer).toBe('claude-4');
    expect(m.keepsPriorThinking).toBe(false);
    // A version without a known family still tells the generation rules.
    expect(modelInfo('claude-mythos-5')).toMatchObject({
      key: 'unknown',
      prefillUnsupported: true,
      tokenizer: 'claude-4.7',
      keepsPriorThinking: true,
    });
  });
});

describe('context-size suffix', () => {
  it('[1m] selects the 1M window, even on a 200k model; other facts unchanged', () => {
    expect(contextWindow('claude-sonnet-4-5-20250929[1m]')).toBe(M);
    expect(contextWindow('claude-sonnet-4-5-20250929')).toBe(K200);
    expect(modelInfo('claude-sonnet-4-5[1m]')).toMatchObject({
      key: 'claude-sonnet-4-5',
      minCacheableTokens: 1024,
      prefillUnsupported: false,
    });
  });
});

describe('price overrides', () => {
  it('merge over the table by id or family prefix; the longest match wins; overridden prices are exact', () => {
    const overrides = { 'claude-sonnet': { input: 1 }, 'claude-sonnet-4-5': { output: 9 } };
    expect(modelInfo('claude-sonnet-4-5-20250929', overrides)).toMatchObject({
      price: { input: 3, output: 9 },
      priceAssumed: false,
    });
    expect(modelPrice('claude-sonnet-4-6', overrides)).toMatchObject({ input: 1, output: 15 });
    expect(modelPrice('claude-opus-4-6', overrides)).toMatchObject({ input: 5, output: 25 });
  });

  it('cache prices an override does not name follow its input price through the multipliers', () => {
    const p = modelPrice('claude-sonnet-4-6', { 'claude-sonnet-4-6': { input: 2 } });
    expect(p).toMatchObject({ input: 2, output: 15, cacheWrite5m: 2.5, cacheWrite1h: 4 });
    expect(p.cacheRead).toBeCloseTo(0.2, 10);
    expect(modelPrice('claude-sonnet-4-6', { 'claude-sonnet-4-6': { input: 2, cacheRead: 0 } }).cacheRead).toBe(0);
  });

  it('override keys are normalized like ids (a dated key matches)', () => {
    expect(modelPrice('claude-haiku-4-5', { 'claude-haiku-4-5-20251001': { input: 2 } }).input).toBe(2);
    expect(modelInfo('claude-mythos-preview', { 'claude-mythos': { input: 7 } })).toMatchObject({
      price: { input: 7 },
      priceAssumed: false,
    });
  });

  it('do not leak into lookups without overrides', () => {
    modelInfo('claude-sonnet-4-6', { 'claude-sonnet': { input: 1 } });
    expect(modelPrice('claude-sonnet-4-6').input).toBe(3);
  });
});
