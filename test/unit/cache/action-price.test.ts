/** The price of an inspector action against the prompt cache: rewrite, saving per call, break-even. */
import { describe, expect, it } from 'vitest';
import { priceAction } from '../../../src/core/cache/action-price';
import { quoteRewrite } from '../../../src/core/cache/break-even';
import { costOf } from '../../../src/core/cache/cost';
import { expectedWarmCalls } from '../../../src/core/cache/warm-calls';
import { modelPrice } from '../../../src/core/models';

const MODEL = 'claude-sonnet-4-6';
const base = { model: MODEL, ttl: '5m' as const, callsSoFar: 10, idleMs: 30_000 };
/** A whole sentence from regex parts. */
const sentence = (...parts: string[]): RegExp => new RegExp(`^${parts.join('')}$`);

describe('priceAction', () => {
  it('prices with the one pricer: rewrite = (B − S)·write − B·read, saving = S·read, break-even between', () => {
    const p = priceAction({ ...base, rewriteTokens: 20_000, tokensPerCall: 2_000, expectedCalls: 10 });
    const q = quoteRewrite(20_000, 2_000, '5m', 10);
    const perToken = modelPrice(MODEL).input / 1_000_000;
    expect(p.rewriteCost).toBeCloseTo(q.rewriteCost * perToken, 12);
    expect(p.savingPerCall).toBeCloseTo(
      costOf({ input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 2_000 }, MODEL).total,
      12,
    );
    // ((20k − 2k) × 1.25 − 20k × 0.1) / (2k × 0.1) = 102.5 → 103 calls: more than the 10 expected.
    expect(p.breakEvenCalls).toBe(103);
    expect(p.expectedCalls).toBe(10);
    expect(p.paysBack).toBe(false);
    expect(p.summary).toContain('pays back after 103 calls');
  });

  it("without the engine's estimate, the expected calls come from the calls made so far (warm-calls.ts)", () => {
    const p = priceAction({ ...base, rewriteTokens: 20_000, tokensPerCall: 2_000 });
    expect(p.expectedCalls).toBe(
      Math.round(expectedWarmCalls({ loopLengths: [], gapsMs: [], currentLoopCalls: 10 }, 5 * 60_000).calls),
    );
  });

  it('a big saving on a short cached tail pays back', () => {
    const p = priceAction({ ...base, rewriteTokens: 1_000, tokensPerCall: 30_000 });
    expect(p.breakEvenCalls).toBe(0);
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
    expect(restore.summary).toContain('Adds 3.0k tokens');
  });

  it('says each price in one complete sentence: rewrite, per call, pay-back, calls expected (issue 29)', () => {
    const never = priceAction({ ...base, rewriteTokens: 5_900, tokensPerCall: 0, expectedCalls: 12 });
    expect(never.summary).toMatch(
      sentence(
        String.raw`Rewrites 5\.9k cached tokens on the next call \(\$[\d.]+ extra\), `,
        'and saves nothing per call, ',
        'so it never pays back; about 12 more calls are expected',
      ),
    );
    const trim = priceAction({ ...base, rewriteTokens: 20_000, tokensPerCall: 2_000, expectedCalls: 10 });
    expect(trim.summary).toMatch(
      sentence(
        String.raw`Rewrites 20\.0k cached tokens on the next call \(\$[\d.]+ extra\), `,
        String.raw`and saves 2\.0k tokens \(\$[\d.]+\) on every later call, `,
        'so it pays back after 103 calls; about 10 more calls are expected',
      ),
    );
    const cheap = priceAction({ ...base, rewriteTokens: 2_000, tokensPerCall: 1_900, expectedCalls: 3 });
    expect(cheap.summary).toMatch(
      sentence(
        String.raw`Rewrites 2\.0k cached tokens on the next call at no extra cost .*, `,
        String.raw`and saves 1\.9k tokens .* on every later call; about 3 more calls are expected`,
      ),
    );
    // A restore is a cost, not a saving: what it adds per call first, then the rewrite, and no pay-back.
    const restore = priceAction({ ...base, rewriteTokens: 5_000, tokensPerCall: -3_000, expectedCalls: 8 });
    expect(restore.summary).toMatch(
      sentence(
        String.raw`Adds 3\.0k tokens \(\$[\d.]+\) to every later call, `,
        String.raw`and rewrites 5\.0k cached tokens on the next call \(\$[\d.]+ extra\); `,
        'about 8 more calls are expected',
      ),
    );
    expect(restore.summary).not.toMatch(/pays back/);
    const cold = priceAction({ ...base, idleMs: 7 * 60_000, rewriteTokens: 5_000, tokensPerCall: 1_000 });
    expect(cold.summary).toMatch(/^The cache is cold \(idle 7 min\), so nothing cached is rewritten, and saves 1\.0k /);
  });
});
