/**
 * supersede-stale-reads collapses duplicate results by a print: a huge text's print is sampled (hashing 20 MB would
 * block the proxy's event loop, issue 27), so equal prints are confirmed by the texts themselves.
 */
import { describe, expect, it } from 'vitest';
import { Session } from '../../../src/core/session';
import { createPipeline } from '../../../src/core/trimming';
import { textPrint } from '../../../src/core/trimming/supersede-stale-reads';
import { Harness, round } from './helpers';

const HUGE = 300_000;
const huge = (fill: string): string => `${'log line\n'.repeat(HUGE / 9)}${fill}`;

function states(results: string[]): string[] {
  const s = new Session();
  s.append('user', 'go');
  const ids = results.map((result) => round(s, [{ name: 'Bash', input: { command: 'make' }, result }])[0]);
  new Harness(s, createPipeline('supersede-stale-reads', { cacheAware: { enabled: false } })).run();
  const state = (id: string): string =>
    s.resolveMessage(s.position(s.block(s.toolResultBlockId(id)!)!.messageId)!).blocks[0].state;
  return ids.map(state);
}

describe('duplicate results of huge texts', () => {
  it('a huge text and a same-length one that differs only between the samples have the same print', () => {
    const a = huge('x');
    const b = `${a.slice(0, 1000)}Z${a.slice(1001)}`;
    expect(b).toHaveLength(a.length);
    expect(textPrint(a)).toBe(textPrint(b));
    expect(textPrint('short a')).not.toBe(textPrint('short b'));
  });

  it('collapses an identical huge result, not one with the same print and other text', () => {
    const a = huge('end');
    const twin = `${a.slice(0, 1000)}Z${a.slice(1001)}`;
    // a, its look-alike, a again (a copy, not the same string): the first a is the duplicate, the look-alike is not.
    expect(states([a, twin, `${a.slice(0, 10)}${a.slice(10)}`])).toEqual(['trimmed', 'verbatim', 'verbatim']);
  });
});
