/**
 * The simulator's reuse of unchanged messages (reuseUnchangedMessages) is an
 * optimization only: over random request sequences (messages appended, an
 * earlier message replaced by a new array, thinking blocks on models that drop
 * them, images, breakpoints moved, TTLs switched, idle gaps, invalidations), a
 * simulator that reuses reports exactly the usage and trace of one that walks
 * every block.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CacheSimulator, type SimBlock, type SimMessage } from '../../src/core/cache/simulator';

const RUNS = Math.max(50, Math.floor(Number(process.env.TRIMLINE_PROP_RUNS ?? 10_000) / 20));

type Op =
  | { t: 'append'; role: 'user' | 'assistant'; blocks: { kind: Kind; size: number }[] }
  | { t: 'replace'; pick: number; size: number }
  | { t: 'string'; size: number }
  | { t: 'call'; gapMs: number; ttl: '5m' | '1h'; mark: 'last' | 'earlier' | 'none'; model: 0 | 1 }
  | { t: 'invalidate' };

type Kind = 'text' | 'thinking' | 'tool' | 'image';
const block = fc.record({
  kind: fc.constantFrom<Kind>('text', 'thinking', 'tool', 'text', 'image'),
  size: fc.integer({ min: 0, max: 3000 }),
});
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant('append' as const),
      role: fc.constantFrom('user' as const, 'assistant' as const),
      blocks: fc.array(block, { minLength: 0, maxLength: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('replace' as const),
      pick: fc.nat(),
      size: fc.integer({ min: 1, max: 2000 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('string' as const), size: fc.integer({ min: 0, max: 500 }) }) },
  {
    weight: 6,
    arbitrary: fc.record({
      t: fc.constant('call' as const),
      gapMs: fc.constantFrom(1_000, 60_000, 400_000, 4_000_000),
      ttl: fc.constantFrom('5m' as const, '1h' as const),
      mark: fc.constantFrom('last' as const, 'last' as const, 'earlier' as const, 'none' as const),
      model: fc.constantFrom(0 as const, 1 as const),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ t: 'invalidate' as const }) },
);

/** Models: one keeps earlier thinking, one drops it (and so does not key the cache on it). */
const MODELS = ['claude-opus-4-5', 'claude-sonnet-4-5'] as const;

describe('simulator: reusing unchanged messages changes no number', () => {
  it('gives the usage and trace of a full walk on every step', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 60 }), (ops) => {
        const sizes = new WeakMap<object, number>();
        const tokensOf = (b: SimBlock): number => sizes.get(b) ?? 0;
        let serial = 0;
        const make = (kind: Kind, size: number): SimBlock => {
          const id = `b${serial++}`;
          const shapes: Record<Kind, object> = {
            thinking: { type: 'thinking', thinking: id, signature: 's' },
            tool: { type: 'tool_result', tool_use_id: id, content: id },
            text: { type: 'text', text: id },
            image: { type: 'image', source: { type: 'base64', media_type: 'image/png', data: id } },
          };
          const b = shapes[kind] as SimBlock;
          sizes.set(b, size);
          return b;
        };
        const reuse = new CacheSimulator({ minTokens: 1024, reuseUnchangedMessages: true });
        const walk = new CacheSimulator({ minTokens: 1024 });
        const messages: SimMessage[] = [{ role: 'user', content: [make('text', 500)] }];
        const marked = new WeakMap<SimBlock, SimBlock>();
        const withCc = (b: SimBlock, ttl: '5m' | '1h'): SimBlock => {
          let m = marked.get(b);
          if (!m || (m.cache_control?.ttl ?? '5m') !== ttl) {
            m = {
              ...b,
              cache_control: ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' },
            } as SimBlock;
            sizes.set(m, sizes.get(b) ?? 0);
            marked.set(b, m);
          }
          return m;
        };
        const system = [make('text', 2000)];
        let now = 0;
        for (const o of ops) {
          if (o.t === 'append') messages.push({ role: o.role, content: o.blocks.map((b) => make(b.kind, b.size)) });
          else if (o.t === 'string') messages.push({ role: 'user', content: 'x'.repeat(o.size) });
          else if (o.t === 'replace') {
            const i = o.pick % messages.length;
            const m = messages[i];
            messages[i] = {
              role: m.role,
              content: [make('text', o.size), ...(typeof m.content === 'string' ? [] : m.content.slice(1))],
            };
          } else if (o.t === 'invalidate') {
            reuse.invalidateMessages();
            walk.invalidateMessages();
          } else {
            now += o.gapMs;
            const sent = messages.slice();
            const at = o.mark === 'last' ? sent.length - 1 : o.mark === 'earlier' ? Math.floor(sent.length / 2) : -1;
            const m = sent[at];
            if (m && typeof m.content !== 'string' && m.content.length)
              sent[at] = {
                role: m.role,
                content: [...m.content.slice(0, -1), withCc(m.content[m.content.length - 1], o.ttl)],
              };
            const body = { model: MODELS[o.model], system, messages: sent };
            const a = reuse.step(body, tokensOf, now);
            const b = walk.step(body, tokensOf, now);
            expect(a).toEqual(b);
            expect(reuse.lastTrace).toEqual(walk.lastTrace);
          }
        }
      }),
      { numRuns: RUNS },
    );
  });
});
