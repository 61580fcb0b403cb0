/**
 * The engine's cache simulator and the benchmark's independent one
 * (test/bench/reference-cache-sim.ts, written from the reference alone) must agree on
 * every call of any request sequence: appends, edits in the middle, moved and
 * extra breakpoints, 1-hour TTLs, pauses past the TTL, thinking of earlier turns.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CacheSimulator, type SimRequest } from '../../../src/core/cache/simulator';
import { ReferenceCache, type RefRequest } from '../../bench/reference-cache-sim';

type Block = Record<string, unknown>;
interface Msg {
  role: 'user' | 'assistant';
  content: Block[];
}

const tokensOf = (b: object): number => {
  const x = b as { text?: string; thinking?: string; type?: string };
  return x.type === 'thinking' ? (x.thinking?.length ?? 0) : typeof x.text === 'string' ? x.text.length : 50;
};

/** One step of a session: what happens to the conversation before the next call. */
interface Action {
  kind: 'tool-round' | 'parallel' | 'prompt' | 'edit' | 'same';
  width: number;
  size: number;
  at: number;
  pauseS: number;
  breakpoints: number[];
  oneHour: boolean;
  topLevel: boolean;
}
const action: fc.Arbitrary<Action> = fc.record({
  kind: fc.constantFrom<Action['kind'][]>('tool-round', 'parallel', 'prompt', 'edit', 'same'),
  width: fc.integer({ min: 2, max: 12 }),
  size: fc.integer({ min: 1, max: 900 }),
  at: fc.nat(),
  pauseS: fc.constantFrom(5, 60, 299, 301, 900, 4000),
  breakpoints: fc.uniqueArray(fc.nat({ max: 60 }), { maxLength: 3 }),
  oneHour: fc.boolean(),
  topLevel: fc.boolean(),
});

function conversation(
  steps: Action[],
): { body: Msg[]; at: number; bps: number[]; oneHour: boolean; topLevel: boolean }[] {
  const msgs: Msg[] = [{ role: 'user', content: [{ type: 'text', text: 'start'.padEnd(400, '.') }] }];
  let t = 1_700_000_000_000;
  let n = 0;
  return steps.map((s) => {
    n++;
    if (s.kind === 'tool-round') {
      msgs.push({
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: `t${n}`.padEnd(s.size, '~'), signature: 's' },
          { type: 'tool_use', id: `toolu_${n}`, name: 'Read', input: { n } },
        ],
      });
      msgs.push({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: `toolu_${n}`, content: `r${n}`.padEnd(s.size, 'r') }],
      });
    } else if (s.kind === 'parallel') {
      // Parallel calls: many positions at once, so breakpoints move by any distance (20 included).
      const ids = Array.from({ length: s.width }, (_, k) => `toolu_${n}_${k}`);
      msgs.push({
        role: 'assistant',
        content: ids.map((id) => ({ type: 'tool_use', id, name: 'Grep', input: { id } })),
      });
      msgs.push({
        role: 'user',
        content: ids.map((id) => ({ type: 'tool_result', tool_use_id: id, content: `${id}`.padEnd(s.size, 'g') })),
      });
    } else if (s.kind === 'prompt') {
      msgs.push({
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: `a${n}`.padEnd(40, '~'), signature: 's' },
          { type: 'text', text: `answer ${n}` },
        ],
      });
      msgs.push({ role: 'user', content: [{ type: 'text', text: `p${n}`.padEnd(s.size, 'p') }] });
    } else if (s.kind === 'edit' && msgs.length > 2) {
      const i = 1 + (s.at % (msgs.length - 1));
      msgs[i] = {
        ...msgs[i],
        content: msgs[i].content.map((b) => (b.type === 'text' ? { ...b, text: `edited ${n}` } : b)),
      };
    }
    t += s.pauseS * 1000;
    return { body: structuredClone(msgs), at: t, bps: s.breakpoints, oneHour: s.oneHour, topLevel: s.topLevel };
  });
}

/** Put breakpoints on message blocks counted from the end (thinking and the like are skipped by both sims). */
function request(model: string, c: ReturnType<typeof conversation>[number]): SimRequest {
  const cc = c.oneHour ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
  const flat: Block[] = c.body.flatMap((m) => m.content);
  for (const k of c.bps) {
    const b = flat[flat.length - 1 - (k % flat.length)];
    if (b.type !== 'thinking') b.cache_control = cc;
  }
  const system = [{ type: 'text', text: 'system'.padEnd(1500, '.'), cache_control: { type: 'ephemeral' } }];
  return {
    model,
    system,
    messages: c.body,
    ...(c.topLevel ? { cache_control: { type: 'ephemeral' } } : {}),
  } as unknown as SimRequest;
}

describe('engine cache simulator vs the independent reference simulator', () => {
  for (const model of ['claude-sonnet-4-5-20250929', 'claude-opus-4-5-20251101', 'claude-sonnet-4-6']) {
    it(`agree on every call of random sessions (${model})`, () => {
      fc.assert(
        fc.property(fc.array(action, { minLength: 1, maxLength: 40 }), (steps) => {
          const engine = new CacheSimulator();
          const ref = new ReferenceCache({ tokensOf });
          for (const c of conversation(steps)) {
            const body = request(model, c);
            // Now and then the client changes its messages unseen (a call of the recording that read only the system
            // prompt).
            if (c.at % 7 === 3) {
              engine.invalidateMessages();
              ref.invalidateMessages();
            }
            const e = engine.step(body, tokensOf, c.at);
            const r = ref.call(body as unknown as RefRequest, c.at);
            expect([
              e.cache_read_input_tokens,
              e.cache_creation.ephemeral_5m_input_tokens,
              e.cache_creation.ephemeral_1h_input_tokens,
              e.input_tokens,
            ]).toEqual([r.read, r.write5m, r.write1h, r.uncached]);
          }
        }),
        { numRuns: 200 },
      );
    });
  }
});
