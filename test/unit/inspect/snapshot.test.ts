import { describe, expect, it } from 'vitest';
import { PREVIEW_CHARS } from '../../../src/core/inspect';
import { parseHostMessage } from '../../../src/protocol';
import { replayFile, SAMPLES } from './helpers';

describe('buildSnapshot on real transcripts', () => {
  for (const file of SAMPLES) {
    it(`${file.slice(0, 8)}: rows, totals, cache, cost and chart agree`, () => {
      const r = replayFile(file);
      const s = r.snapshot();
      const { session } = r.engine;
      // One row per block of the current epoch, in log order, with unique refs.
      let blocks = 0;
      for (let p = r.epochStart; p < session.messages.length; p++) blocks += session.messages[p].blocks.length;
      expect(s.rows).toHaveLength(blocks);
      expect(new Set(s.rows.map((x) => x.ref)).size).toBe(blocks);
      expect(s.rows.map((x) => x.position)).toEqual([...s.rows.map((x) => x.position)].sort((a, b) => a - b));
      // Totals: the whole next request, as priced; states count every row.
      const t = s.cost.nextTokens;
      expect(s.totals.sentTokens).toBe(t.input + t.cacheWrite + t.cacheRead);
      expect(Object.values(s.totals.byState).reduce((a, b) => a + b, 0)).toBe(blocks);
      expect(s.totals.untrimmedTokens).toBeGreaterThanOrEqual(
        s.rows.filter((x) => x.sent && x.state === 'verbatim').reduce((n, x) => n + x.tokens, 0),
      );
      // The composition adds up to what is sent.
      expect(s.composition.reduce((n, e) => n + e.tokens, 0)).toBe(s.totals.sentTokens);
      expect(s.composition.every((e) => e.tokens > 0 && e.label.length > 0)).toBe(true);
      // Cost: the next request is the sum of its parts; the session cost sums the chart points.
      expect(s.cost.nextRequest).toBeCloseTo(s.cost.nextInput + s.cost.nextCacheWrite + s.cost.nextCacheRead, 10);
      expect(s.cost.session).toBeCloseTo(
        s.calls.reduce((n, c) => n + c.cost, 0),
        10,
      );
      // Chart: one point per recorded call; cached ≤ sent ≤ untrimmed.
      expect(s.calls).toHaveLength(r.imp.calls.length);
      for (const c of s.calls) {
        expect(c.cached).toBeLessThanOrEqual(c.sent);
        expect(c.untrimmed).toBeGreaterThanOrEqual(c.sent);
      }
      expect(s.callIndex).toBe(r.imp.calls.length);
      // Cache: cached rows are a prefix of the sent rows, ending where the snapshot says.
      const sent = s.rows.filter((x) => x.sent);
      const firstUncached = sent.findIndex((x) => !x.cached);
      if (firstUncached >= 0) expect(sent.slice(firstUncached).some((x) => x.cached)).toBe(false);
      if (s.cache.nextCachedTokens > 0) expect(s.cache.cachedUpToRef).toBeDefined();
      const lastCached = sent.filter((x) => x.cached).at(-1);
      if (lastCached) expect(s.cache.cachedUpToRef).toBe(lastCached.ref);
      expect(s.cache.breakpointRefs).toHaveLength(s.cache.breakpoints);
      expect(s.cache.hitRatio).toBeGreaterThanOrEqual(0);
      expect(s.cache.hitRatio).toBeLessThanOrEqual(1);
      // Previews are plain text, at most PREVIEW_CHARS, and unsent rows cost 0.
      for (const x of s.rows) {
        expect(x.preview.length).toBeLessThanOrEqual(PREVIEW_CHARS);
        if (!x.sent) expect(x.tokens).toBe(0);
        if (x.state !== 'verbatim') expect(x.overlayId ?? x.why).toBeDefined();
      }
      // The snapshot is plain data that the webview's guard accepts.
      const wire = JSON.parse(JSON.stringify({ type: 'snapshot', snapshot: s })) as unknown;
      expect(parseHostMessage(wire)).toBeDefined();
    });
  }

  it('without a strategy nothing is trimmed and sent equals untrimmed for the messages', () => {
    const s = replayFile(SAMPLES[0], 'none').snapshot();
    expect(s.rows.every((x) => x.state === 'verbatim' && x.sent)).toBe(true);
    expect(s.rows.every((x) => x.tokens === x.originalTokens)).toBe(true);
    expect(s.calls.every((c) => c.untrimmed === c.sent)).toBe(true);
  });

  it('a trimming strategy sends fewer tokens than untrimmed and says why', () => {
    const s = replayFile(SAMPLES[1]).snapshot();
    expect(s.totals.sentTokens).toBeLessThan(s.totals.untrimmedTokens);
    const changed = s.rows.filter((x) => x.state === 'trimmed' || x.state === 'pruned' || x.state === 'summarized');
    expect(changed.length).toBeGreaterThan(0);
    for (const x of changed) {
      expect(x.by).toMatch(/^strategy:|^cache-aware$|^user$|^agent$/);
      expect(x.call).toBeTypeOf('number');
    }
  });

  it('pricing the next request does not commit it to the cache simulation', () => {
    const r = replayFile(SAMPLES[0]);
    const a = r.history.priceNext(r.next.body, r.next.blockMap, r.now);
    const fresh = r.history.priceNext({ ...r.next.body }, r.next.blockMap, r.now);
    expect(fresh.usage).toEqual(a.usage);
    expect(r.history.length).toBe(r.imp.calls.length);
  });
});
