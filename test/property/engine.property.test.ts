/**
 * Random sessions × random strategy configs × random pin/trim/restore sequences:
 * every request the engine builds is valid, and restoring gives back the original bytes.
 * TRIMLINE_PROP_RUNS overrides the number of cases (CI runs 10,000).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ContextEngine } from '../../src/core/engine';
import { checkUserText } from '../../src/core/request/user-text-check';
import { validateRequest } from '../../src/core/request/validate';
import { Session, type ContentBlockParam, type MessageMeta } from '../../src/core/session';
import type { PipelineConfig } from '../../src/core/trimming';
import { MODEL_FREE_STRATEGIES } from './strategy-specs';

const RUNS = Number(process.env.TRIMLINE_PROP_RUNS ?? 10_000);

type Step =
  | { t: 'prompt'; text: string }
  | { t: 'text'; text: string; thinking: boolean }
  | {
      t: 'tools';
      calls: { name: string; path: string; result: string; isError: boolean | undefined }[];
      thinking: boolean;
      text: string;
      reminder: string;
    }
  | { t: 'op'; op: 'pin' | 'unpin' | 'trim' | 'restore'; pick: number; own: string }
  | { t: 'call'; gapMs: number }
  // A thought-action loop's observation: the environment's answer to the assistant's text action
  // (MessageMeta.observation).
  | { t: 'observe'; result: string };

const word = fc.constantFrom(
  'alpha',
  'src/a.ts',
  'deadbeef12',
  'Error: boom',
  'ok',
  ' ',
  '',
  'lorem ipsum dolor',
  'ref_id: R-9',
  '\n',
);
const text = fc.array(word, { minLength: 0, maxLength: 6 }).map((w) => w.join(' '));
const result = fc.oneof(
  { weight: 5, arbitrary: text },
  { weight: 1, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 3000 }).map((n) => 'line of output\n'.repeat(n)) },
);
const call = fc.record({
  name: fc.constantFrom('Read', 'Bash', 'Grep', 'Write', 'TodoWrite', 'read_file'),
  path: fc.constantFrom('a.ts', 'b.ts', 'src/c.ts'),
  result,
  isError: fc.constantFrom(true, false, undefined),
});
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 2, arbitrary: text.map((t) => ({ t: 'prompt' as const, text: t })) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('text' as const), text, thinking: fc.boolean() }) },
  {
    weight: 5,
    arbitrary: fc.record({
      t: fc.constant('tools' as const),
      calls: fc.array(call, { minLength: 1, maxLength: 3 }),
      thinking: fc.boolean(),
      text,
      // The client's words beside the results (a <system-reminder>, hook output), or none.
      reminder: fc.constantFrom(
        '',
        '',
        '<system-reminder>\nTodo list changed.\n</system-reminder>',
        'hook: tests passed',
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('op' as const),
      op: fc.constantFrom('pin', 'unpin', 'trim', 'restore'),
      pick: fc.nat(),
      own: text,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ t: fc.constant('call' as const), gapMs: fc.constantFrom(1_000, 30_000, 10 * 60_000) }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('observe' as const), result }) },
);
const specs = fc.constantFrom(
  ...MODEL_FREE_STRATEGIES,
  'tool-pruning,summarize-tool-results,atomic-window',
  'supersede-stale-reads,tool-pruning,summarize-tool-results,atomic-window',
);
const config: fc.Arbitrary<PipelineConfig> = fc.record({
  strategies: fc.record({
    'summarize-tool-results': fc.record({
      keepTurns: fc.integer({ min: 0, max: 3 }),
      minChars: fc.constantFrom(0, 20, 150),
    }),
    'atomic-window': fc.record({
      maxTokens: fc.constantFrom(200, 2000, 20_000),
      maxMessages: fc.constantFrom(0, 3, 10),
      minRecentKeep: fc.integer({ min: 0, max: 4 }),
      digest: fc.boolean(),
    }),
    'tool-pruning': fc.record({ digest: fc.boolean() }),
  }),
  cacheAware: fc.record({ enabled: fc.boolean() }),
});
const model = fc.constantFrom('claude-sonnet-4-5', 'claude-sonnet-4-6', 'claude-opus-4-7');

let seq = 0;
/**
 * `userText`: also check that every user text block reaches each request verbatim (the user never trims their own words
 * here).
 */
function play(steps: Step[], spec: string, cfg: PipelineConfig, modelId: string, userText = false): void {
  const s = new Session({ model: modelId });
  const engine = new ContextEngine(s, { strategy: spec, config: cfg, model: modelId });
  const originals = new Map<string, string>();
  let calls = 0;
  let now = 0;
  const prepare = (gapMs = 30_000) => {
    const upTo = s.messages.length;
    if (!upTo) return;
    const { body, blockMap } = engine.prepare({ callIndex: calls++, now: (now += gapMs) });
    expect(validateRequest(body, { model: modelId })).toEqual([]);
    if (userText) expect(checkUserText(s.messages, 0, upTo, body.messages).missing).toEqual([]);
    // Pins win: a pinned tool result is in the request, verbatim.
    for (const m of s.messages) {
      for (const b of m.blocks) {
        if ((b.kind !== 'tool_result' && b.kind !== 'tool_use') || !s.isPinned(b.id)) continue;
        // A pin protects the pair: both halves are in the request...
        const at = blockMap.positionOf(b.id);
        expect(at, `pinned ${b.id} missing from the request`).toBeDefined();
        // ...and a result pinned itself is sent verbatim.
        if (b.kind !== 'tool_result' || !s.overlaysOnBlock(b.id).some((o) => o.kind === 'pin')) continue;
        const sent = (body.messages[at!.messageIndex].content as ContentBlockParam[])[at!.blockIndex];
        expect((sent as { content?: unknown }).content).toEqual((b.param as { content?: unknown }).content);
      }
    }
  };
  const append = (role: 'user' | 'assistant', content: ContentBlockParam[], meta: MessageMeta = {}) => {
    const m = s.append(role, content, meta, `m${seq++}`);
    for (const b of m.blocks) originals.set(b.id, JSON.stringify(b.param));
  };
  for (const st of steps) {
    const last = s.messages.at(-1);
    if (st.t === 'prompt') {
      if (last?.role === 'user') continue;
      append('user', [{ type: 'text', text: st.text.trim() ? st.text : 'go' }]);
    } else if (st.t === 'text' || st.t === 'tools') {
      if (last?.role !== 'user') continue;
      const content: ContentBlockParam[] = [];
      if (st.thinking) content.push({ type: 'thinking', thinking: 'let me think', signature: 'sig' });
      if (st.text.trim()) content.push({ type: 'text', text: st.text });
      if (st.t === 'text') {
        if (!content.length) content.push({ type: 'text', text: 'done' });
        append('assistant', content);
        continue;
      }
      const ids = st.calls.map(() => `toolu_${seq++}`);
      st.calls.forEach((c, i) =>
        content.push({
          type: 'tool_use',
          id: ids[i],
          name: c.name,
          input: { file_path: c.path, content: c.result.slice(0, 600) },
        }),
      );
      append('assistant', content);
      const results: ContentBlockParam[] = st.calls.map((c, i) => ({
        type: 'tool_result',
        tool_use_id: ids[i],
        content: c.result,
        ...(c.isError === undefined ? {} : { is_error: c.isError }),
      }));
      if (st.reminder) results.push({ type: 'text', text: st.reminder });
      append('user', results);
    } else if (st.t === 'observe') {
      if (last?.role !== 'assistant' || last.blocks.some((b) => b.kind === 'tool_use')) continue;
      append('user', [{ type: 'text', text: st.result.trim() ? st.result : 'no output' }], { observation: true });
    } else if (st.t === 'op') {
      const blocks = s.messages.flatMap((m) => m.blocks);
      if (!blocks.length) continue;
      const b = blocks[st.pick % blocks.length];
      const base = { author: 'user' as const, reason: 'property', callIndex: calls, tokensBefore: 1, tokensAfter: 1 };
      if (st.op === 'pin' && !s.isPinned(b.id)) {
        s.addOverlay({ ...base, kind: 'pin', blockId: b.id });
      } else if (st.op === 'unpin') {
        for (const o of s.overlaysOnBlock(b.id)) if (o.kind === 'pin') s.removeOverlay(o.id);
      } else if (
        st.op === 'trim' &&
        (b.kind === 'tool_result' || (b.kind === 'text' && !(userText && s.userText.reasonOf(b.id))))
      ) {
        s.addOverlay({ ...base, kind: 'trim', blockId: b.id, text: st.own.trim() || '[trimmed by user]' });
      } else if (st.op === 'restore') {
        s.restore(b.id, 'user');
      }
    } else {
      if (s.messages.at(-1)?.role === 'user') prepare(st.gapMs);
    }
  }
  if (s.messages.at(-1)?.role === 'user') prepare();
  // Remove every overlay: each block is back to its original bytes.
  for (const o of s.allOverlays()) s.removeOverlay(o.id);
  for (let p = 0; p < s.messages.length; p++) {
    for (const b of s.resolveMessage(p).blocks) {
      expect(b.state).toBe('verbatim');
      expect(JSON.stringify(b.sent)).toBe(originals.get(b.block.id));
    }
  }
}

describe('engine property: valid requests and byte-exact restore', () => {
  it(`holds for ${RUNS} random sessions, configs and user actions`, () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 40 }), specs, config, model, (steps, spec, cfg, m) =>
        play(steps, spec, cfg, m),
      ),
      { numRuns: RUNS },
    );
  });
});

describe("engine property: default never loses the user's words", () => {
  const runs = Math.max(100, Math.round(RUNS / 10));
  it(`every user text block reaches every request verbatim, valid, for ${runs} random sessions under default`, () => {
    fc.assert(
      // The default configuration, and the same with a window small enough to cut.
      fc.property(
        fc.array(step, { minLength: 1, maxLength: 60 }),
        model,
        fc.constantFrom(0, 300, 3000),
        (steps, m, budget) =>
          play(steps, 'default', budget ? { strategies: { 'atomic-window': { maxTokens: budget } } } : {}, m, true),
      ),
      { numRuns: runs },
    );
  });
});
