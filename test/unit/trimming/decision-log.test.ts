/**
 * The decision log: entries keep the caller's fields in order, numbered; a reason written when read serializes like any
 * other.
 */
import { describe, expect, it } from 'vitest';
import { DecisionLog } from '../../../src/core/trimming/decisions';

describe('DecisionLog', () => {
  it('numbers entries, indexes them by target, and keeps the fields in the order given', () => {
    const log = new DecisionLog();
    const seen: number[] = [];
    log.on((d) => seen.push(d.seq));
    log.add({ callIndex: 3, by: 'cache-aware', action: 'defer', targets: ['a', 'b'], reason: 'first', tokensSaved: 0 });
    const second = log.add({
      callIndex: 4,
      by: 'user',
      action: 'apply',
      targets: ['b'],
      reason: 'second',
      tokensSaved: 12,
      overlayIds: ['ov_1'],
    });
    expect(second.seq).toBe(1);
    expect(seen).toEqual([0, 1]);
    expect(log.about('b').map((d) => d.reason)).toEqual(['first', 'second']);
    expect(log.since(1)).toEqual([second]);
    expect(Object.keys(second)).toEqual([
      'callIndex',
      'by',
      'action',
      'targets',
      'reason',
      'tokensSaved',
      'overlayIds',
      'seq',
    ]);
  });

  it('a reason given as a getter is built only when read, and reads, serializes and clones as text', () => {
    const log = new DecisionLog();
    let built = 0;
    const d = log.add({
      callIndex: 0,
      by: 'cache-planner',
      action: 'apply',
      targets: ['m1'],
      get reason() {
        built++;
        return 'write-time placement: held out of the cache write';
      },
      tokensSaved: 0,
    });
    expect(built).toBe(0);
    const json = JSON.parse(JSON.stringify(log.all())) as { reason: string; seq: number }[];
    expect(json[0]).toMatchObject({ reason: 'write-time placement: held out of the cache write', seq: 0 });
    expect(structuredClone(d).reason).toBe('write-time placement: held out of the cache write');
    expect(built).toBe(2);
  });
});
