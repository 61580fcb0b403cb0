import { describe, expect, it } from 'vitest';
import {
  canonicalModelId,
  contextWindow,
  costOf,
  minCacheableTokens,
  modelGeneration,
  modelInfo,
  prefillUnsupported,
} from '../../../src/core/cache/pricing';

describe('model ids', () => {
  it('parses generations of new, old, dated and provider-qualified ids', () => {
    expect(modelGeneration('claude-sonnet-4-5-20250929')).toEqual({ family: 'sonnet', major: 4, minor: 5 });
    expect(modelGeneration('claude-opus-4-20250514')).toEqual({ family: 'opus', major: 4, minor: 0 });
    expect(modelGeneration('claude-sonnet-5')).toEqual({ family: 'sonnet', major: 5, minor: 0 });
    expect(modelGeneration('claude-3-5-haiku-20241022')).toEqual({ family: 'haiku', major: 3, minor: 5 });
    expect(modelGeneration('us.anthropic.claude-opus-4-6-v1:0')).toEqual({ family: 'opus', major: 4, minor: 6 });
    expect(modelGeneration('claude-mythos-preview')).toBeUndefined();
    expect(canonicalModelId('claude-sonnet-4-5-20250929')).toBe('claude-sonnet-4-5');
  });

  it('4.6 and later need the conversation to end with a user message', () => {
    expect(prefillUnsupported('claude-sonnet-4-6')).toBe(true);
    expect(prefillUnsupported('claude-opus-4-8')).toBe(true);
    expect(prefillUnsupported('claude-sonnet-5')).toBe(true);
    expect(prefillUnsupported('claude-opus-5')).toBe(true);
    expect(prefillUnsupported('claude-sonnet-4-5-20250929')).toBe(false);
    expect(prefillUnsupported('claude-3-7-sonnet-20250219')).toBe(false);
    expect(prefillUnsupported('claude-mythos-preview')).toBeUndefined();
  });

  it('matches dated ids by longest prefix', () => {
    expect(modelInfo('claude-sonnet-4-5-20250929').key).toBe('claude-sonnet-4-5');
    expect(modelInfo('claude-haiku-4-5-20251001').key).toBe('claude-haiku-4-5');
    expect(modelInfo('claude-opus-4-20250514').key).toBe('claude-opus-4-0');
    expect(modelInfo('claude-opus-4-9').key).toBe('claude-opus'); // newer than the table: family fallback
    expect(modelInfo('claude-mythos-5').key).toBe('unknown');
  });

  it('minimum cacheable tokens and context windows from the reference', () => {
    expect(minCacheableTokens('claude-sonnet-4-6')).toBe(1024);
    expect(minCacheableTokens('claude-opus-4-1')).toBe(1024);
    expect(minCacheableTokens('claude-opus-4-7')).toBe(2048);
    expect(minCacheableTokens('claude-3-5-haiku-20241022')).toBe(2048);
    expect(minCacheableTokens('claude-opus-4-5-20251101')).toBe(4096);
    expect(minCacheableTokens('claude-opus-4-6')).toBe(4096);
    expect(minCacheableTokens('claude-haiku-4-5')).toBe(4096);
    expect(contextWindow('claude-sonnet-4-6')).toBe(1_000_000);
    expect(contextWindow('claude-sonnet-4-5')).toBe(200_000);
    expect(contextWindow('claude-haiku-4-5')).toBe(200_000);
  });
});

describe('costOf', () => {
  const usage = { input_tokens: 1_000_000, output_tokens: 1_000_000, cache_creation_input_tokens: 1_000_000, cache_read_input_tokens: 1_000_000 };

  it('prices input, output, 5m writes and reads per the table', () => {
    const c = costOf(usage, 'claude-sonnet-4-5-20250929', '5m');
    expect(c).toMatchObject({ input: 3, output: 15, cacheWrite: 3.75, modelKey: 'claude-sonnet-4-5', exactPrices: true });
    expect(c.cacheRead).toBeCloseTo(0.3);
    expect(c.total).toBeCloseTo(22.05);
    expect(costOf(usage, 'claude-opus-4-7').total).toBeCloseTo(5 + 25 + 6.25 + 0.5);
    expect(costOf(usage, 'claude-haiku-4-5').total).toBeCloseTo(1 + 5 + 1.25 + 0.1);
    expect(costOf(usage, 'claude-sonnet-5').total).toBeCloseTo(2 + 10 + 2.5 + 0.2);
    expect(costOf(usage, 'claude-opus-5').total).toBeCloseTo(5 + 25 + 6.25 + 0.5);
  });

  it('1h writes cost 2× input; a reported TTL split wins over the ttl argument', () => {
    expect(costOf(usage, 'claude-sonnet-4-6', '1h').cacheWrite).toBeCloseTo(6);
    const split = { ...usage, cache_creation: { ephemeral_5m_input_tokens: 500_000, ephemeral_1h_input_tokens: 500_000 } };
    expect(costOf(split, 'claude-sonnet-4-6', '5m').cacheWrite).toBeCloseTo(0.5 * 3.75 + 0.5 * 6);
  });

  it('prices are overridable by id or family prefix; unknown models are flagged', () => {
    const c = costOf(usage, 'claude-sonnet-4-5-20250929', '5m', { 'claude-sonnet': { input: 1, cacheRead: 0 } });
    expect(c).toMatchObject({ input: 1, output: 15, cacheRead: 0, exactPrices: true });
    expect(costOf(usage, 'claude-mythos-preview').exactPrices).toBe(false);
  });
});
