/** When `trimline report` uses worker threads by default (core/report/parallel.ts). */
import { describe, expect, it } from 'vitest';
import { PARALLEL_MIN_BYTES, parallelMinBytes } from '../../../src/core/report';

describe('parallelMinBytes', () => {
  it('is the measured crossover on two cores, never on one, and comes sooner with more cores', () => {
    expect(parallelMinBytes(2)).toBe(PARALLEL_MIN_BYTES);
    expect(parallelMinBytes(1)).toBe(Infinity);
    const more = [3, 4, 8, 16, 64].map(parallelMinBytes);
    for (let i = 0; i < more.length; i++) {
      expect(more[i]).toBeLessThan(i === 0 ? PARALLEL_MIN_BYTES : more[i - 1]);
      expect(more[i]).toBeGreaterThan(0);
    }
  });
});
