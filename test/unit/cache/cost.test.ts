import { describe, expect, it } from 'vitest';
import { costOf } from '../../../src/core/cache/cost';

describe('costOf', () => {
  const usage = {
    input_tokens: 1_000_000,
    output_tokens: 1_000_000,
    cache_creation_input_tokens: 1_000_000,
    cache_read_input_tokens: 1_000_000,
  };

  it('prices input, output, 5m writes and reads per the table', () => {
    const c = costOf(usage, 'claude-sonnet-4-5-20250929', '5m');
    expect(c).toMatchObject({
      input: 3,
      output: 15,
      cacheWrite: 3.75,
      modelKey: 'claude-sonnet-4-5',
      exactPrices: true,
    });
    expect(c.cacheRead).toBeCloseTo(0.3);
    expect(c.total).toBeCloseTo(22.05);
    expect(costOf(usage, 'claude-opus-4-7').total).toBeCloseTo(5 + 25 + 6.25 + 0.5);
    expect(costOf(usage, 'claude-haiku-4-5').total).toBeCloseTo(1 + 5 + 1.25 + 0.1);
    expect(costOf(usage, 'claude-sonnet-5').total).toBeCloseTo(2 + 10 + 2.5 + 0.2);
    expect(costOf(usage, 'claude-opus-5').total).toBeCloseTo(5 + 25 + 6.25 + 0.5);
  });

  it('1h writes cost 2× input; a reported TTL split wins over the ttl argument', () => {
    expect(costOf(usage, 'claude-sonnet-4-6', '1h').cacheWrite).toBeCloseTo(6);
    const split = {
      ...usage,
      cache_creation: { ephemeral_5m_input_tokens: 500_000, ephemeral_1h_input_tokens: 500_000 },
    };
    expect(costOf(split, 'claude-sonnet-4-6', '5m').cacheWrite).toBeCloseTo(0.5 * 3.75 + 0.5 * 6);
  });

  it('prices are overridable by id or family prefix; unknown models are flagged', () => {
    const c = costOf(usage, 'claude-sonnet-4-5-20250929', '5m', { 'claude-sonnet': { input: 1, cacheRead: 0 } });
    expect(c).toMatchObject({ input: 1, output: 15, cacheRead: 0, exactPrices: true });
    expect(costOf(usage, 'claude-mythos-preview').exactPrices).toBe(false);
    expect(costOf(usage, 'claude-mythos-preview').modelKey).toBe('unknown');
  });

  it('an unknown version is priced like its closest known sibling, flagged approximate', () => {
    const c = costOf(usage, 'claude-opus-4-9');
    expect(c).toMatchObject({ modelKey: 'claude-opus-4-8', exactPrices: false });
    expect(c.total).toBeCloseTo(5 + 25 + 6.25 + 0.5);
  });
});
