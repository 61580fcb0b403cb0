/**
 * Recorded sessions nobody here wrote, in the shapes real clients record them: random
 * ground-truth sessions (parallel calls answered in completion order, thinking and
 * redacted_thinking, interleaved thinking, reminders, user text after results) written as
 * Claude Code JSONL (one line per block, results between the tool_use lines), sometimes
 * dirty (a lost result line, a response or a result recorded twice), imported, and
 * replayed through every strategy. Every request must pass the validator with thinking
 * judged from the ground truth (not from what the engine kept), and the independent test
 * server's checker; replaying a clean recording with `none` must give exactly what the
 * client sent. TRIMLINE_PROP_RUNS overrides the number of cases.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { replayAll } from '../../src/core/engine/replay';
import { parseTranscript } from '../../src/core/import';
import { validateRequest } from '../../src/core/request/validate';
import type { ContentBlockParam, MessageParam } from '../../src/core/session/types';
import { modelTable } from '../../src/dev/models';
import { checkRequest } from '../../src/dev/validate';
import { MODEL_FREE_STRATEGIES } from './strategy-specs';
import {
  NO_QUIRKS,
  recordJsonl,
  trueCalls,
  type Quirks,
  type TrueResponse,
  type TrueSession,
} from './recorded-session';

const RUNS = Number(process.env.TRIMLINE_PROP_RUNS ?? 10_000) / 10;
const STRATEGIES = MODEL_FREE_STRATEGIES;
const DEV_MODELS = modelTable();

const words = fc.constantFrom(
  'Read src/a.ts',
  'ok',
  'ref_id: R-9',
  'Error: boom',
  'lorem ipsum dolor sit amet',
  'see deadbeef12',
);
const responseShape = fc.record({
  thinking: fc.constantFrom('thinking', 'redacted', 'empty'),
  interleaved: fc.boolean(),
  text: fc.option(words, { nil: undefined }),
  tools: fc.array(fc.constantFrom('Read', 'Glob', 'Grep', 'Bash', 'TodoWrite'), { maxLength: 3 }),
  order: fc.array(fc.nat(), { minLength: 3, maxLength: 3 }),
  after: fc.array(words, { maxLength: 1 }),
});
const turnShape = fc.record({
  reminders: fc.nat({ max: 2 }),
  prompt: words,
  responses: fc.array(responseShape, { minLength: 1, maxLength: 5 }),
});
const sessionShape = fc.record({ thinking: fc.boolean(), turns: fc.array(turnShape, { minLength: 1, maxLength: 4 }) });
const quirkShape = fc.record({
  lost: fc.nat({ max: 40 }),
  doubledResponse: fc.nat({ max: 40 }),
  doubledResult: fc.nat({ max: 40 }),
  interleave: fc.array(fc.nat({ max: 1 }), { minLength: 1, maxLength: 8 }),
  dirty: fc.boolean(),
});

let ids = 0;
/** A ground truth from shapes: every response but a turn's last has tool calls (a tool loop). */
function build(shape: typeof sessionShape extends fc.Arbitrary<infer T> ? T : never): TrueSession {
  const turns = shape.turns.map((t) => {
    const prompt: ContentBlockParam[] = [];
    for (let i = 0; i < t.reminders; i++)
      prompt.push({ type: 'text', text: `<system-reminder>\nContext ${i}\n</system-reminder>` });
    prompt.push({ type: 'text', text: t.prompt });
    const responses: TrueResponse[] = t.responses.map((r, k) => {
      const last = k === t.responses.length - 1;
      const blocks: ContentBlockParam[] = [];
      // Signatures (and redacted data) are unique per block, as the API's are.
      const think = (): ContentBlockParam => {
        const n = ++ids;
        return r.thinking === 'redacted'
          ? { type: 'redacted_thinking', data: `enc${n}` }
          : { type: 'thinking', thinking: r.thinking === 'empty' ? '' : `plan ${n}`, signature: `sig${n}` };
      };
      if (shape.thinking) blocks.push(think());
      if (r.text || last || !r.tools.length) blocks.push({ type: 'text', text: r.text ?? 'Done.' });
      const uses = last
        ? []
        : (r.tools.length ? r.tools : ['Read']).map((name) => ({
            type: 'tool_use' as const,
            id: `toolu_${String(++ids).padStart(4, '0')}`,
            name,
            input: { file_path: `src/f${ids % 4}.ts` },
          }));
      uses.forEach((u, i) => {
        if (shape.thinking && r.interleaved && i > 0) blocks.push(think());
        blocks.push(u);
      });
      const completion = uses.map((u) => u.id);
      for (let i = completion.length - 1; i > 0; i--) {
        const j = r.order[i % 3] % (i + 1);
        [completion[i], completion[j]] = [completion[j], completion[i]];
      }
      return { id: `msg_${String(++ids).padStart(6, '0')}`, blocks, completion, after: uses.length ? r.after : [] };
    });
    return { prompt, responses };
  });
  return { thinking: shape.thinking, turns };
}

function quirksFor(s: TrueSession, q: typeof quirkShape extends fc.Arbitrary<infer T> ? T : never): Quirks {
  const responses = s.turns.flatMap((t) => t.responses);
  const calls = responses.flatMap((r) => r.completion);
  if (!q.dirty) return { ...NO_QUIRKS, interleave: q.interleave };
  const pick = <T>(list: T[], n: number): Set<T> => new Set(list.length ? [list[n % list.length]] : []);
  return {
    lost: pick(calls, q.lost),
    doubledResponses: pick(
      responses.map((r) => r.id),
      q.doubledResponse,
    ),
    doubledResults: pick(calls, q.doubledResult),
    interleave: q.interleave,
  };
}

const strip = (m: MessageParam): MessageParam => ({
  role: m.role as 'user' | 'assistant',
  content: (m.content as ContentBlockParam[]).map((b) => {
    const { cache_control: _cc, ...rest } = b as ContentBlockParam & { cache_control?: unknown };
    return rest as ContentBlockParam;
  }),
});

/** The ground-truth response that made the latest assistant message of a request (by its first block). */
function responseOf(s: TrueSession, msgs: MessageParam[]): TrueResponse | undefined {
  const latest = [...msgs].reverse().find((m) => m.role === 'assistant');
  const key = latest && JSON.stringify(strip(latest).content[0]);
  return s.turns.flatMap((t) => t.responses).find((r) => r.blocks.some((b) => JSON.stringify(b) === key));
}

function check(s: TrueSession, q: Quirks, strategy: string): void {
  const imp = parseTranscript(recordJsonl(s, q), 'recorded.jsonl');
  const truth = trueCalls(s);
  const clean = q.lost.size + q.doubledResponses.size + q.doubledResults.size === 0;
  expect(imp.calls).toHaveLength(truth.length);
  replayAll(imp, { strategy }, ({ call, prepared }) => {
    const body = prepared.body;
    const head = responseOf(s, body.messages);
    const latestThinking = head?.blocks.filter((b) => b.type === 'thinking' || b.type === 'redacted_thinking');
    const violations = validateRequest(body, {
      model: body.model,
      thinking: s.thinking,
      latestAssistantThinking: latestThinking,
    });
    expect(violations, `${strategy} call ${call.index}`).toEqual([]);
    expect(body.messages.at(-1)?.role).toBe('user');
    const wire = {
      ...body,
      model: 'claude-sonnet-4-5',
      ...(s.thinking ? { thinking: { type: 'enabled', budget_tokens: 1024 }, max_tokens: 2048 } : {}),
    };
    const dev = checkRequest(wire, { endpoint: 'messages', models: DEV_MODELS, verifySignature: () => undefined });
    expect(dev.ok ? 'ok' : dev.rejection.message, `${strategy} call ${call.index} (test server)`).toBe('ok');
    if (strategy === 'none' && clean) expect(body.messages.map(strip)).toEqual(truth[call.index].request);
  });
}

describe('recorded sessions in real clients\u2019 shapes', () => {
  it(`replay with none equals what the client sent, call by call, and every strategy stays valid (${RUNS} sessions)`, () => {
    fc.assert(
      fc.property(sessionShape, quirkShape, fc.constantFrom(...STRATEGIES), (shape, qs, strategy) => {
        const s = build(shape);
        check(s, quirksFor(s, qs), strategy);
        if (strategy !== 'none') check(s, { ...NO_QUIRKS, interleave: qs.interleave }, 'none');
      }),
      { numRuns: RUNS },
    );
  });
});
