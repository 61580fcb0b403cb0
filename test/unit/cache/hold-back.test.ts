import { describe, expect, it } from 'vitest';
import { quoteHoldBack } from '../../../src/core/cache/hold-back';
import { planBreakpoints } from '../../../src/core/cache/planner';
import { CacheSimulator, type SimBlock } from '../../../src/core/cache/simulator';
import { cacheControlOf } from '../../../src/core/api/blocks';
import type { RequestBody } from '../../../src/core/api/wire';
import { blockText } from '../../../src/core/session/log';
import type { ContentBlockParam } from '../../../src/core/session/types';
import { ContextEngine } from '../../../src/core/engine';
import { bodyOf, result, sessionOf, TEST_CHARS_PER_TOKEN, text, thinking, use } from '../request/helpers';

const big = (n: number): string => 'word '.repeat(n);
const tokensOfBlock = (b: SimBlock): number =>
  Math.ceil(blockText(b as ContentBlockParam).length / TEST_CHARS_PER_TOKEN);

function planOpts(body: RequestBody, holdBackLast: boolean) {
  const holdBackFrom = holdBackLast ? body.messages.length - 1 : undefined;
  return {
    model: 'claude-sonnet-4-5',
    ttl: '5m' as const,
    toolsTokens: 0,
    systemTokens: 0,
    holdBackFrom,
    tokensOf: (m: number, b: number) => {
      const c = body.messages[m].content;
      const block: ContentBlockParam = typeof c === 'string' ? { type: 'text', text: c } : c[b];
      return Math.ceil(blockText(block).length / TEST_CHARS_PER_TOKEN);
    },
  };
}

function marked(body: RequestBody): string[] {
  const out: string[] = [];
  body.messages.forEach(
    (m, i) => typeof m.content !== 'string' && m.content.forEach((b, j) => cacheControlOf(b) && out.push(`${i}.${j}`)),
  );
  return out;
}

describe('write-time placement quote', () => {
  it('holds back a large result that is summarized next call when the loop is expected to go on', () => {
    const q = quoteHoldBack({ held: 20_000, saved: 19_000, ttl: '5m', restOfLoop: 8, pWarmGap: 0.5 });
    expect(q.gainNow).toBeGreaterThan(0);
    expect(q.pays).toBe(true);
  });

  it('writes as usual when the turn is expected to end and the next prompt to find the cache warm', () => {
    const q = quoteHoldBack({ held: 20_000, saved: 19_000, ttl: '5m', restOfLoop: 0.1, pWarmGap: 0.95 });
    expect(q.ifEnds).toBeLessThan(0);
    expect(q.pays).toBe(false);
  });

  it('nothing due next call: never held back', () => {
    expect(quoteHoldBack({ held: 20_000, saved: 0, ttl: '5m', restOfLoop: 50, pWarmGap: 0.5 }).pays).toBe(false);
  });

  it('a 1-hour write makes holding back worth more now', () => {
    const five = quoteHoldBack({ held: 10_000, saved: 9_000, ttl: '5m', restOfLoop: 3, pWarmGap: 0.5 });
    const hour = quoteHoldBack({ held: 10_000, saved: 9_000, ttl: '1h', restOfLoop: 3, pWarmGap: 0.5 });
    expect(hour.gainNow).toBeGreaterThan(five.gainNow);
  });
});

describe('planner: holdBackLast', () => {
  const messages: RequestBody['messages'] = [
    { role: 'user', content: [text(big(3000))] },
    { role: 'assistant', content: [use('toolu_1')] },
    { role: 'user', content: [result('toolu_1', big(8000))] },
  ];

  it('puts the tail breakpoint on the last cacheable block before the final message', () => {
    const body = bodyOf(messages);
    const plan = planBreakpoints(body, planOpts(body, true));
    expect(plan.heldBack).toBe(true);
    expect(marked(plan.body)).toEqual(['1.0']);
  });

  it('falls back to the usual tail when nothing before the final message reaches the minimum', () => {
    const small: RequestBody['messages'] = [
      { role: 'user', content: [text('hi')] },
      { role: 'assistant', content: [use('toolu_1')] },
      messages[2],
    ];
    const body = bodyOf(small);
    const plan = planBreakpoints(body, planOpts(body, true));
    expect(plan.heldBack).toBe(false);
    expect(marked(plan.body)).toEqual(['2.0']);
  });

  it('priced by the simulator: holding back then summarizing costs less than writing then summarizing', () => {
    const summarized: RequestBody['messages'] = [
      messages[0],
      messages[1],
      { role: 'user', content: [result('toolu_1', 'summary of the read')] },
      { role: 'assistant', content: [use('toolu_2')] },
      { role: 'user', content: [result('toolu_2', 'short')] },
    ];
    const cost = (hold: boolean): number => {
      const sim = new CacheSimulator();
      let total = 0;
      const bodies = [bodyOf(messages), bodyOf(summarized)];
      bodies.forEach((b, k) => {
        const plan = planBreakpoints(b, planOpts(b, hold && k === 0));
        const u = sim.step(plan.body, tokensOfBlock, k * 10_000);
        total += u.input_tokens + 1.25 * u.cache_creation_input_tokens + 0.1 * u.cache_read_input_tokens;
      });
      return total;
    };
    expect(cost(true)).toBeLessThan(cost(false));
  });
});

describe('engine: a tool loop with large results', () => {
  it('holds the fresh result out of the write, then summarizes it at the next call without a rewrite', () => {
    const s = sessionOf([
      ['user', [text(`fix the bug ${big(2000)}`)]],
      ['assistant', [use('toolu_1')]],
      ['user', [result('toolu_1', `line ${big(6000)}`)]],
      ['assistant', [use('toolu_2')]],
      ['user', [result('toolu_2', `line ${big(6000)}`)]],
      ['assistant', [use('toolu_3')]],
      ['user', [result('toolu_3', `line ${big(6000)}`)]],
    ]);
    const engine = new ContextEngine(s, { strategy: 'default' });
    const calls = [3, 5, 7].map((upTo, k) => engine.prepare({ callIndex: k, upTo, now: 1_000 + k * 5_000 }));
    // The final message of the second call is not under a breakpoint: it went as plain input.
    expect(calls[1].heldFrom).toBe(4);
    const last = calls[1].body.messages.length - 1;
    const finalMarked = (calls[1].body.messages[last].content as ContentBlockParam[]).some((b) => cacheControlOf(b));
    expect(finalMarked).toBe(false);
    // Next call it is summarized, and the applier records it as outside the cached prefix.
    const applied = engine.decisions
      .all()
      .filter((d) => d.action === 'apply' && d.targets.includes('m4.0') && d.by.startsWith('strategy:'));
    expect(applied.length).toBe(1);
    expect(applied[0].reason).toContain('no cache cost');
    // Every placement decision states both prices and the verdict.
    const placed = engine.decisions.all().filter((d) => d.by === 'cache-planner');
    expect(placed.length).toBeGreaterThan(0);
    for (const d of placed) expect(d.reason).toMatch(/net -?\d+/);
  });
});

describe('engine: a round with a long tool input', () => {
  it('holds the whole round out of the write, then compacts the input and summarizes the result at the next call for free', () => {
    const write = (id: string) => use(id, 'Write', { file_path: 'a.ts', content: big(3000) });
    const s = sessionOf([
      ['user', [text(`write the files ${big(2000)}`)]],
      ['assistant', [write('toolu_1')]],
      ['user', [result('toolu_1', `wrote file 1: ${big(400)}`)]],
      ['assistant', [write('toolu_2')]],
      ['user', [result('toolu_2', `wrote file 2: ${big(400)}`)]],
      ['assistant', [write('toolu_3')]],
      ['user', [result('toolu_3', `wrote file 3: ${big(400)}`)]],
    ]);
    const engine = new ContextEngine(s, { strategy: 'default' });
    const calls = [3, 5, 7].map((upTo, k) => engine.prepare({ callIndex: k, upTo, now: 1_000 + k * 5_000 }));
    // The second call holds its final round (assistant message m3 and results m4) out of the write.
    expect(calls[1].heldFrom).toBe(3);
    const marked = calls[1].breakpoints.filter((b) => b.messageIndex !== undefined).map((b) => b.messageIndex!);
    expect(Math.max(...marked)).toBeLessThan(3);
    // At the third call the input of m3 and the result in m4 are trimmed as content outside the cached prefix.
    const applied = engine.decisions
      .all()
      .filter((d) => d.callIndex === 2 && d.action === 'apply' && d.by.startsWith('strategy:summarize'));
    expect(applied.some((d) => d.targets.includes('m3.0'))).toBe(true);
    expect(applied.some((d) => d.targets.includes('m4.0'))).toBe(true);
    for (const d of applied) expect(d.reason).toContain('no cache cost');
  });
});

describe('engine: thinking of the final round', () => {
  const withThinking = (k: number) => [thinking(`plan ${k} ${big(3000)}`), use(`toolu_${k}`)];
  const specs = (): Parameters<typeof sessionOf>[0] => [
    ['user', [text(`task ${big(6000)}`)]],
    ['assistant', withThinking(1)],
    ['user', [result('toolu_1', 'ok 1')]],
    ['assistant', withThinking(2)],
    ['user', [result('toolu_2', 'ok 2')]],
    ['assistant', withThinking(3)],
    ['user', [result('toolu_3', 'ok 3')]],
  ];
  const run = (model: string) => {
    const engine = new ContextEngine(sessionOf(specs()), { strategy: 'default', model });
    return [3, 5, 7].map((upTo, k) => engine.prepare({ callIndex: k, upTo, now: 1_000 + k * 5_000 }));
  };

  it('dropping it next call (an edit of the cached round) makes the round worth holding back', () => {
    expect(run('claude-opus-4-5')[1].heldFrom).toBe(3);
    expect(run('claude-sonnet-4-6')[1].heldFrom).toBe(3);
  });

  it('without anything due on the round, it is written as usual', () => {
    const engine = new ContextEngine(sessionOf(specs()), {
      strategy: 'default',
      model: 'claude-opus-4-5',
      config: { strategies: { 'summarize-tool-results': { dropThinking: false } } },
    });
    const calls = [3, 5, 7].map((upTo, k) => engine.prepare({ callIndex: k, upTo, now: 1_000 + k * 5_000 }));
    expect(calls[1].heldFrom).toBeUndefined();
  });
});
