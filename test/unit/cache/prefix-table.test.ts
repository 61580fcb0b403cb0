/** The simulator's entry table agrees with a plain Map over writes, reads, expiry, sweeps and growth. */
import { describe, expect, it } from 'vitest';
import { PrefixTable } from '../../../src/core/cache/prefix-table';

/** A small deterministic generator (tests must not depend on Math.random). */
function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0);
}

describe('PrefixTable', () => {
  it('finds what was written, by both words, and nothing else', () => {
    const t = new PrefixTable();
    t.set(1, 2, 100, 10);
    expect(t.find(1, 2)).toBeGreaterThanOrEqual(0);
    expect(t.find(2, 1)).toBe(-1);
    expect(t.find(1, 3)).toBe(-1);
    const s = t.find(1, 2);
    expect([t.expiresAt(s), t.ttl(s)]).toEqual([100, 10]);
    t.touch(s, 95);
    expect(t.expiresAt(t.find(1, 2))).toBe(105);
    t.set(1, 2, 300, 60);
    expect(t.live(0)).toBe(1);
    expect(t.ttl(t.find(1, 2))).toBe(60);
  });

  it('matches a Map through many writes, growth and sweeps', () => {
    const t = new PrefixTable();
    const ref = new Map<string, { exp: number; ttl: number }>();
    const rnd = lcg(7);
    // Few distinct first words, so keys differ only in the second word too.
    const keys = Array.from({ length: 5000 }, (_, i) => [rnd() % 50, i % 3 === 0 ? rnd() : rnd() % 1000] as const);
    let now = 0;
    for (let step = 0; step < 20000; step++) {
      now += rnd() % 1000;
      const [a, b] = keys[rnd() % keys.length];
      const ttl = rnd() % 2 ? 300_000 : 3_600_000;
      t.set(a, b, now + ttl, ttl);
      ref.set(`${a}:${b}`, { exp: now + ttl, ttl });
      if (step % 64 === 0) {
        t.sweep(now);
        for (const [k, v] of ref) if (v.exp <= now) ref.delete(k);
      }
      if (step % 500 === 0) {
        expect(t.live(now)).toBe([...ref.values()].filter((v) => v.exp > now).length);
        for (const [a2, b2] of keys.slice(0, 300)) {
          const want = ref.get(`${a2}:${b2}`);
          const slot = t.find(a2, b2);
          if (!want) expect(slot).toBe(-1);
          else expect([t.expiresAt(slot), t.ttl(slot)]).toEqual([want.exp, want.ttl]);
        }
      }
    }
    t.clear();
    expect(t.live(-1)).toBe(0);
  });
});
