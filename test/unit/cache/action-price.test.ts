/** The price of an inspector action against the prompt cache: rewrite, saving per call, break-even. */
import { describe, expect, it } from 'vitest';
import { priceAction } from '../../../src/core/cache/action-price';
import { costOf } from '../../../src/core/cache/cost';

const MODEL = 'claude-sonnet-4-6';
const base = { model: MODEL, ttl: '5m' as const, callsSoFar: 10, idleMs: 30_000 };

describe('priceAction', () => {
  it('rewrite = write minus read of the cached tokens after the edit; saving = read price of the tokens saved; break-even between', () => {
    const p = priceAction({ ...base, rewriteTokens: 20_000, tokensPerCall: 2_000 });
    const write = costOf({ input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 20_000 }, MODEL).total;
    const read = costOf({ input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 20_000 }, MODEL).total;
    expect(p.rewriteCost).toBeCloseTo(write - read, 12);
    expect(p.savingPerCall).toBeCloseTo(costOf({ input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 2_000 }, MODEL).total, 12);
    // (1.25 - 0.1) × 20k / (0.1 × 2k) = 115 calls: more than the 10 expected.
    expect(p.breakEvenCalls).toBe(115);
    expect(p.expectedCalls).toBe(10);
    expect(p.paysBack).toBe(false);
    expect(p.summary).toContain('pays back after 115 calls');
  });

  it('a big saving on a short cached tail pays back', () => {
    const p = priceAction({ ...base, rewriteTokens: 1_000, tokensPerCall: 30_000 });
    expect(p.breakEvenCalls).toBe(1);
    expect(p.paysBack).toBe(true);
  });

  it('on a cold cache the rewrite is free; a restore (more tokens per call) never pays back', () => {
    const cold = priceAction({ ...base, idleMs: 6 * 60_000, rewriteTokens: 20_000, tokensPerCall: 2_000 });
    expect(cold).toMatchObject({ cold: true, rewriteCost: 0, rewriteTokens: 0, breakEvenCalls: 0, paysBack: true });
    const hour = priceAction({ ...base, ttl: '1h', idleMs: 6 * 60_000, rewriteTokens: 20_000, tokensPerCall: 2_000 });
    expect(hour.cold).toBe(false);
    const restore = priceAction({ ...base, rewriteTokens: 5_000, tokensPerCall: -3_000 });
    expect(restore.savingPerCall).toBeLessThan(0);
    expect(restore.breakEvenCalls).toBeNull();
    expect(restore.paysBack).toBe(false);
    expect(restore.summary).toContain('adds 3.0k tokens');
  });
});
