import { describe, expect, it } from 'vitest';
import {
  CacheSimulator,
  LOOKBACK_BLOCKS,
  TTL_5M_MS,
  type SimBlock,
  type SimMessage,
  type SimRequest,
  type TokensOf,
} from '../../../src/core/cache/simulator';
import { minCacheableTokens } from '../../../src/core/models';

/** Every block costs as many tokens as its `text` has characters (tools: 100). */
const tokensOf: TokensOf = (block) => {
  const text = (block as { text?: unknown }).text;
  return typeof text === 'string' ? text.length : 100;
};

const EPHEMERAL = { type: 'ephemeral' } as const;
const MODEL = 'claude-sonnet-4-6';
const T0 = 1_700_000_000_000;

function text(tag: string, tokens: number, cached = false): SimBlock {
  const body = `${tag}:`.padEnd(tokens, '.');
  return cached
    ? ({ type: 'text', text: body, cache_control: EPHEMERAL } as SimBlock)
    : ({ type: 'text', text: body } as SimBlock);
}

/** A conversation of `count` one-block messages (alternating roles) of `tokens` each; breakpoint on the last. */
function conversation(count: number, tokens = 100, bpAt: readonly number[] = [count - 1]): SimMessage[] {
  return Array.from({ length: count }, (_, i) => ({
    role: i % 2 === 0 ? 'user' : 'assistant',
    content: [text(`m${i}`, tokens, bpAt.includes(i))],
  }));
}

function request(messages: SimMessage[], extra: Partial<SimRequest> = {}): SimRequest {
  return { model: MODEL, system: [text('system', 2000, true)], messages, ...extra };
}

function total(u: {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}): number {
  return u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
}

describe('CacheSimulator', () => {
  it('writes on the first request and reads the whole prefix on an identical second one', () => {
    const sim = new CacheSimulator();
    const body = request(conversation(10));
    const first = sim.step(body, tokensOf, T0);
    expect(first).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: 3000, input_tokens: 0 });
    expect(first.cache_creation.ephemeral_5m_input_tokens).toBe(3000);
    // A structurally identical body made of new objects: identity is by content.
    const second = sim.step(structuredClone(body), tokensOf, T0 + 1000);
    expect(second).toMatchObject({ cache_read_input_tokens: 3000, cache_creation_input_tokens: 0, input_tokens: 0 });
  });

  it('counts tokens after the last breakpoint as input_tokens', () => {
    const sim = new CacheSimulator();
    const usage = sim.step(request(conversation(10, 100, [7])), tokensOf, T0);
    expect(usage).toMatchObject({ cache_creation_input_tokens: 2800, input_tokens: 200, cache_read_input_tokens: 0 });
  });

  it('reads the previous turn and writes only what was appended', () => {
    const sim = new CacheSimulator();
    sim.step(request(conversation(10)), tokensOf, T0);
    const grown = sim.step(request(conversation(12)), tokensOf, T0 + 1000);
    expect(grown).toMatchObject({ cache_read_input_tokens: 3000, cache_creation_input_tokens: 200, input_tokens: 0 });
  });

  it('an edit in the middle breaks every prefix after it, the system breakpoint still hits', () => {
    const sim = new CacheSimulator();
    sim.step(request(conversation(10)), tokensOf, T0);
    const edited = conversation(10);
    edited[4] = { role: 'user', content: [text('m4-edited', 100)] };
    const usage = sim.step(request(edited), tokensOf, T0 + 1000);
    expect(usage.cache_read_input_tokens).toBe(2000); // system only
    expect(usage.cache_creation_input_tokens).toBe(1000);
    expect(total(usage)).toBe(3000);
  });

  it('a changed tool definition invalidates everything', () => {
    const sim = new CacheSimulator();
    const tools = [{ type: 'custom', name: 'read_file', description: 'v1' } as SimBlock];
    sim.step(request(conversation(4), { tools }), tokensOf, T0);
    const changed = [{ type: 'custom', name: 'read_file', description: 'v2' } as SimBlock];
    const usage = sim.step(request(conversation(4), { tools: changed }), tokensOf, T0 + 1000);
    expect(usage.cache_read_input_tokens).toBe(0);
    expect(usage.cache_creation_input_tokens).toBe(2500);
  });

  it('a changed tool_choice invalidates the messages but not the system prefix', () => {
    const sim = new CacheSimulator();
    sim.step(request(conversation(6), { tool_choice: { type: 'auto' } }), tokensOf, T0);
    const usage = sim.step(request(conversation(6), { tool_choice: { type: 'any' } }), tokensOf, T0 + 1);
    expect(usage.cache_read_input_tokens).toBe(2000);
    expect(usage.cache_creation_input_tokens).toBe(600);
  });

  it('a change of the messages the requests do not show (invalidateMessages) keeps tools and system, and reads again after', () => {
    const sim = new CacheSimulator();
    sim.step(request(conversation(6)), tokensOf, T0);
    sim.invalidateMessages();
    const moved = sim.step(request(conversation(6)), tokensOf, T0 + 1);
    expect(moved.cache_read_input_tokens).toBe(2000);
    expect(moved.cache_creation_input_tokens).toBe(600);
    const next = sim.step(request(conversation(8)), tokensOf, T0 + 2);
    expect(next.cache_read_input_tokens).toBe(2600);
  });

  it(`looks back ${LOOKBACK_BLOCKS} positions, its own included: a breakpoint moved 19 blocks hits, 20 misses`, () => {
    const near = new CacheSimulator();
    near.step(request(conversation(10)), tokensOf, T0);
    const hit = near.step(request(conversation(10 + LOOKBACK_BLOCKS - 1)), tokensOf, T0 + 1000);
    expect(hit.cache_read_input_tokens).toBe(3000);
    expect(hit.cache_creation_input_tokens).toBe((LOOKBACK_BLOCKS - 1) * 100);
    // Reference: "If a conversation moves the breakpoint 20+ blocks past the last write, add a second breakpoint."
    const far = new CacheSimulator();
    far.step(request(conversation(10)), tokensOf, T0);
    const miss = far.step(request(conversation(10 + LOOKBACK_BLOCKS)), tokensOf, T0 + 1000);
    expect(miss.cache_read_input_tokens).toBe(2000);
  });

  it('a breakpoint moved 25 blocks without an intermediate breakpoint misses the conversation prefix', () => {
    const sim = new CacheSimulator();
    sim.step(request(conversation(10)), tokensOf, T0);
    const usage = sim.step(request(conversation(35)), tokensOf, T0 + 1000);
    // Only the system breakpoint (its own lookup) still hits; the 10-block write is out of reach.
    expect(usage.cache_read_input_tokens).toBe(2000);
    expect(usage.cache_creation_input_tokens).toBe(3500);
    expect(sim.lastTrace?.readPosition).toBe(0);
  });

  it('an intermediate breakpoint at the old position recovers the read', () => {
    const sim = new CacheSimulator();
    sim.step(request(conversation(10)), tokensOf, T0);
    const usage = sim.step(request(conversation(35, 100, [9, 34])), tokensOf, T0 + 1000);
    expect(usage.cache_read_input_tokens).toBe(3000);
    expect(usage.cache_creation_input_tokens).toBe(2500);
  });

  it('entries expire 5 minutes after last use and hits refresh them', () => {
    const sim = new CacheSimulator();
    const body = request(conversation(10));
    sim.step(body, tokensOf, T0);
    expect(sim.step(body, tokensOf, T0 + TTL_5M_MS - 1).cache_read_input_tokens).toBe(3000);
    // Refreshed at T0+5m-1ms: still live 9 minutes after the write.
    expect(sim.step(body, tokensOf, T0 + 9 * 60_000).cache_read_input_tokens).toBe(3000);
    const late = sim.step(body, tokensOf, T0 + 9 * 60_000 + TTL_5M_MS + 1);
    expect(late.cache_read_input_tokens).toBe(0);
    expect(late.cache_creation_input_tokens).toBe(3000);
  });

  it('1h breakpoints survive past 5 minutes and are reported as 1h writes', () => {
    const sim = new CacheSimulator();
    const longTtl = { type: 'ephemeral', ttl: '1h' } as const;
    const body = request([
      { role: 'user', content: [{ type: 'text', text: 'x'.repeat(1500), cache_control: longTtl } as SimBlock] },
    ]);
    const first = sim.step(body, tokensOf, T0);
    expect(first.cache_creation).toEqual({ ephemeral_5m_input_tokens: 2000, ephemeral_1h_input_tokens: 1500 });
    const later = sim.step(body, tokensOf, T0 + 30 * 60_000);
    expect(later.cache_read_input_tokens).toBe(3500);
  });

  it('writes nothing below the model minimum', () => {
    const sim = new CacheSimulator();
    const small: SimRequest = { model: MODEL, messages: [{ role: 'user', content: [text('hi', 900, true)] }] };
    expect(sim.step(small, tokensOf, T0)).toMatchObject({ input_tokens: 900, cache_creation_input_tokens: 0 });
    expect(sim.step(small, tokensOf, T0 + 1).cache_read_input_tokens).toBe(0);
    expect(sim.lastTrace?.belowMinimum).toEqual([0]);
    // 3,000 tokens is enough for Sonnet (1,024) but not Haiku 4.5 (4,096).
    const haiku = new CacheSimulator();
    expect(
      haiku.step({ ...request(conversation(10)), model: 'claude-haiku-4-5' }, tokensOf, T0).cache_creation_input_tokens,
    ).toBe(0);
    expect(minCacheableTokens('claude-opus-4-7')).toBe(4096);
    expect(minCacheableTokens('claude-opus-4-8')).toBe(1024);
    expect(new CacheSimulator({ minTokens: 5000 }).step(request(conversation(10)), tokensOf, T0).input_tokens).toBe(
      3000,
    );
  });

  it('top-level cache_control caches up to the last cacheable block (automatic caching)', () => {
    const sim = new CacheSimulator();
    const messages = conversation(6, 300, []);
    const body: SimRequest = { model: MODEL, messages, cache_control: EPHEMERAL };
    expect(sim.step(body, tokensOf, T0).cache_creation_input_tokens).toBe(1800);
    const next: SimRequest = {
      ...body,
      messages: [
        ...messages,
        ...conversation(2, 300, []).map((m, i) => ({ ...m, role: i === 0 ? 'assistant' : 'user' })),
      ],
    };
    const usage = sim.step(next, tokensOf, T0 + 1);
    expect(usage).toMatchObject({ cache_read_input_tokens: 1800, cache_creation_input_tokens: 600, input_tokens: 0 });
  });

  it('string content and a string system prompt are cached like single text blocks', () => {
    const sim = new CacheSimulator();
    const body: SimRequest = {
      model: MODEL,
      system: 's'.repeat(1200),
      messages: [{ role: 'user', content: 'hello' }],
      cache_control: EPHEMERAL,
    };
    expect(sim.step(body, tokensOf, T0).cache_creation_input_tokens).toBe(1205);
    expect(sim.step(structuredClone(body), tokensOf, T0 + 1).cache_read_input_tokens).toBe(1205);
  });

  describe("earlier turns' thinking", () => {
    const thinking = (tag: string): SimBlock =>
      ({ type: 'thinking', thinking: `${tag}:`.padEnd(300, '.'), signature: 'sig' }) as SimBlock;
    const thinkingTokens: TokensOf = (block) =>
      block.type === 'thinking' ? 300 : tokensOf(block, { section: 'tools', index: 0 });
    // A prompt, one tool round with thinking, then the final answer with thinking.
    const loop: SimMessage[] = [
      { role: 'user', content: [text('prompt', 500)] },
      {
        role: 'assistant',
        content: [thinking('t1'), { type: 'tool_use', id: 'toolu_1', name: 'Read', input: {} } as SimBlock],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'x' } as SimBlock] },
      { role: 'assistant', content: [thinking('t2'), text('answer', 100)] },
    ];
    const withBreakpointOnLast = (messages: SimMessage[]): SimMessage[] =>
      messages.map((m, i) =>
        i < messages.length - 1 || typeof m.content === 'string'
          ? m
          : {
              ...m,
              content: m.content.map((b, j) => (j === m.content.length - 1 ? { ...b, cache_control: EPHEMERAL } : b)),
            },
      );
    const SONNET_45 = 'claude-sonnet-4-5-20250929';
    const OPUS_45 = 'claude-opus-4-5-20251101';

    it("on Sonnet 4.5 a new prompt drops them: not billed, and (removed for caching) the loop's cached prefix still matches", () => {
      const sim = new CacheSimulator();
      const inLoop = request(withBreakpointOnLast(loop.slice(0, 3)), { model: SONNET_45 });
      const first = sim.step(inLoop, thinkingTokens, T0);
      // system 2000 + prompt 500 + thinking 300 + tool_use 100 + tool_result 100: the loop's thinking is billed.
      expect(total(first)).toBe(3000);
      const next = request(withBreakpointOnLast([...loop, { role: 'user', content: [text('next', 200)] }]), {
        model: SONNET_45,
      });
      const usage = sim.step(next, thinkingTokens, T0 + 1000);
      // Both thinking blocks are gone (−600); the loop's breakpoint (on its tool_result) is read without its thinking.
      expect(total(usage)).toBe(2000 + 500 + 100 + 100 + 100 + 200);
      expect(usage.cache_read_input_tokens).toBe(2000 + 500 + 100 + 100);
      // Inside the loop its thinking is billed but keys nothing: the same request without it reads the same prefix.
      const again = sim.step(
        request(
          withBreakpointOnLast(
            loop
              .slice(0, 3)
              .map((m) =>
                m.role === 'assistant' && typeof m.content !== 'string'
                  ? { ...m, content: m.content.filter((b) => b.type !== 'thinking') }
                  : m,
              ),
          ),
          { model: SONNET_45 },
        ),
        thinkingTokens,
        T0 + 2000,
      );
      expect(again.cache_read_input_tokens).toBe(2700);
    });

    it('on Opus 4.5 (keeps thinking) and within a tool loop they stay billed and cached', () => {
      // Opus 4.5's minimum (4,096) is above this small prompt: use Sonnet's to see the cache.
      const sim = new CacheSimulator({ minTokens: 1024 });
      sim.step(request(withBreakpointOnLast(loop.slice(0, 3)), { model: OPUS_45 }), thinkingTokens, T0);
      const usage = sim.step(
        request(withBreakpointOnLast([...loop, { role: 'user', content: [text('next', 200)] }]), { model: OPUS_45 }),
        thinkingTokens,
        T0 + 1000,
      );
      expect(total(usage)).toBe(3000 + 300 + 100 + 200);
      expect(usage.cache_read_input_tokens).toBe(3000);
    });

    it('can be switched off for what-if comparisons', () => {
      const sim = new CacheSimulator({ dropsEarlierThinking: () => false });
      const usage = sim.step(
        request(withBreakpointOnLast([...loop, { role: 'user', content: [text('next', 200)] }]), { model: SONNET_45 }),
        thinkingTokens,
        T0,
      );
      expect(total(usage)).toBe(3000 + 300 + 100 + 200);
    });
  });

  it('simulates a 300-call session of 2,000-block requests, each call reading the last (speed: bench section timings)', () => {
    const sim = new CacheSimulator();
    const system = [text('system', 3000, true)];
    const log: SimBlock[] = [];
    for (let i = 0; i < 1700; i++) log.push(text(`b${i}`, 40));
    let reads = 0;
    for (let call = 0; call < 300; call++) {
      log.push(text(`new${call}`, 40));
      const blocks = log.map((b, i) => (i === log.length - 1 ? { ...b, cache_control: EPHEMERAL } : b));
      const body: SimRequest = { model: MODEL, system, messages: [{ role: 'user', content: blocks }] };
      const u = sim.step(body, tokensOf, T0 + call * 10_000);
      if (call > 0) reads += u.cache_read_input_tokens > 0 ? 1 : 0;
    }
    expect(reads).toBe(299);
  });
});
