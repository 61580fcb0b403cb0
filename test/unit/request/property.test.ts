/**
 * Property: whatever the log and the overlays, the builder returns a body the
 * validator accepts (or refuses only when nothing is left to send), and its
 * blockMap points at the blocks the view sends. 1,000 runs here; the lead's
 * property suite runs more.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RequestBuilder, RequestRefusedError } from '../../../src/core/request/build';
import { assemble, orphanText } from '../../../src/core/request/assemble';
import { ResumableAssembly } from '../../../src/core/request/assemble-resume';
import { isSyntheticId } from '../../../src/core/request/render';
import { RULE, validateRequest } from '../../../src/core/request/validate';
import type { Author } from '../../../src/core/session/overlay';
import type { Session } from '../../../src/core/session/session';
import type { ContentBlockParam } from '../../../src/core/session/types';
import { charsAccountant, sessionOf, type Spec } from './helpers';

/** 1,000 by default; TRIMLINE_PROP_RUNS raises it for a longer local run. */
const RUNS = Number(process.env.TRIMLINE_PROP_RUNS ?? 1000);
const TOOL_IDS = ['toolu_a', 'toolu_b', 'toolu_c', 'toolu_d', 'toolu_e'];
const TEXTS = ['hello', 'see the file', '', '  \n', 'done. '];
const MODELS = ['claude-sonnet-4-5', 'claude-opus-4-6', 'claude-sonnet-5', 'claude-mythos-preview'];

/** Block recipes, interpreted per role by {@link blocksFor} so most logs look like agent sessions. */
const message = fc.record({
  flip: fc.integer({ min: 0, max: 9 }),
  blocks: fc.array(
    fc.record({ kind: fc.integer({ min: 0, max: 19 }), pick: fc.nat({ max: 7 }), text: fc.constantFrom(...TEXTS) }),
    { maxLength: 4 },
  ),
  flag: fc.integer({ min: 0, max: 19 }),
});

type Recipe = { kind: number; pick: number; text: string };

/**
 * Assistant: text, tool_use (fresh ids, sometimes a reused one), thinking first when present, rarely a misplaced
 * result.
 * User: results answering the previous assistant's calls (sometimes an unknown id), text, rarely a misplaced call.
 */
function blocksFor(role: 'user' | 'assistant', recipes: Recipe[], i: number, prevUses: string[]): ContentBlockParam[] {
  const out: ContentBlockParam[] = [];
  recipes.forEach((r, k) => {
    const pool = TOOL_IDS[r.pick % TOOL_IDS.length];
    if (role === 'assistant') {
      if (r.kind < 6) out.push({ type: 'text', text: r.text });
      else if (r.kind < 15)
        out.push({ type: 'tool_use', id: r.kind === 14 ? pool : `toolu_${i}_${k}`, name: 'read', input: { n: k } });
      else if (r.kind < 19) out.unshift({ type: 'thinking', thinking: r.text || 't', signature: `s${i}${k}` });
      else out.push({ type: 'tool_result', tool_use_id: pool, content: 'misplaced' });
    } else if (r.kind < 12) {
      const id = prevUses.length > 0 && r.kind < 11 ? prevUses[r.pick % prevUses.length] : pool;
      out.push({ type: 'tool_result', tool_use_id: id, content: `out ${id}` });
    } else if (r.kind < 19) out.push({ type: 'text', text: r.text });
    else out.push({ type: 'tool_use', id: pool, name: 'read', input: {} });
  });
  return out;
}

const overlay = fc.record({
  kind: fc.constantFrom('prune-block', 'prune-message', 'trim', 'pin', 'summary'),
  a: fc.nat(),
  b: fc.nat(),
  author: fc.constantFrom<Author>('user', 'agent', 'strategy:test'),
  text: fc.constantFrom('[trimmed]', '', ' '),
});

const scenario = fc.record({
  messages: fc.array(message, { minLength: 1, maxLength: 24 }),
  overlays: fc.array(overlay, { maxLength: 8 }),
  model: fc.constantFrom(...MODELS),
  window: fc.option(fc.tuple(fc.nat(), fc.nat()), { nil: undefined }),
  cacheTtl: fc.constantFrom<'5m' | '1h' | undefined>(undefined, '5m', '1h'),
});

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

/** Mostly alternating roles, with occasional repeats; occasional interrupted / Cline / compact flags. */
function sessionFor(sc: Scenario): Session {
  let role: 'user' | 'assistant' = 'user';
  let prevUses: string[] = [];
  const specs: Spec[] = sc.messages.map((m, i) => {
    if (i > 0 && m.flip > 1) role = role === 'user' ? 'assistant' : 'user';
    const meta =
      role === 'assistant'
        ? { interrupted: m.flag === 0 }
        : { unansweredToolUses: m.flag === 1, compactBoundary: m.flag === 2 };
    const blocks = blocksFor(role, m.blocks, i, prevUses);
    if (role === 'assistant') prevUses = blocks.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
    return [role, blocks, meta];
  });
  const s = sessionOf(specs);
  const common = { reason: 'prop', callIndex: 0, tokensBefore: 1, tokensAfter: 0 };
  for (const o of sc.overlays) {
    try {
      addOverlay(s, o, common);
    } catch {
      // The session refuses some overlays (e.g. a strategy pruning a user-pinned block): its rule, not ours.
    }
  }
  return s;
}

function addOverlay(
  s: Session,
  o: Scenario['overlays'][number],
  common: { reason: string; callIndex: number; tokensBefore: number; tokensAfter: number },
): void {
  {
    const msg = s.messages[o.a % s.messages.length];
    const target = msg.blocks.length > 0 ? msg.blocks[o.b % msg.blocks.length] : undefined;
    if (o.kind === 'prune-message') s.addOverlay({ ...common, author: o.author, kind: 'prune', messageId: msg.id });
    else if (o.kind === 'summary') {
      const to = s.messages[Math.min(s.messages.length - 1, msg.seq + (o.b % 4))];
      s.addOverlay({
        ...common,
        author: o.author,
        kind: 'summary',
        fromMessageId: msg.id,
        toMessageId: to.id,
        text: `summary ${o.a}`,
      });
    } else if (target && o.kind === 'prune-block')
      s.addOverlay({ ...common, author: o.author, kind: 'prune', messageId: msg.id, blockId: target.id });
    else if (target && o.kind === 'trim')
      s.addOverlay({ ...common, author: o.author, kind: 'trim', blockId: target.id, text: o.text });
    else if (target && o.kind === 'pin') s.addOverlay({ ...common, author: 'user', kind: 'pin', blockId: target.id });
  }
}

function check(sc: Scenario, builder: RequestBuilder): void {
  const s = sessionFor(sc);
  const n = s.messages.length;
  const [from, upTo] = sc.window
    ? [sc.window[0] % (n + 1), sc.window[1] % (n + 1)].sort((x, y) => x - y)
    : [undefined, undefined];
  let result;
  try {
    result = builder.build(s, {
      model: sc.model,
      maxTokens: 100,
      from,
      upTo,
      cacheTtl: sc.cacheTtl,
      accountant: charsAccountant,
    });
  } catch (e) {
    // The only acceptable refusal: nothing left to send.
    expect(e).toBeInstanceOf(RequestRefusedError);
    expect((e as RequestRefusedError).violations.map((v) => v.rule)).toEqual([RULE.noMessages]);
    return;
  }
  const { body, blockMap } = result;
  expect(validateRequest(body, { model: sc.model })).toEqual([]);
  // blockMap: every block maps to a log block (sent as the view says, or its original thinking) or a synthetic one.
  body.messages.forEach((m, i) => {
    const content = m.content as ContentBlockParam[];
    expect(blockMap.rows[i]).toHaveLength(content.length);
    content.forEach((b, j) => {
      const id = blockMap.idAt(i, j)!;
      expect(blockMap.positionOf(id)).toEqual({ messageIndex: i, blockIndex: j });
      if (isSyntheticId(id)) return;
      const logBlock = s.block(id)!;
      const pos = s.position(logBlock.messageId)!;
      const rb = s.resolveMessage(pos).blocks[logBlock.index];
      const { cache_control: _cc, ...sent } = b as ContentBlockParam & { cache_control?: unknown };
      // Sent as the view says, as the view without strategies says (the assistant message a loop
      // continues), as recorded (thinking of the latest turn), or as text (a result whose call was never recorded).
      const expected = [rb.sent, s.resolveMessage(pos, true).blocks[logBlock.index].sent, logBlock.param].filter(
        (x): x is ContentBlockParam => x !== undefined,
      );
      for (const x of [...expected]) if (x.type === 'tool_result') expected.push({ type: 'text', text: orphanText(x) });
      const ok = expected.some((x) => JSON.stringify(x) === JSON.stringify(sent));
      expect(ok).toBe(true);
    });
  });
}

/** One step of a growing history: more of the log shown, an overlay added or removed. Returns what is shown. */
function nextStep(
  s: Session,
  st: { grow: number; add?: Scenario['overlays'][number]; remove: number; removeIt: boolean },
  shown: number,
): number {
  if (st.add) {
    try {
      addOverlay(s, st.add, { reason: 'prop', callIndex: 0, tokensBefore: 1, tokensAfter: 0 });
    } catch {
      // refused by the session's rules
    }
  }
  const all = s.allOverlays();
  if (st.removeIt && all.length > 0) s.removeOverlay(all[st.remove % all.length].id, 'user');
  return Math.min(s.messages.length, shown + st.grow);
}

describe('RequestBuilder property', () => {
  it(`random logs with random overlays always build to a valid request (${RUNS} runs)`, () => {
    fc.assert(
      fc.property(scenario, (sc) => check(sc, new RequestBuilder())),
      { numRuns: RUNS },
    );
  });

  it('a shared builder (render cache across sessions and overlays) gives the same bodies as a fresh one', () => {
    const shared = new RequestBuilder();
    fc.assert(
      fc.property(scenario, (sc) => {
        const s = sessionFor(sc);
        const opts = { model: sc.model, maxTokens: 100 };
        const fresh = (): string => {
          try {
            return JSON.stringify(new RequestBuilder().build(s, opts).body);
          } catch {
            return 'refused';
          }
        };
        const warm = (): string => {
          try {
            return JSON.stringify(shared.build(s, opts).body);
          } catch {
            return 'refused';
          }
        };
        expect(warm()).toBe(fresh());
        s.append('user', 'one more', {}, 'extra');
        expect(warm()).toBe(fresh());
      }),
      { numRuns: 200 },
    );
  });

  it('a builder that follows a growing log (reusing what it rendered) gives what a fresh one gives at every step, whatever changes between steps', () => {
    const step = fc.record({
      grow: fc.nat({ max: 3 }),
      add: fc.option(overlay, { nil: undefined }),
      remove: fc.nat(),
      removeIt: fc.boolean(),
      upToBack: fc.nat({ max: 3 }),
      from: fc.option(fc.nat(), { nil: undefined }),
    });
    fc.assert(
      fc.property(scenario, fc.array(step, { minLength: 1, maxLength: 16 }), (sc, steps) => {
        // The whole log, then built over a window that grows: messages [0, shown) are the history so far.
        const s = sessionFor({ ...sc, overlays: [] });
        const builder = new RequestBuilder();
        const opts = { model: sc.model, maxTokens: 100, cacheTtl: sc.cacheTtl, accountant: charsAccountant };
        const built = (b: RequestBuilder, from: number | undefined, upTo: number): string => {
          try {
            const r = b.build(s, { ...opts, from, upTo });
            return JSON.stringify([r.body, r.repairs]);
          } catch (e) {
            return `refused ${(e as Error).message}`;
          }
        };
        let shown = 1;
        for (const st of steps) {
          shown = nextStep(s, st, shown);
          // Mostly the whole history so far; sometimes a shorter window or another start.
          const upTo = Math.max(0, shown - (st.upToBack === 3 ? 2 : 0));
          const from = st.from === undefined || st.from % 3 !== 0 ? undefined : st.from % (upTo + 1);
          expect(built(builder, from, upTo)).toBe(built(new RequestBuilder(), from, upTo));
        }
      }),
      { numRuns: Math.max(200, RUNS / 2) },
    );
  });

  it('an assembly resumed from the last call checkpoint equals the whole assembly at every step, whatever changes', () => {
    let resumed = 0;
    const step = fc.record({
      grow: fc.nat({ max: 3 }),
      add: fc.option(overlay, { nil: undefined }),
      remove: fc.nat(),
      removeIt: fc.boolean(),
      back: fc.nat({ max: 4 }),
    });
    fc.assert(
      fc.property(
        scenario,
        fc.array(step, { minLength: 2, maxLength: 16 }),
        fc.integer({ min: 1, max: 4 }),
        (sc, steps, margin) => {
          const s = sessionFor({ ...sc, overlays: [] });
          // Rendered messages are kept per revision by the builder: unchanged ones are the same objects.
          const rb = new RequestBuilder();
          const asm = new ResumableAssembly(margin);
          const pairOf = (id: string, want: 'use' | 'result'): string | undefined =>
            want === 'use' ? s.toolUseBlockId(id) : s.toolResultBlockId(id);
          const shape = (a: ReturnType<typeof assemble>): string =>
            JSON.stringify([a.messages.map((m) => [m.param, m.ids]), a.repairs, a.latestThinking]);
          let shown = 1;
          for (const st of steps) {
            shown = nextStep(s, st, shown);
            // Mostly the history so far; sometimes a shorter one (the checkpoint may then lie past the end).
            const upTo = Math.max(0, shown - (st.back === 4 ? 3 : 0));
            const rendered = [];
            for (let p = 0; p < upTo; p++) rendered.push(rb.rendered(s, p));
            const before = asm.resumed;
            expect(shape(asm.assemble(rendered, { pairOf }))).toBe(shape(assemble(rendered, { pairOf })));
            resumed += asm.resumed - before;
          }
        },
      ),
      { numRuns: Math.max(200, RUNS / 2) },
    );
    // The property is about resumed assemblies: many of the runs must have resumed.
    expect(resumed).toBeGreaterThan(100);
  });
});
