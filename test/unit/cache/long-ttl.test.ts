import { describe, expect, it } from 'vitest';
import { quoteLongTtl } from '../../../src/core/cache/long-ttl';
import { CacheSimulator, type SimBlock } from '../../../src/core/cache/simulator';
import { costOf } from '../../../src/core/cache/cost';
import { ContextEngine } from '../../../src/core/engine';
import type { PipelineConfig } from '../../../src/core/trimming';
import { Session, blockText, type ContentBlockParam } from '../../../src/core/session';
import { round } from '../trimming/helpers';

const MIN = 60_000;

describe('long-TTL quote', () => {
  const base = { written: 1_000, prefix: 40_000 };
  it('stays at 5 minutes while the loop is expected to go on long', () => {
    expect(quoteLongTtl({ ...base, restOfLoop: 60, gapsMs: [20 * MIN, 30 * MIN] }).pays).toBe(false);
  });
  it("takes 1 hour at a likely last call when the session's pauses last 5–60 minutes", () => {
    const q = quoteLongTtl({ ...base, restOfLoop: 0.5, gapsMs: [20 * MIN, 12 * MIN, 40 * MIN, 8 * MIN] });
    expect(q.pMid).toBeGreaterThan(0.5);
    expect(q.pays).toBe(true);
  });
  it('pauses that are short (warm anyway) or longer than an hour (cold anyway) make it worth less', () => {
    const mid = quoteLongTtl({ ...base, restOfLoop: 0.5, gapsMs: Array(8).fill(20 * MIN) });
    for (const g of [MIN, 90 * MIN]) {
      const other = quoteLongTtl({ ...base, restOfLoop: 0.5, gapsMs: Array(8).fill(g) });
      expect(other.gain).toBeLessThan(mid.gain / 5);
      expect(quoteLongTtl({ ...base, written: 5_000, restOfLoop: 0.5, gapsMs: Array(8).fill(g) }).pays).toBe(false);
    }
  });
  it("a prefix under the model's minimum cacheable length is not cached at all: no hour to buy", () => {
    const base = { written: 100, prefix: 40_000, restOfLoop: 0, gapsMs: [20 * MIN, 20 * MIN, 20 * MIN] };
    expect(quoteLongTtl({ ...base, minTokens: 1024 }).pays).toBe(true);
    expect(quoteLongTtl({ ...base, prefix: 900, written: 1, minTokens: 1024 }).pays).toBe(false);
  });
  it('a call that writes about as much as it would save later stays at 5 minutes', () => {
    expect(quoteLongTtl({ written: 40_000, prefix: 40_000, restOfLoop: 0.5, gapsMs: [20 * MIN, 20 * MIN] }).pays).toBe(
      false,
    );
  });
});

/** Turns of a few tool rounds each, a user pause of `pauseMs` before every prompt; every call prepared and priced. */
function run(
  strategy: string,
  pauseMs: number,
  config?: PipelineConfig,
  longTtlAllowed = true,
): { ttls: string[]; cost: number } {
  const s = new Session({ model: 'claude-sonnet-4-5', system: [{ type: 'text', text: 'system '.repeat(3000) }] });
  const engine = new ContextEngine(s, { strategy, config });
  engine.longTtlAllowed = longTtlAllowed;
  const sim = new CacheSimulator();
  const tokensOf = (b: SimBlock): number => Math.ceil(blockText(b as ContentBlockParam).length / 4);
  const ttls: string[] = [];
  let now = 0;
  let cost = 0;
  let call = 0;
  const step = (): void => {
    const { body } = engine.prepare({ callIndex: call++, now });
    ttls.push(JSON.stringify(body).includes('"ttl":"1h"') ? '1h' : '5m');
    cost += costOf({ ...sim.step(body, tokensOf, now), output_tokens: 0 }, body.model).total;
  };
  for (let turn = 0; turn < 8; turn++) {
    now += turn ? pauseMs : 0;
    s.append('user', `task ${turn}: ${'context '.repeat(400)}`);
    step();
    for (let i = 0; i < 3; i++) {
      round(s, [{ name: 'Read', input: { file_path: `f${turn}_${i}.ts` }, result: 'line\n'.repeat(300) }]);
      now += 5_000;
      step();
    }
    s.append('assistant', [{ type: 'text', text: `answer ${turn} ${'done '.repeat(300)}` }]);
  }
  return { ttls, cost };
}

describe('engine: the TTL per call', () => {
  it("with 20-minute pauses between turns, default writes a loop's tail for an hour and pays less than at 5 minutes", () => {
    const adaptive = run('default', 20 * MIN);
    const fixed = run('default', 20 * MIN, { cacheAware: { adaptiveTtl: false } });
    expect(adaptive.ttls).toContain('1h');
    expect(fixed.ttls).not.toContain('1h');
    expect(adaptive.cost).toBeLessThan(fixed.cost);
  });

  it('behind a client whose system breakpoint is a 5-minute one (the proxy), never writes for an hour', () => {
    // A 1-hour marker after a 5-minute one is refused by the API: the request would go untouched.
    expect(run('default', 20 * MIN, undefined, false).ttls).not.toContain('1h');
  });
  it("short pauses make it choose the hour less often; none never changes the client's TTL", () => {
    const hours = (ttls: string[]): number => ttls.filter((t) => t === '1h').length;
    expect(hours(run('default', 30_000).ttls)).toBeLessThan(hours(run('default', 20 * MIN).ttls));
    expect(run('none', 20 * MIN).ttls).not.toContain('1h');
  });
});

describe('long-TTL quote without evidence', () => {
  it("keeps the client's TTL until the session has shown a 5–60 minute pause (a single-task loop never pauses)", () => {
    expect(quoteLongTtl({ written: 100, prefix: 100_000, restOfLoop: 0.1, gapsMs: [] }).pays).toBe(false);
    expect(quoteLongTtl({ written: 100, prefix: 100_000, restOfLoop: 0.1, gapsMs: [20 * MIN] }).pays).toBe(true);
  });
});

describe('engine: the TTL per call, with observed usage', () => {
  /**
   * Turns of 4 calls after 20-minute pauses; the usage is the simulator's. With `switches`, each loop's second call
   * runs on another model id.
   */
  function observed(switches: boolean): string[] {
    const s = new Session({ model: 'claude-sonnet-4-5', system: [{ type: 'text', text: 'system '.repeat(3000) }] });
    const engine = new ContextEngine(s, { strategy: 'default' });
    const sim = new CacheSimulator();
    const tokensOf = (b: SimBlock): number => Math.ceil(blockText(b as ContentBlockParam).length / 4);
    const ttls: string[] = [];
    let now = 0;
    let call = 0;
    const step = (): void => {
      const { body } = engine.prepare({ callIndex: call++, now });
      ttls.push(JSON.stringify(body).includes('"ttl":"1h"') ? '1h' : '5m');
      engine.observeUsage({ ...sim.step(body, tokensOf, now), output_tokens: 10 }, s.messages.length, 0);
    };
    for (let turn = 0; turn < 8; turn++) {
      now += turn ? 20 * MIN : 0;
      s.append('user', `task ${turn}: ${'context '.repeat(400)}`);
      step();
      for (let i = 0; i < 3; i++) {
        round(s, [{ name: 'Read', input: { file_path: `f${turn}_${i}.ts` }, result: 'line\n'.repeat(300) }]);
        now += 5_000;
        if (switches && i === 0)
          engine.model = engine.model === 'claude-sonnet-4-5' ? 'claude-sonnet-4-5-20250929' : 'claude-sonnet-4-5';
        step();
      }
      s.append('assistant', [{ type: 'text', text: `answer ${turn} ${'done '.repeat(300)}` }]);
    }
    return ttls;
  }

  it('a model switch explains the miss after it: it is not a lost cache that argues against the hour', () => {
    // The switching call itself is cold (it writes everything again): the other calls decide as without switches.
    const hours = (ttls: string[]): number => ttls.filter((t, i) => t === '1h' && i % 4 !== 1).length;
    const steady = hours(observed(false));
    expect(steady).toBeGreaterThan(0);
    expect(hours(observed(true))).toBe(steady);
  });
});
