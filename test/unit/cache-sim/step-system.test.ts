/** stepSystem is step() for a request of system blocks alone: same usage, same cache afterwards. */
import { describe, expect, it } from 'vitest';
import { CacheSimulator, type SimBlock, type SimMessage } from '../../../src/core/cache/simulator';

const MODEL = 'claude-sonnet-4-5-20250929';
const text = (t: string, cc?: { type: 'ephemeral'; ttl?: '5m' | '1h' }): SimBlock =>
  ({ type: 'text', text: t, ...(cc ? { cache_control: cc } : {}) }) as SimBlock;

describe('CacheSimulator.stepSystem', () => {
  it('gives what step() gives a system-only request, interleaved with full requests over expiry', () => {
    const sizes = new Map<SimBlock, number>();
    const tokensOf = (b: SimBlock): number => sizes.get(b) ?? 0;
    const shared = text('shared prefix', { type: 'ephemeral', ttl: '1h' });
    const session = text('session part', { type: 'ephemeral' });
    const below = text('tiny', { type: 'ephemeral' });
    sizes.set(shared, 5000).set(session, 3000).set(below, 10);
    const messages: SimMessage[] = [];
    const a = new CacheSimulator({ reuseUnchangedMessages: true });
    const b = new CacheSimulator({ reuseUnchangedMessages: true });
    let now = 0;
    for (let i = 0; i < 150; i++) {
      // Pauses from seconds to over an hour, so 5-minute and 1-hour entries expire and sweeps run.
      now += [2_000, 90_000, 400_000, 4_000_000][i % 4];
      const system = i % 5 === 0 ? [below] : [shared];
      const viaStep = a.step({ model: MODEL, system, messages: [] }, tokensOf, now);
      const viaSystem = b.stepSystem(MODEL, system, tokensOf, now);
      expect(viaSystem).toEqual(viaStep);
      const block = text(`m${i}`, { type: 'ephemeral' });
      sizes.set(block, 700 + i);
      messages.push({ role: i % 2 ? 'assistant' : 'user', content: [block] });
      const req = {
        model: MODEL,
        system: [shared, session],
        messages: messages[messages.length - 1].role === 'user' ? messages : messages.slice(0, -1),
      };
      expect(b.step(req, tokensOf, now + 1)).toEqual(a.step(req, tokensOf, now + 1));
    }
    expect(b.liveEntries(now)).toBe(a.liveEntries(now));
  });
});
