/** step()'s refresh time: the entries a request reads or writes live a TTL from it, not from the request. */
import { describe, expect, it } from 'vitest';
import { CacheSimulator, TTL_5M_MS, type SimBlock } from '../../../src/core/cache/simulator';

const MODEL = 'claude-sonnet-4-5-20250929';
const block = (t: string): SimBlock => ({ type: 'text', text: t, cache_control: { type: 'ephemeral' } }) as SimBlock;

describe('CacheSimulator refresh time', () => {
  const sys = block('system prompt');
  const tokensOf = (): number => 5_000;
  const req = { model: MODEL, system: [sys], messages: [] };

  it('keeps a written entry a TTL past the refresh time, and no longer', () => {
    const sim = new CacheSimulator();
    expect(sim.step(req, tokensOf, 0, 60_000).cache_creation_input_tokens).toBe(5_000);
    // 5.5 minutes after the request, 4.5 after the refresh: read.
    expect(sim.step(req, tokensOf, 330_000, 330_000).cache_read_input_tokens).toBe(5_000);
    // A read refreshes from its own refresh time: 30 s past a TTL from it, the entry is gone.
    expect(sim.step(req, tokensOf, 330_000 + TTL_5M_MS + 30_000).cache_read_input_tokens).toBe(0);
  });

  it('without a refresh time counts the TTL from the request, as before', () => {
    const sim = new CacheSimulator();
    sim.step(req, tokensOf, 0);
    expect(sim.step(req, tokensOf, 330_000).cache_read_input_tokens).toBe(0);
  });
});
