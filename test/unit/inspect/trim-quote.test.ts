/** The trim editor's live quote in words (issue 29): the rewrite now, the saving per call, the break-even. */
import { describe, expect, it } from 'vitest';
import { priceAction } from '../../../src/core/cache/action-price';
import { trimQuoteParts } from '../../../webview/inspector/trim-quote';

const base = { model: 'claude-sonnet-4-6', ttl: '5m' as const, callsSoFar: 10, idleMs: 30_000, expectedCalls: 12 };

describe('trimQuoteParts', () => {
  it('says the three figures of a priced trim in dollars, from the one pricer', () => {
    const p = priceAction({ ...base, rewriteTokens: 20_000, tokensPerCall: 2_000 });
    expect(trimQuoteParts(p)).toEqual({
      rewrite: `Rewrite now: $${p.rewriteCost.toFixed(3)} extra (20k cached tokens written again)`,
      saving: `Saves $${p.savingPerCall.toFixed(4)} per call (2k tokens)`,
      breakEven: 'Breaks even after 103 calls (about 12 more expected)',
    });
  });

  it('a rewrite cheaper than the reads it replaces, a cold cache, and no saving', () => {
    expect(trimQuoteParts(priceAction({ ...base, rewriteTokens: 2_000, tokensPerCall: 1_900 }))).toMatchObject({
      rewrite: 'Rewrite now: $0 extra (writing what is left costs less than reading 2k cached)',
      breakEven: 'Breaks even at once (about 12 more expected)',
    });
    const cold = trimQuoteParts(priceAction({ ...base, idleMs: 6 * 60_000, rewriteTokens: 2_000, tokensPerCall: 500 }));
    expect(cold.rewrite).toBe('Rewrite now: $0 (the cache is cold)');
    const none = trimQuoteParts(priceAction({ ...base, rewriteTokens: 2_000, tokensPerCall: 0 }));
    expect(none.saving).toBe('Saves nothing per call');
    expect(none.breakEven).toBe('Never breaks even (about 12 more expected)');
  });
});
