/**
 * A call whose usage read little of a cache that was warm and that we did not change lost it for
 * a reason its request does not show (a client change, an eviction): the engine forgets the
 * writes before it (a later rewrite is priced from the first message again) and counts the loss
 * against the 1-hour TTL (cache/long-ttl.ts).
 */
import { describe, expect, it } from 'vitest';
import { quoteLongTtl } from '../../../src/core/cache/long-ttl';
import { ContextEngine } from '../../../src/core/engine';
import { Session } from '../../../src/core/session';
import type { CallUsage } from '../../../src/core/session/types';
import { round } from '../trimming/helpers';

const MIN = 60_000;

describe('long-TTL quote with lost caches', () => {
  it('a session that loses its cache often at such calls keeps 5 minutes', () => {
    const base = { written: 1_000, prefix: 40_000, restOfLoop: 2, gapsMs: [20 * MIN, 20 * MIN, 20 * MIN] };
    expect(quoteLongTtl(base).pays).toBe(true);
    expect(quoteLongTtl({ ...base, lossRate: 0.5, atRisk: 40_000 }).pays).toBe(false);
  });
});

const usage = (read: number, written: number): CallUsage => ({
  input_tokens: 10,
  output_tokens: 10,
  cache_read_input_tokens: read,
  cache_creation_input_tokens: written,
});

/** Rewritten tokens the applier quoted for trims of the last prepared call. */
function quotedRewrites(engine: ContextEngine, call: number): number[] {
  return engine.decisions
    .all()
    .filter((d) => d.callIndex === call && d.by !== 'cache-planner')
    .flatMap((d) => [...d.reason.matchAll(/rewrites (\d+) cached tokens/g)].map((m) => Number(m[1])));
}

function run(lostAt?: number): ContextEngine {
  const s = new Session({ model: 'claude-sonnet-4-5' });
  const engine = new ContextEngine(s, {
    strategy: 'summarize-tool-results',
    config: { cacheAware: { adaptiveTtl: false, guard: false } },
  });
  s.append('user', `task ${'context '.repeat(3000)}`);
  let now = 0;
  for (let call = 0; call < 12; call++) {
    if (call)
      round(s, [{ name: 'Read', input: { file_path: `f${call}.ts` }, result: `content of f${call}\n`.repeat(200) }]);
    engine.prepare({ callIndex: call, now });
    engine.observeUsage(call === lostAt ? usage(0, 20_000) : usage(call ? 20_000 : 0, 1_000), s.messages.length, 0);
    now += 10_000;
  }
  return engine;
}

describe('engine: a lost cache', () => {
  it('prices the next rewrites from the first message, not from writes that are gone', () => {
    const kept = run();
    const lost = run(6);
    const after = (e: ContextEngine): number[] => [7, 8, 9, 10, 11].flatMap((c) => quotedRewrites(e, c));
    expect(after(kept).length).toBeGreaterThan(0);
    expect(Math.max(...after(lost))).toBeGreaterThan(Math.max(...after(kept)));
  });
});
