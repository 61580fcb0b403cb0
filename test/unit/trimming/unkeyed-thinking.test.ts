import { describe, expect, it } from 'vitest';
import { firstChangedMessage } from '../../../src/core/request/build';
import { Session } from '../../../src/core/session';
import type { MessageParam } from '../../../src/core/session/types';
import { createPipeline } from '../../../src/core/trimming';
import { Harness } from './helpers';

const filler = (n: number) => 'word '.repeat(n);

/** A tool loop whose assistant messages start with a long thinking block. */
function loop(rounds: number, s = new Session(), from = 0): Session {
  if (!s.messages.length) s.append('user', `go ${filler(50)}`);
  for (let i = from; i < from + rounds; i++) {
    const id = `toolu_t${i}`;
    s.append('assistant', [
      { type: 'thinking', thinking: `step ${i} ${filler(800)}`, signature: `sig${i}` },
      { type: 'tool_use', id, name: 'Bash', input: { command: `c${i}` } },
    ]);
    s.append('user', [{ type: 'tool_result', tool_use_id: id, content: `ok ${i}` }]);
  }
  return s;
}

function thinkingDrops(unkeyed: boolean) {
  const s = loop(1);
  const h = new Harness(s, createPipeline('summarize-tool-results', { strategies: { 'summarize-tool-results': { keepTurns: 1 } } }));
  h.run(); // first call writes the cache (one round: nothing to drop yet)
  loop(7, s, 1);
  // Pretend the previous request already held every message: all of it is cached.
  h.cache = { cachedUpTo: s.messages.length, lastCallAt: h.now, thinkingUnkeyed: unkeyed };
  // The next call sees every older round's thinking as out of the verbatim window.
  const next = h.run(1000);
  return { s, h, next };
}

describe('thinking that does not key the cache', () => {
  it('is dropped at once, with the rule as the reason, when the model does not key the cache on thinking', () => {
    const { h } = thinkingDrops(true);
    const drops = h.decisions.all().filter((d) => d.action === 'apply' && /thinking of a round/.test(d.reason));
    expect(drops.length).toBeGreaterThan(0);
    for (const d of drops) expect(d.reason).toMatch(/does not key the cache/);
  });

  it('on a model whose thinking keys the cache, the same drops are priced as rewrites', () => {
    const { h } = thinkingDrops(false);
    const free = h.decisions.all().filter((d) => d.action === 'apply' && /does not key the cache/.test(d.reason));
    expect(free).toEqual([]);
    const priced = h.decisions.all().filter((d) => d.callIndex === 1 && (d.action === 'defer' || /batch of/.test(d.reason)));
    expect(priced.length).toBeGreaterThan(0);
  });
});

describe('firstChangedMessage and unkeyed thinking', () => {
  const prev: MessageParam[] = [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm', signature: 's' }, { type: 'tool_use', id: 't1', name: 'Bash', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
  ];
  const cur: MessageParam[] = [prev[0], { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: {} }] }, prev[2]];

  it('a dropped thinking block is a change where thinking keys the cache', () => {
    expect(firstChangedMessage(prev, cur)).toBe(1);
  });

  it('and no change of the cached prefix where it does not', () => {
    expect(firstChangedMessage(prev, cur, true)).toBe(3);
  });

  it('any other difference is still a change', () => {
    const edited: MessageParam[] = [prev[0], { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { x: 1 } }] }, prev[2]];
    expect(firstChangedMessage(prev, edited, true)).toBe(1);
  });
});
