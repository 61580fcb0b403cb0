import { describe, expect, it } from 'vitest';
import {
  BREAKPOINT_LOOKBACK_BLOCKS,
  MAX_BREAKPOINTS,
  planBreakpoints,
  type PlanOptions,
} from '../../../src/core/cache/planner';
import { CacheSimulator, type SimBlock } from '../../../src/core/cache/simulator';
import { RequestBuilder, type BuildResult } from '../../../src/core/request/build';
import { cacheControlOf } from '../../../src/core/api/blocks';
import type { Breakpoint, RequestBody } from '../../../src/core/api/wire';
import { validateRequest } from '../../../src/core/request/validate';
import { blockText } from '../../../src/core/session/log';
import { Session } from '../../../src/core/session/session';
import type { ContentBlockParam } from '../../../src/core/session/types';
import { bodyOf, charsAccountant, result, TEST_CHARS_PER_TOKEN, text, thinking, use } from '../request/helpers';

/** Planner options counting chars/4 over the body's own blocks. */
function optsFor(body: RequestBody, extra: Partial<PlanOptions> = {}): PlanOptions {
  return {
    model: 'claude-sonnet-4-5',
    ttl: '5m',
    toolsTokens: 0,
    systemTokens: 0,
    tokensOf: (m, b) => {
      const c = body.messages[m].content;
      const block: ContentBlockParam = typeof c === 'string' ? { type: 'text', text: c } : c[b];
      return Math.ceil(blockText(block).length / TEST_CHARS_PER_TOKEN);
    },
    ...extra,
  };
}

/** Every cache_control location of a body, in order. */
function marks(body: RequestBody): string[] {
  const out: string[] = [];
  body.tools?.forEach((t, k) => cacheControlOf(t) && out.push(`tools.${k}`));
  if (Array.isArray(body.system)) body.system.forEach((s, k) => cacheControlOf(s) && out.push(`system.${k}`));
  body.messages.forEach(
    (m, i) =>
      typeof m.content !== 'string' &&
      m.content.forEach((b, j) => cacheControlOf(b) && out.push(`messages.${i}.content.${j}`)),
  );
  return out;
}

const big = (n: number): string => 'word '.repeat(n);

describe('planBreakpoints', () => {
  it('removes pre-existing cache_control first, then places its own (≤ 4)', () => {
    const cc = { type: 'ephemeral' as const };
    const body = bodyOf(
      [
        {
          role: 'user',
          content: [
            { ...text(big(2000)), cache_control: cc },
            { ...text('q'), cache_control: cc },
          ],
        },
        { role: 'assistant', content: [{ ...use('toolu_1'), cache_control: cc }] },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ ...text('r'), cache_control: cc }] }],
        },
      ],
      { cache_control: cc, system: [{ type: 'text', text: big(3000), cache_control: cc }] },
    );
    const plan = planBreakpoints(body, optsFor(body, { systemTokens: 3750 }));
    expect(plan.body.cache_control).toBeUndefined();
    expect(marks(plan.body)).toEqual(['system.0', 'messages.2.content.0']);
    expect(JSON.stringify(plan.body.messages[2].content)).not.toContain('"text":"r","cache_control"');
    expect(plan.breakpoints.map((b) => b.at)).toEqual(['system', 'messages.2.content.0']);
    expect(validateRequest(plan.body)).toEqual([]);
  });

  it('respects the per-model minimum (prefix below it gets no breakpoint)', () => {
    const body = bodyOf([{ role: 'user', content: big(300) }]); // ~375 tokens
    expect(planBreakpoints(body, optsFor(body)).breakpoints).toEqual([]);
    const mid = bodyOf([{ role: 'user', content: big(1000) }]); // ~1,250 tokens: ≥ 1,024, < 4,096
    expect(planBreakpoints(mid, optsFor(mid, { model: 'claude-sonnet-4-5-20250929' })).breakpoints).toHaveLength(1);
    expect(planBreakpoints(mid, optsFor(mid, { model: 'claude-haiku-4-5' })).breakpoints).toEqual([]);
    expect(planBreakpoints(mid, optsFor(mid, { model: 'claude-opus-4-6' })).breakpoints).toEqual([]);
    expect(planBreakpoints(mid, optsFor(mid, { model: 'claude-opus-4-7' })).breakpoints).toEqual([]);
    // tools + system below the minimum: no prefix breakpoint even though the conversation gets one.
    const withSys = bodyOf([{ role: 'user', content: big(1000) }], { system: 'short' });
    const plan = planBreakpoints(withSys, optsFor(withSys, { systemTokens: 2 }));
    expect(plan.breakpoints.map((b) => b.at)).toEqual(['messages.0.content.0']);
    for (const b of plan.breakpoints) expect(b.prefixTokens).toBeGreaterThanOrEqual(1024);
  });

  it('never marks thinking, redacted thinking or empty text; falls back to the last cacheable block', () => {
    const body = bodyOf([
      { role: 'user', content: big(2000) },
      { role: 'assistant', content: [thinking('t'), { type: 'redacted_thinking', data: 'x' }] },
    ]);
    const plan = planBreakpoints(body, optsFor(body));
    expect(marks(plan.body)).toEqual(['messages.0.content.0']);
    expect(plan.body.messages[0].content).toEqual([
      { type: 'text', text: big(2000), cache_control: { type: 'ephemeral' } },
    ]);
  });

  it('puts the prefix breakpoint on the last tool when there is no system text; 1h ttl everywhere', () => {
    const tools = [
      { name: 'a', input_schema: { type: 'object' as const } },
      { name: 'b', input_schema: { type: 'object' as const } },
    ];
    const body = bodyOf([{ role: 'user', content: big(2000) }], { tools });
    const plan = planBreakpoints(body, optsFor(body, { toolsTokens: 5000, ttl: '1h' }));
    expect(marks(plan.body)).toEqual(['tools.1', 'messages.0.content.0']);
    expect(cacheControlOf(plan.body.tools![1])).toEqual({ type: 'ephemeral', ttl: '1h' });
    expect(tools[1]).not.toHaveProperty('cache_control');
    expect(validateRequest(plan.body)).toEqual([]);
  });

  it('does not mutate its input', () => {
    const body = bodyOf([{ role: 'user', content: [text(big(2000))] }], {
      system: [{ type: 'text', text: big(2000) }],
    });
    const before = JSON.stringify(body);
    planBreakpoints(body, optsFor(body, { systemTokens: 2500 }));
    expect(JSON.stringify(body)).toBe(before);
  });

  it('keeps a read anchor on the previous write when the tail moved 20+ blocks past it', () => {
    const messages: RequestBody['messages'] = [{ role: 'user', content: big(2000) }];
    const body1 = bodyOf([...messages]);
    const p1 = planBreakpoints(body1, optsFor(body1));
    expect(p1.breakpoints.map((b) => b.at)).toEqual(['messages.0.content.0']);
    const uses = Array.from({ length: 15 }, (_, k) => use(`toolu_${k}`));
    const results = uses.map((u) => result(u.id));
    const body2 = bodyOf([...messages, { role: 'assistant', content: uses }, { role: 'user', content: results }]);
    const p2 = planBreakpoints(body2, optsFor(body2, { previous: p1.breakpoints }));
    expect(p2.breakpoints.map((b) => b.at)).toEqual(['messages.0.content.0', 'messages.2.content.14']);
    expect(p2.breakpoints[0].reason).toMatch(/read anchor/);
    // Within the lookback no anchor is needed.
    const body3 = bodyOf([
      ...messages,
      { role: 'assistant', content: uses.slice(0, 3) },
      { role: 'user', content: results.slice(0, 3) },
    ]);
    expect(planBreakpoints(body3, optsFor(body3, { previous: p1.breakpoints })).breakpoints).toHaveLength(1);
  });
});

/** Flat index of each request block (over messages). */
function flatIndex(r: BuildResult): (id: string) => number | undefined {
  const offsets: number[] = [];
  let g = 0;
  for (const row of r.blockMap.rows) {
    offsets.push(g);
    g += row.length;
  }
  return (id) => {
    const p = r.blockMap.positionOf(id);
    return p ? offsets[p.messageIndex] + p.blockIndex : undefined;
  };
}

describe('planner on a 200-message session, call by call', () => {
  it('≤ 4 breakpoints, minimum respected, every previous write within the 20-block lookback of a breakpoint', () => {
    const session = new Session({ system: big(1500) });
    session.append('user', 'Refactor the project.');
    const builder = new RequestBuilder();
    let previous: readonly Breakpoint[] = [];
    let round = 0;
    let anchors = 0;
    const sim = new CacheSimulator();
    const simTokens = (b: SimBlock): number => Math.ceil(JSON.stringify(b).length / TEST_CHARS_PER_TOKEN);
    const SECOND_MS = 1000;
    while (session.messages.length < 200) {
      const width = round % 9 === 4 ? 14 : 1; // every 9th round: 14 parallel calls (28+ blocks)
      const ids = Array.from({ length: width }, (_, k) => `toolu_${round}_${k}`);
      session.append('assistant', [text(`round ${round}`), ...ids.map((id) => use(id))]);
      session.append(
        'user',
        ids.map((id) => result(id, big(round % 3 === 0 ? 300 : 20))),
      );
      round++;
      const r = builder.build(session, {
        model: 'claude-sonnet-4-5',
        maxTokens: 1000,
        cacheTtl: '5m',
        accountant: charsAccountant,
        previousBreakpoints: previous,
      });
      expect(validateRequest(r.body)).toEqual([]);
      expect(r.breakpoints.length).toBeLessThanOrEqual(MAX_BREAKPOINTS);
      expect(marks(r.body)).toHaveLength(r.breakpoints.length);
      for (const b of r.breakpoints) expect(b.prefixTokens).toBeGreaterThanOrEqual(1024);
      const g = flatIndex(r);
      const written = previous
        .filter((b) => b.messageIndex !== undefined)
        .map((b) => g(b.at))
        .filter((x): x is number => x !== undefined);
      if (written.length > 0) {
        const w = Math.max(...written);
        const here = r.breakpoints.filter((b) => b.messageIndex !== undefined).map((b) => g(b.at)!);
        expect(here.some((x) => x >= w && x - w < BREAKPOINT_LOOKBACK_BLOCKS)).toBe(true);
      }
      // Replayed through the cache simulator, every call after the first reads the previous prefix.
      const usage = sim.step(r.body, simTokens, round * 10 * SECOND_MS);
      if (round > 1) expect(usage.cache_read_input_tokens).toBeGreaterThan(0);
      anchors += r.breakpoints.filter((b) => b.reason.startsWith('read anchor')).length;
      previous = r.breakpoints;
    }
    expect(anchors).toBeGreaterThan(0);
  });
});
