import { describe, expect, it } from 'vitest';
import { quoteDollars, quoteRewrite } from '../../../src/core/cache/break-even';
import {
  CACHE_READ_MULTIPLIER,
  CACHE_WRITE_1H_MULTIPLIER,
  CACHE_WRITE_5M_MULTIPLIER,
} from '../../../src/core/api/cache-rules';
import { expectedWarmCalls } from '../../../src/core/cache/warm-calls';

describe('break-even of a rewrite', () => {
  it('prices the rewrite from the cache rules and pays exactly when the expected calls exceed the break-even', () => {
    const B = 50_000;
    const S = 20_000;
    const q = quoteRewrite(B, S, '5m', 0);
    expect(q.rewriteCost).toBeCloseTo((B - S) * CACHE_WRITE_5M_MULTIPLIER - B * CACHE_READ_MULTIPLIER);
    expect(q.savingPerCall).toBeCloseTo(S * CACHE_READ_MULTIPLIER);
    const be = q.breakEvenCalls;
    expect(quoteRewrite(B, S, '5m', Math.floor(be)).pays).toBe(false);
    expect(quoteRewrite(B, S, '5m', Math.ceil(be) + 1).pays).toBe(true);
  });

  it('a 1-hour cache makes the same rewrite dearer (2× writes), so it needs more calls', () => {
    const five = quoteRewrite(40_000, 10_000, '5m', 10);
    const hour = quoteRewrite(40_000, 10_000, '1h', 10);
    expect(hour.rewriteCost).toBeCloseTo(30_000 * CACHE_WRITE_1H_MULTIPLIER - 40_000 * CACHE_READ_MULTIPLIER);
    expect(hour.breakEvenCalls).toBeGreaterThan(five.breakEvenCalls);
  });

  it('a trim that saves nothing never pays; one that saves more than it rewrites is free', () => {
    expect(quoteRewrite(10_000, 0, '5m', 1000).pays).toBe(false);
    const free = quoteRewrite(1_000, 1_000, '5m', 1);
    expect(free.rewriteCost).toBeLessThanOrEqual(0);
    expect(free.breakEvenCalls).toBe(0);
    expect(free.pays).toBe(true);
  });

  it('converts to dollars at the catalog price of the model', () => {
    const q = quoteRewrite(100_000, 10_000, '5m', 5);
    const d = quoteDollars(q, 'claude-sonnet-4-5');
    // $3 per million input tokens.
    expect(d.rewriteCost).toBeCloseTo((q.rewriteCost * 3) / 1_000_000);
  });
});

describe("expected warm calls from the session's own evidence", () => {
  const TTL_5M = 5 * 60_000;
  it('with no evidence, a loop of n calls is expected to run about as long again (plus later loops at even odds)', () => {
    const e = expectedWarmCalls({ loopLengths: [], gapsMs: [], currentLoopCalls: 6 }, TTL_5M);
    expect(e.restOfLoop).toBe(6);
    expect(e.calls).toBeGreaterThan(e.restOfLoop);
  });

  it('earlier loops that all ended soon after this length lower the rest of the loop', () => {
    const short = expectedWarmCalls({ loopLengths: [7, 7, 7, 7, 7], gapsMs: [], currentLoopCalls: 6 }, TTL_5M);
    const long = expectedWarmCalls({ loopLengths: [40, 40, 40, 40, 40], gapsMs: [], currentLoopCalls: 6 }, TTL_5M);
    expect(short.restOfLoop).toBeLessThan(3);
    expect(long.restOfLoop).toBeGreaterThan(20);
  });

  it('pauses longer than the TTL end the cache: later loops stop counting; a 1-hour TTL keeps them', () => {
    const gaps = [10 * 60_000, 12 * 60_000, 20 * 60_000, 8 * 60_000];
    const cold = expectedWarmCalls({ loopLengths: [5, 5, 5, 5], gapsMs: gaps, currentLoopCalls: 3 }, TTL_5M);
    const warm = expectedWarmCalls({ loopLengths: [5, 5, 5, 5], gapsMs: gaps, currentLoopCalls: 3 }, 60 * 60_000);
    expect(cold.pWarmGap).toBeLessThan(0.2);
    expect(warm.pWarmGap).toBeGreaterThan(0.8);
    expect(warm.calls).toBeGreaterThan(cold.calls);
  });

  it('never exceeds its bound', () => {
    const e = expectedWarmCalls(
      { loopLengths: Array(50).fill(500), gapsMs: Array(50).fill(1000), currentLoopCalls: 400 },
      TTL_5M,
      { maxCalls: 200, priorWeight: 1 },
    );
    expect(e.calls).toBeLessThanOrEqual(200);
  });
});
