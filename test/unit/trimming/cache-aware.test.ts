import { describe, expect, it } from 'vitest';
import { Session } from '../../../src/core/session';
import { createPipeline } from '../../../src/core/trimming';
import { Harness, round } from './helpers';

const filler = (n: number) => 'word '.repeat(n);

/** A session whose history is cached, then one old read gets superseded. */
function setup(oldReadChars: number, tailRounds: number) {
  const s = new Session();
  s.append('user', 'go');
  round(s, [{ name: 'Read', input: { file_path: 'a.ts' }, result: filler(oldReadChars / 5) }]);
  for (let i = 0; i < tailRounds; i++)
    round(s, [{ name: 'Bash', input: { command: `c${i}` }, result: filler(400) + i }]);
  const h = new Harness(s, createPipeline('supersede-stale-reads'));
  h.run(); // first call: writes the cache
  return { s, h };
}

describe('cache-aware application', () => {
  it('defers a small trim deep inside the cached prefix and logs why', () => {
    const { s, h } = setup(1000, 30);
    round(s, [{ name: 'Read', input: { file_path: 'a.ts' }, result: filler(300) }]);
    h.run(1000);
    const old = s.resolveMessage(2).blocks[0];
    expect(old.state).toBe('verbatim');
    const d = h.decisions.about(old.block.id);
    expect(d.at(-1)?.action).toBe('defer');
    expect(d.at(-1)?.reason).toMatch(/inside the cached prefix/);
  });

  it('applies the deferred trim for free once the cache has expired', () => {
    const { s, h } = setup(1000, 30);
    round(s, [{ name: 'Read', input: { file_path: 'a.ts' }, result: filler(300) }]);
    h.run(1000);
    h.run(6 * 60_000);
    const old = s.resolveMessage(2).blocks[0];
    expect(old.state).toBe('trimmed');
    expect(h.decisions.about(old.block.id).at(-1)?.reason).toMatch(/cache expired/);
  });

  it('applies a trim whose saving outweighs the rewrite (big result near the cached tail)', () => {
    const { s, h } = setup(40_000, 1);
    round(s, [{ name: 'Read', input: { file_path: 'a.ts' }, result: filler(300) }]);
    h.call = 10;
    h.run(1000);
    const old = s.resolveMessage(2).blocks[0];
    expect(old.state).toBe('trimmed');
    expect(h.decisions.about(old.block.id).at(-1)?.reason).toMatch(
      /batch of 1 saves \d+ tokens\/call, rewrites \d+ cached tokens .*→ pays/,
    );
  });

  it('applies at once when the target is after the cached prefix', () => {
    const s = new Session();
    s.append('user', 'go');
    const h = new Harness(s, createPipeline('supersede-stale-reads'));
    h.run();
    round(s, [{ name: 'Read', input: { file_path: 'a.ts' }, result: filler(500) }]);
    round(s, [{ name: 'Read', input: { file_path: 'a.ts' }, result: filler(500) + 'x' }]);
    h.run(1000);
    expect(s.resolveMessage(2).blocks[0].state).toBe('trimmed');
    expect(h.decisions.about(s.resolveMessage(2).blocks[0].block.id).at(-1)?.reason).toMatch(/after the cached prefix/);
  });
});

describe('free moments follow the TTL in use and what the caller knows', () => {
  it('six idle minutes expire a 5-minute cache but not a 1-hour one', () => {
    const five = setup(1000, 30);
    round(five.s, [{ name: 'Read', input: { file_path: 'a.ts' }, result: filler(300) }]);
    five.h.run(6 * 60_000);
    expect(five.s.resolveMessage(2).blocks[0].state).toBe('trimmed');

    const hour = setup(1000, 30);
    hour.h.ttl = '1h';
    round(hour.s, [{ name: 'Read', input: { file_path: 'a.ts' }, result: filler(300) }]);
    hour.h.run(6 * 60_000);
    const old = hour.s.resolveMessage(2).blocks[0];
    expect(old.state).toBe('verbatim');
    expect(hour.h.decisions.about(old.block.id).at(-1)?.action).toBe('defer');
  });

  it('a range the caller knows is cold (e.g. the client changed its system prompt) is free', () => {
    const { s, h } = setup(1000, 30);
    round(s, [{ name: 'Read', input: { file_path: 'a.ts' }, result: filler(300) }]);
    h.cache = { ...h.cache, coldFrom: { position: 0, why: 'the client changed its system prompt' } };
    h.run(1000);
    const old = s.resolveMessage(2).blocks[0];
    expect(old.state).toBe('trimmed');
    expect(h.decisions.about(old.block.id).at(-1)?.reason).toMatch(/free moment: the client changed its system prompt/);
  });
});
