/**
 * A proxy meeting a long session for the first time counts its big blocks from their
 * characters (nothing is encoded for them on the request path), still sends a valid trimmed
 * request, and makes every count exact in background steps: afterwards its numbers are the
 * ones an exact-counting proxy has.
 */
import { describe, expect, it, vi } from 'vitest';
import { PROXY_DEFER, ProxyEngine } from '../../../src/core/proxy/proxy-engine';
import { RawCounter } from '../../../src/core/tokens';
import { ccBody, ccMessages } from '../../bench/proxy-session';

/** Long enough that the default pipeline trims (its window is 40k tokens). */
const MESSAGES = 400;

describe('proxy cold build with deferred token counts', () => {
  const raw = Buffer.from(JSON.stringify(ccBody(ccMessages(MESSAGES), 'cold-1')));

  it('encodes no big text on the request path, then refines step by step to the exact counts', () => {
    const quick = vi.spyOn(RawCounter.prototype, 'quick');
    const count = vi.spyOn(RawCounter.prototype, 'count');
    const deferred = new ProxyEngine({ strategy: 'default' });
    const f = deferred.onRequest(raw, {}, 1_000);
    expect(f.transformed).toBe(true);
    expect(f.failOpen).toBeUndefined();
    // Exact counts on the request path: only short texts, within the per-call budget.
    const encodedChars = count.mock.calls.reduce((n, [t]) => n + t.length, 0);
    expect(encodedChars).toBeLessThanOrEqual(PROXY_DEFER.budgetChars);
    expect(quick.mock.calls.some(([t]) => t.length >= PROXY_DEFER.minChars)).toBe(true);
    quick.mockRestore();
    count.mockRestore();

    const st = deferred.state(f.sessionId!)!;
    expect(st.prepared!.stats.quality).toBe('estimated');
    expect(st.engine.tokens.pending()).toBeGreaterThan(100);
    let steps = 0;
    while (deferred.refineStep()) steps++;
    expect(steps).toBeGreaterThan(10);
    expect(st.engine.tokens.pending()).toBe(0);

    const exact = new ProxyEngine({ strategy: 'default', defer: false });
    const g = exact.onRequest(raw, {}, 1_000);
    const ex = exact.state(g.sessionId!)!.engine;
    const n = st.engine.session.messages.length;
    st.engine.index.update();
    expect(st.engine.index.provisionalMessages).toBe(0);
    expect(st.engine.index.originalTokens(0, n)).toBe(ex.index.originalTokens(0, n));
  }, 60_000);

  it('observe-only `none` sends the client bytes and defers counting just the same', () => {
    const engine = new ProxyEngine({ strategy: 'none' });
    const f = engine.onRequest(raw, {}, 1_000);
    expect(f.body).toBe(raw);
    engine.afterForward(f);
    expect(engine.state(f.sessionId!)!.engine.tokens.pending()).toBeGreaterThan(100);
    while (engine.refineStep());
    expect(engine.state(f.sessionId!)!.engine.tokens.pending()).toBe(0);
  });
});
