import { describe, expect, it } from 'vitest';
import {
  CompressionStrategy,
  createCompressionStrategy,
  createPipeline,
  SUMMARY_SYSTEM,
  FACTS_SYSTEM,
  type CompressionKind,
  type PlanInput,
} from '../../../src/core/trimming';
import { Builder, filler, hostOf, MODEL, transcriptPositions } from './helpers';

/**
 * m0 prompt (first) · m1–m4 two tool rounds · m5 answer · m6 prompt · m7–m8 round · m9 answer
 * m10 prompt (latest) · m11–m12 round (current turn)
 */
function scenario(): Builder {
  const b = new Builder();
  b.turn('task one: fix the parser', ['src/a.ts', 'src/b.ts'], 'Fixed the parser in src/a.ts.');
  b.turn('task two: add tests', ['test/a.test.ts'], filler('Added tests', 30));
  b.prompt('task three: update the docs');
  b.round('README.md');
  return b;
}

function planOf(b: Builder, kind: CompressionKind, opts: Record<string, unknown> = {}, onDemand = true) {
  const s = createCompressionStrategy(kind, opts);
  const host = hostOf(b.session);
  const input: PlanInput = {
    session: b.session,
    index: host.index,
    epochStart: 0,
    upTo: b.session.messages.length,
    callIndex: 0,
    model: MODEL,
    onDemand,
  };
  return s.plan(input);
}

const ranges = (plan: ReturnType<typeof planOf>) => (plan?.summaries ?? []).map((s) => [s.from, s.to]);
const userText = (plan: NonNullable<ReturnType<typeof planOf>>, i = 0): string => {
  const c = plan.summaries[i].request.messages[0].content;
  return typeof c === 'string' ? c : c.map((x) => (x.type === 'text' ? x.text : '')).join('');
};

describe('compression ranges', () => {
  it('whole-history: everything between the first prompt and the latest prompt; the current turn stays', () => {
    const plan = planOf(scenario(), 'whole-history');
    expect(ranges(plan)).toEqual([[1, 9]]);
    const req = plan!.summaries[0].request;
    expect(req.system).toBe(SUMMARY_SYSTEM);
    expect(req.model).toBe(MODEL);
    expect(transcriptPositions(userText(plan!))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(ranges(planOf(scenario(), 'whole-history', { keepFirstPrompt: false }))).toEqual([[0, 9]]);
  });

  it('drops trailing tool calls: a range never ends with a tool_use whose result is outside it', () => {
    const b = new Builder();
    b.turn('first', ['a.ts'], 'done');
    b.round('b.ts', undefined, true); // m4: a tool call that was never answered
    b.prompt('next'); // m5 (latest)
    expect(ranges(planOf(b, 'whole-history'))).toEqual([[1, 3]]);
    // Inside the current turn (keepCurrentTurn false): the cut falls on m11 (a call answered by m12) → dropped.
    expect(ranges(planOf(scenario(), 'whole-history', { keepCurrentTurn: false, keepRecentMessages: 1 }))).toEqual([
      [1, 9],
    ]);
    expect(ranges(planOf(scenario(), 'whole-history', { keepCurrentTurn: false, keepRecentMessages: 0 }))).toEqual([
      [1, 9],
      [11, 12],
    ]);
  });

  it('pins split the range; the pinned block keeps its tool_use partner', () => {
    const b = scenario();
    b.session.addOverlay({
      kind: 'pin',
      blockId: 'm8.0',
      author: 'user',
      reason: 'keep',
      callIndex: 0,
      tokensBefore: 0,
      tokensAfter: 0,
    });
    expect(ranges(planOf(b, 'whole-history'))).toEqual([
      [1, 6],
      [9, 9],
    ]);
  });

  it('chunked: chunks of n visible messages, never cut after a tool_use; remainders only on demand', () => {
    expect(ranges(planOf(scenario(), 'chunked', { n: 4 }))).toEqual([
      [1, 4],
      [5, 8],
      [9, 9],
    ]);
    expect(ranges(planOf(scenario(), 'chunked', { n: 4, minTokens: 0 }, false))).toEqual([
      [1, 4],
      [5, 8],
    ]);
    expect(ranges(planOf(scenario(), 'chunked', { n: 3 }))).toEqual([
      [1, 4],
      [5, 8],
      [9, 9],
    ]);
  });

  it('last-n-messages: replaces the whole range but reads only its last n messages, never starting at a lone tool_result', () => {
    const plan = planOf(scenario(), 'last-n-messages', { n: 3 });
    expect(ranges(plan)).toEqual([[1, 9]]);
    expect(transcriptPositions(userText(plan!))).toEqual([7, 8, 9]);
    expect(userText(plan!)).toContain('the last 3 of the messages being compressed');
    const two = planOf(scenario(), 'last-n-messages', { n: 2 });
    expect(transcriptPositions(userText(two!))).toEqual([9]);
  });

  it('retrieve-facts: the facts prompt lists every concept with its cardinality', () => {
    const concepts = [
      { keyword: 'language', description: 'the main programming language', factType: 'single' },
      { keyword: 'files', description: 'files changed', factType: 'multiple' },
    ];
    const plan = planOf(scenario(), 'retrieve-facts', { concepts });
    expect(plan!.summaries[0].request.system).toBe(FACTS_SYSTEM);
    expect(userText(plan!)).toContain(
      'Concepts:\n- language (single): the main programming language\n- files (multiple): files changed',
    );
  });

  it('automatic runs skip ranges below minTokens; on demand takes them', () => {
    expect(planOf(scenario(), 'whole-history', {}, false)).toBeUndefined(); // ~1k tokens < 2k
    expect(ranges(planOf(scenario(), 'whole-history', { minTokens: 100 }, false))).toEqual([[1, 9]]);
  });

  it('the same history always gives the same request (deterministic prompts)', () => {
    const a = planOf(scenario(), 'whole-history')!.summaries[0].request;
    const b = planOf(scenario(), 'whole-history')!.summaries[0].request;
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });

  it('long tool results are cut to fit the input budget', () => {
    const b = new Builder();
    b.prompt('first');
    b.round('big.log', 'x'.repeat(50_000));
    b.answer('read it');
    b.prompt('next');
    const plan = planOf(b, 'whole-history', { maxInputTokens: 2_000 });
    const text = userText(plan!);
    expect(text.length).toBeLessThan(8_000);
    expect(text).toMatch(/more characters not shown/);
  });
});

describe('registry', () => {
  it('compression strategies join a pipeline by name, with options from the config', () => {
    const p = createPipeline('tool-pruning,whole-history', {
      strategies: { 'whole-history': { trigger: 0.7, preserveMemory: false } },
    });
    expect(p.names).toEqual(['tool-pruning', 'whole-history']);
    const s = p.strategies[1] as CompressionStrategy;
    expect(s.trigger).toEqual({ kind: 'above', fraction: 0.7 });
    expect(s.options.preserveMemory).toBe(false);
    expect(createPipeline('chunked').strategies[0].trigger).toEqual({ kind: 'above', fraction: 0.8 });
    expect(() => createPipeline('whole-history', { strategies: { 'whole-history': { n: 3 } } })).toThrow(
      /unknown option "n"/,
    );
    expect(() => createPipeline('chunked', { strategies: { chunked: { n: 0 } } })).toThrow(/positive integer/);
    expect(() =>
      createPipeline('retrieve-facts', { strategies: { 'retrieve-facts': { concepts: [{ keyword: 'x' }] } } }),
    ).toThrow(/concepts/);
  });
});
