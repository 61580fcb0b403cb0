/**
 * Issue 27, finding 1: counting any text takes constant stack. The scanner of long runs
 * (text-runs.ts) must find exactly the runs the former unbounded regex found, so counts of
 * ordinary text do not change; and the cuts `sliceEnd` prefers add up exactly.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { cl100kCount } from '../../src/core/tokens';
import { LONG_RUN_CHARS, RUN_CHUNK_CHARS } from '../../src/core/tokens/encoder';
import { exactCut } from '../../src/core/tokens/text-runs';

const RUNS = Math.max(100, Math.floor(Number(process.env.TRIMLINE_PROP_RUNS ?? 10_000) / 20));

const enc = new Tiktoken(cl100k);
const plain = (t: string): number => (t.length === 0 ? 0 : enc.encode(t, [], []).length);

/** The counter before issue 27 (its regex overflows the stack on ~5.6 M same-class chars): the reference. */
function formerCount(text: string): number {
  const n = `{${LONG_RUN_CHARS},}`;
  const longRun = new RegExp(`\\p{L}${n}|[^\\s\\p{L}\\p{N}]${n}|\\s${n}`, 'gu');
  let total = 0;
  let start = 0;
  for (let m = longRun.exec(text); m !== null; m = longRun.exec(text)) {
    total += plain(text.slice(start, m.index));
    const chars = Array.from(m[0]);
    for (let i = 0; i < chars.length; i += RUN_CHUNK_CHARS) {
      total += plain(chars.slice(i, i + RUN_CHUNK_CHARS).join(''));
    }
    start = m.index + m[0].length;
  }
  return total + plain(text.slice(start));
}

/** Ordinary text: words, code, numbers, white space, non-Latin and astral letters, and runs long enough to be cut. */
const piece = fc.oneof(
  fc.constantFrom('the', 'quick', ' ', '  ', '\n', '\r\n', '\t', 'const', 'x', '=', '(', ')', ';', '{', '}'),
  fc.constantFrom("'s", "'ll", '42', '3.14', 'Grüße', '世界', '🎉', '𝐀', '─', '.', ','),
  fc.string({ maxLength: 12 }),
  fc
    .tuple(fc.constantFrom('A', 'b', ' ', '\n', '=', '─', '𝐀', '7', 'é'), fc.integer({ min: 1, max: 300 }))
    .map(([c, n]) => c.repeat(n)),
);
const ordinary = fc.array(piece, { maxLength: 60 }).map((ps) => ps.join(''));

describe('cl100kCount on any text (issue 27)', () => {
  it('counts like the former counter on ordinary text', () => {
    fc.assert(
      fc.property(ordinary, (t) => cl100kCount(t) === formerCount(t)),
      { numRuns: RUNS },
    );
  });

  it('the cuts it calls exact add up to the whole count', () => {
    fc.assert(
      fc.property(ordinary, fc.nat(), (t, seed) => {
        const cuts = [...t].map((_, i) => i).filter((i) => exactCut(t, i));
        if (cuts.length === 0) return true;
        const at = cuts[seed % cuts.length];
        return cl100kCount(t.slice(0, at)) + cl100kCount(t.slice(at)) === cl100kCount(t);
      }),
      { numRuns: RUNS },
    );
  });

  it('6 M chars of one class (letters, spaces, punctuation, newlines, astral letters) leave the stack alone', () => {
    for (const c of ['B', ' ', '.', '\n', '𝐀']) {
      const text = `start ${c.repeat(6_000_000 / c.length)} end`;
      const chunk = plain(c.repeat(RUN_CHUNK_CHARS));
      const chunks = 6_000_000 / c.length / RUN_CHUNK_CHARS;
      const n = cl100kCount(text);
      // The run is cut into whole chunks; the words around it and the run's edges add a few tokens.
      expect(n).toBeGreaterThanOrEqual(chunks * chunk);
      expect(n).toBeLessThanOrEqual(chunks * chunk + 8);
    }
  });
});
