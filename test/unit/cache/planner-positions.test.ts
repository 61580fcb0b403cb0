/**
 * The planner keeps the positions of the messages a plan shares with the previous one
 * (`tokensKey`): over growing requests, with messages changed, dropped and marked, string
 * content, a changed head and other plans in between, it plans exactly what a plan that
 * counts every block anew plans.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planBreakpoints, type PlanOptions } from '../../../src/core/cache/planner';
import type { RequestBody } from '../../../src/core/api/wire';
import type { ContentBlockParam, MessageParam } from '../../../src/core/session/types';

type Op =
  | { t: 'grow'; blocks: number; words: number }
  | { t: 'change'; back: number }
  | { t: 'drop' }
  | { t: 'text' }
  | { t: 'head' }
  | { t: 'other' };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      t: fc.constant('grow' as const),
      blocks: fc.integer({ min: 1, max: 4 }),
      words: fc.integer({ min: 1, max: 3000 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('change' as const), back: fc.nat({ max: 6 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('drop' as const) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('text' as const) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('head' as const) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('other' as const) }) },
);

/**
 * Tokens per block object, as the builder's memo gives them (fixed once counted); a string's block is new each time.
 */
function counter(): (b: ContentBlockParam) => number {
  const memo = new WeakMap<object, number>();
  return (b) => {
    let t = memo.get(b);
    if (t === undefined) memo.set(b, (t = Math.ceil(JSON.stringify(b).length / 4)));
    return t;
  };
}

function plan(body: RequestBody, count: (b: ContentBlockParam) => number, head: number, key: object | undefined) {
  const opts: PlanOptions = {
    model: 'claude-sonnet-4-5',
    ttl: '5m',
    minTokens: 200,
    toolsTokens: 0,
    systemTokens: head,
    tokensOf: (m, b) => {
      const c = body.messages[m].content;
      return count(typeof c === 'string' ? { type: 'text', text: c } : c[b]);
    },
    tokensKey: key,
  };
  const p = planBreakpoints(body, opts);
  return JSON.stringify([p.body.messages, p.breakpoints, p.heldBack]);
}

describe('planner positions kept between plans', () => {
  it('plan exactly as counting every block anew', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 30 }), (ops) => {
        let n = 0;
        let messages: MessageParam[] = [{ role: 'user', content: [{ type: 'text', text: 'task' }] }];
        let head = 300;
        const bodies: { body: RequestBody; head: number; other: boolean }[] = [];
        for (const o of ops) {
          if (o.t === 'grow') {
            const blocks: ContentBlockParam[] = Array.from({ length: o.blocks }, (_, k) => ({
              type: 'text',
              text: `${n++}:${k} ${'w'.repeat(o.words)}`,
            }));
            const role = messages[messages.length - 1].role === 'user' ? 'assistant' : 'user';
            messages = [...messages, { role, content: blocks }];
          } else if (o.t === 'change' && messages.length > 1) {
            const i = Math.max(1, messages.length - 1 - o.back);
            messages = messages.map((m, j) =>
              j === i ? { role: m.role, content: [{ type: 'text', text: `changed ${n++}` }] } : m,
            );
          } else if (o.t === 'drop' && messages.length > 1) messages = messages.slice(0, -1);
          else if (o.t === 'text')
            messages = [
              ...messages,
              {
                role: messages[messages.length - 1].role === 'user' ? 'assistant' : 'user',
                content: `plain ${n++} ${'s'.repeat(400)}`,
              },
            ];
          else if (o.t === 'head') head += 100;
          bodies.push({
            body: { model: 'claude-sonnet-4-5', max_tokens: 10, system: 's', messages },
            head,
            other: o.t === 'other',
          });
        }
        // One memo (key) for the stream, another plan in between where the op says so; then every plan counted anew.
        const key = {};
        const count = counter();
        const kept = bodies.map(({ body, head: h, other }) => {
          // Another stream: other messages, or these very messages counted otherwise (another memo).
          if (other)
            plan(
              {
                model: 'claude-sonnet-4-5',
                max_tokens: 10,
                messages: [{ role: 'user', content: [{ type: 'text', text: 'elsewhere' }] }],
              },
              counter(),
              50,
              {},
            );
          if (other) plan(body, (b) => 2 * count(b) + 1, h, {});
          return plan(body, count, h, key);
        });
        const fresh = bodies.map(({ body, head: h }) => plan(body, counter(), h, undefined));
        expect(kept).toEqual(fresh);
      }),
      { numRuns: 300 },
    );
  });
});
