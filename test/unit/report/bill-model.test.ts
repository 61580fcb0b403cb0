/** The bill model's cache rules on small hand-made sessions. */
import { describe, expect, it } from 'vitest';
import {
  BillModel,
  blockEndingNear,
  effectiveMessages,
  foldThinking,
  type BillBlock,
  type BillMessage,
} from '../../../src/core/report/bill-model';
import { clientInvalidations, epochsOf } from '../../../src/core/report/fit';
import type { CallRecord } from '../../../src/core/session/types';

const SONNET_45 = 'claude-sonnet-4-5';
const OPUS_45 = 'claude-opus-4-5';
const MIN = 60_000;
const block = (id: string, tokens: number, thinking = false): BillBlock => ({ id, tokens, thinking, logId: id });
const user = (blocks: BillBlock[], humanTurn = false): BillMessage => ({ role: 'user', blocks, humanTurn });
const asst = (blocks: BillBlock[]): BillMessage => ({ role: 'assistant', blocks, humanTurn: false });

/** A human prompt, a tool loop of two responses with thinking, then a new human prompt. */
const turn1 = [
  user([block('p1', 500)], true),
  asst([block('k1', 300, true), block('u1', 100)]),
  user([block('r1', 2000)]),
  asst([block('k2', 200, true), block('t2', 100)]),
];
const turn2 = [...turn1, user([block('p2', 50)], true)];

describe('effectiveMessages', () => {
  it("drops earlier turns' thinking for Sonnet 4.5 once a human turn starts, keeps it inside a tool loop and for Opus 4.5", () => {
    const ids = (ms: readonly BillMessage[]) => ms.flatMap((m) => m.blocks.map((b) => b.id));
    expect(ids(effectiveMessages(turn1.slice(0, 3), SONNET_45))).toEqual(['p1', 'k1', 'u1', 'r1']);
    expect(ids(effectiveMessages(turn2, SONNET_45))).toEqual(['p1', 'u1', 'r1', 't2', 'p2']);
    expect(ids(effectiveMessages(turn2, OPUS_45))).toEqual(['p1', 'k1', 'u1', 'r1', 'k2', 't2', 'p2']);
  });
});

describe('foldThinking', () => {
  it('carries thinking tokens on the next block, or the block before when none follows', () => {
    expect(foldThinking([block('k', 30, true), block('t', 10)]).map((f) => [f.block.id, f.tokens])).toEqual([
      ['t', 40],
    ]);
    expect(foldThinking([block('t', 10), block('k', 30, true)]).map((f) => [f.block.id, f.tokens])).toEqual([
      ['t', 40],
    ]);
    expect(foldThinking([block('k', 30, true)]).map((f) => [f.block.id, f.tokens])).toEqual([['k', 30]]);
  });
});

describe('BillModel', () => {
  const prefix = { shared: 14_000, sharedWarm: true, session: 6_000 };

  it('reads the previous request from cache and writes only what was added', () => {
    const m = new BillModel(SONNET_45, prefix);
    const first = m.step({ now: 0, ttl: '5m', messages: turn1.slice(0, 1) });
    expect(first.usage.cache_read_input_tokens).toBe(14_000);
    expect(first.usage.cache_creation_input_tokens).toBe(6_500);
    const second = m.step({ now: 5_000, ttl: '5m', messages: turn1.slice(0, 3) });
    expect(second.usage.cache_read_input_tokens).toBe(20_500);
    expect(second.usage.cache_creation_input_tokens).toBe(2_400);
  });

  it('keeps reading after a human turn drops the thinking (thinking does not key the cache)', () => {
    const m = new BillModel(SONNET_45, prefix);
    m.step({ now: 0, ttl: '5m', messages: turn1.slice(0, 3) });
    const next = m.step({ now: 10_000, ttl: '5m', messages: turn2 });
    // Sent: prefix 20,000 + p1 500 + u1 100 + r1 2,000 + t2 100 + p2 50; the 300 thinking tokens of k1 are gone.
    expect(next.totalInput).toBe(22_750);
    expect(next.usage.cache_read_input_tokens).toBe(22_600);
  });

  it('after the 5-minute TTL reads only the shared prefix other sessions keep warm', () => {
    const m = new BillModel(SONNET_45, prefix);
    m.step({ now: 0, ttl: '5m', messages: turn1.slice(0, 3) });
    const late = m.step({ now: 6 * MIN, ttl: '5m', messages: turn1.slice(0, 3) });
    expect(late.usage.cache_read_input_tokens).toBe(14_000);
    const m1h = new BillModel(SONNET_45, prefix);
    m1h.step({ now: 0, ttl: '1h', messages: turn1.slice(0, 3) });
    const within = m1h.step({ now: 30 * MIN, ttl: '1h', messages: turn1.slice(0, 3) });
    expect(within.usage.cache_read_input_tokens).toBe(22_900);
  });

  it('leaves the tail after a breakpoint placed earlier uncached', () => {
    const m = new BillModel(SONNET_45, prefix);
    const s = m.step({ now: 0, ttl: '5m', messages: turn1.slice(0, 3), breakpointAt: 'u1' });
    expect(s.usage.input_tokens).toBe(2_000);
    expect(blockEndingNear(turn1.slice(0, 3), SONNET_45, 905)).toBe('u1');
  });

  it('prices a client restart as a new session prefix: the shared part is still read', () => {
    const m = new BillModel(SONNET_45, prefix);
    m.step({ now: 0, ttl: '5m', messages: turn1.slice(0, 3) });
    const restarted = [...turn1.slice(0, 3), { ...user([block('exit', 20)], true), clientRestart: true }];
    const s = m.step({ now: 10_000, ttl: '5m', messages: restarted });
    expect(s.usage.cache_read_input_tokens).toBe(14_000);
  });
});

describe('client invalidations (the recording read only the system prompt)', () => {
  const prefix = { shared: 14_000, sharedWarm: true, session: 6_000 };
  const usage = (read: number, write: number) => ({
    input_tokens: 10,
    cache_creation_input_tokens: write,
    cache_read_input_tokens: read,
    output_tokens: 50,
  });
  const call = (index: number, u?: ReturnType<typeof usage>) => ({ index, usage: u }) as unknown as CallRecord;

  it('are the calls after the first whose recorded read stops at the system prompt while messages were sent', () => {
    // 2 and 3 read the system prompt alone; 4 sent nothing past it; 5 recorded no usage.
    const calls = [
      call(0, usage(14_000, 6_500)),
      call(1, usage(20_500, 2_400)),
      call(2, usage(20_000, 3_000)),
      call(3, usage(20_100, 3_000)),
      call(4, usage(20_100, 20)),
      call(5),
      call(6, usage(23_000, 100)),
    ];
    expect(clientInvalidations(calls, 20_000)).toEqual([2, 3]);
    expect(epochsOf(6, [2, 3])).toEqual([0, 0, 1, 2, 2, 2]);
  });

  it('restart the cache after the system prompt in the epoch they open, and read again within it', () => {
    const m = new BillModel(SONNET_45, prefix);
    m.step({ now: 0, ttl: '5m', messages: turn1.slice(0, 3) });
    const moved = m.step({ now: 10_000, ttl: '5m', messages: turn2, epoch: 1 });
    expect(moved.usage.cache_read_input_tokens).toBe(20_000);
    expect(moved.usage.cache_creation_input_tokens).toBe(2_750);
    const next = m.step({
      now: 20_000,
      ttl: '5m',
      messages: [...turn2, asst([block('t3', 40)]), user([block('p3', 10)], true)],
      epoch: 1,
    });
    expect(next.usage.cache_read_input_tokens).toBe(22_750);
  });
});
