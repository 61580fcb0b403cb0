/**
 * Cline's and Roo Code's histories as the clients record them (src/core/session/client-text.ts):
 * random tasks in the three shapes (Cline's native calls answered by one text block
 * `[tool for 'x'] Result:\n…`, classic XML calls answered by a header block then the output,
 * Roo's native tool_result blocks), with `<environment_details>` on every message, feedback,
 * answers, denials with feedback and new instructions after attempt_completion, thinking on or
 * off, replayed through every strategy that needs no model (as configured, and with cache-aware
 * timing off so that every proposed trim is applied). Every request must pass the
 * validator (thinking judged from the recorded response) and the test server's checker; under
 * every automatic strategy every typed text (the `<task>`, each `<feedback>` and `<answer>`)
 * reaches the model verbatim on every call, so does the newest client context, and the thinking of
 * the latest response is sent unchanged (older responses' may go). TRIMLINE_PROP_RUNS overrides the
 * number of cases.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { replayAll } from '../../src/core/engine/replay';
import { parseTranscript } from '../../src/core/import';
import { validateRequest } from '../../src/core/request/validate';
import type { RequestBody } from '../../src/core/api/wire';
import type { ContentBlockParam } from '../../src/core/session/types';
import { ANCHOR_STRATEGIES } from '../../src/core/session/user-text';
import { modelTable } from '../../src/dev/models';
import { checkRequest } from '../../src/dev/validate';
import { loopThinkingChanged } from '../bench/cline-tasks';
import { latestThinking } from '../bench/engine-bench';
import { MODEL_FREE_STRATEGIES } from './strategy-specs';

const RUNS = Math.max(40, Number(process.env.TRIMLINE_PROP_RUNS ?? 10_000) / 40);
const DEV_MODELS = modelTable();
const ANCHORS: ReadonlySet<string> = new Set(ANCHOR_STRATEGIES);

const TABS = 'src/f0.ts\nsrc/f1.ts\nsrc/f2.ts\nsrc/f3.ts\ntest/f.test.ts\npackage.json\nREADME.md';
const ENV = (n: number): string =>
  `<environment_details>\n# VSCode Visible Files\nsrc/f${n % 3}.ts\n\n# VSCode Open Tabs\n${TABS}\n\n# Current Time\n1/14/2026, 5:${10 + (n % 50)} PM\n\n# Current Mode\nACT MODE\n</environment_details>`;
/** Cline's focus chain block (cline/cline src/core/task/focus-chain/index.ts), with the checklist of step `n`. */
const FOCUS = (n: number): string =>
  `\n\t\t\t\t# TODO LIST UPDATE REQUIRED - You MUST include the task_progress parameter in your NEXT tool call.\n**Current Progress: ${n}/9 items completed**\n${'- [x] a step done\n'.repeat(n % 9)}- [ ] the rest\n\n1. To create or update a todo list, include the task_progress parameter in the next tool call`;

const stepShape = fc.record({
  tool: fc.constantFrom(
    'read_file',
    'execute_command',
    'replace_in_file',
    'search_files',
    'ask_followup_question',
    'attempt_completion',
  ),
  file: fc.nat({ max: 3 }),
  lines: fc.integer({ min: 1, max: 120 }),
  extra: fc.constantFrom('none', 'none', 'none', 'feedback', 'denied', 'error'),
  /** Typed words can be long (a pasted stack trace, a detailed instruction). */
  said: fc.nat({ max: 12 }),
  /** Cline's task_progress: in the call's input, and its focus chain block in the answer. */
  progress: fc.boolean(),
  /** Reads called beside it in the same response (native shapes), answered in order. */
  parallel: fc.nat({ max: 2 }),
});
const taskShape = fc.record({
  shape: fc.constantFrom('cline-native', 'cline-xml', 'roo-native'),
  thinking: fc.boolean(),
  steps: fc.array(stepShape, { minLength: 1, maxLength: 14 }),
});
type Task = typeof taskShape extends fc.Arbitrary<infer T> ? T : never;

interface Built {
  readonly json: string;
  /** Typed texts by the index of the message that carries them. */
  readonly typed: { readonly at: number; readonly text: string }[];
}

type Step = Task['steps'][number];

/** The parallel reads of a step (none beside a question or a completion, which end Cline's response). */
function extraReads(s: Step): number[] {
  return s.tool === 'ask_followup_question' || s.tool === 'attempt_completion' ? [] : [...Array(s.parallel).keys()];
}

function other(s: Step, k: number): string {
  return `src/f${(s.file + k + 1) % 4}.ts`;
}

function build(t: Task): Built {
  const typed: { at: number; text: string }[] = [];
  const task = '<task>\nFix the refund totals and add tests.\n</task>';
  const msgs: { role: string; content: ContentBlockParam[] }[] = [
    {
      role: 'user',
      content: [
        { type: 'text', text: task },
        { type: 'text', text: ENV(0) },
      ],
    },
  ];
  typed.push({ at: 0, text: task });
  t.steps.forEach((s, i) => {
    const id = `toolu_${String(i).padStart(4, '0')}`;
    const path = `src/f${s.file}.ts`;
    const arg =
      s.tool === 'attempt_completion'
        ? undefined
        : s.tool === 'execute_command'
          ? 'npm test'
          : s.tool === 'ask_followup_question'
            ? 'Which runner?'
            : path;
    const a: ContentBlockParam[] = t.thinking
      ? [{ type: 'thinking', thinking: `step ${i}: about ${path}`, signature: `sig${i}` }]
      : [];
    if (t.shape === 'cline-xml')
      a.push({ type: 'text', text: `Next.\n\n<${s.tool}>\n<path>${path}</path>\n</${s.tool}>` });
    else {
      const progress = `- [x] read ${path}\n${'- [ ] a step to do\n'.repeat(s.lines % 20)}`;
      const input = s.progress && t.shape === 'cline-native' ? { path, task_progress: progress } : { path };
      a.push({ type: 'text', text: 'Next.' }, { type: 'tool_use', id, name: s.tool, input });
      for (const k of extraReads(s))
        a.push({ type: 'tool_use', id: `${id}p${k}`, name: 'read_file', input: { path: other(s, k) } });
    }
    msgs.push({ role: 'assistant', content: a });
    const said = `${'and keep src/legacy.ts as it is, '.repeat(s.said)}(${i})`;
    let out =
      s.tool === 'ask_followup_question'
        ? `<answer>\nvitest, please ${said}\n</answer>`
        : `${path} line\n`.repeat(s.lines);
    if (s.extra === 'denied')
      out = `The user denied this operation and provided the following feedback:\n<feedback>\nnot ${path} ${said}\n</feedback>`;
    if (s.extra === 'error')
      out = `The tool execution failed with the following error:\n<error>\nENOENT ${path}\n</error>`;
    if (s.tool === 'attempt_completion')
      out = `The user has provided feedback on the results. Consider their input to continue the task, and then attempt completion again.\n<feedback>\nnow also ${path} ${said}\n</feedback>`;
    const header = `[${s.tool}${arg !== undefined ? ` for '${arg}'` : ''}] Result:`;
    const u: ContentBlockParam[] = [];
    if (t.shape === 'cline-native') u.push({ type: 'text', text: `${header}\n${out}` });
    else if (t.shape === 'cline-xml') u.push({ type: 'text', text: header }, { type: 'text', text: out });
    else u.push({ type: 'tool_result', tool_use_id: id, content: out });
    if (t.shape !== 'cline-xml')
      for (const k of extraReads(s)) {
        const read = `${other(s, k)} line\n`.repeat(s.lines);
        if (t.shape === 'cline-native')
          u.push({ type: 'text', text: `[read_file for '${other(s, k)}'] Result:\n${read}` });
        else u.push({ type: 'tool_result', tool_use_id: `${id}p${k}`, content: read });
      }
    // What the user typed (in a text block, or inside a Roo tool_result).
    if (/<feedback>|<answer>/.test(out)) typed.push({ at: msgs.length, text: out });
    if (s.extra === 'feedback') {
      const fb = `The user provided the following feedback:\n<feedback>\nkeep the old API ${said}\n</feedback>`;
      u.push({ type: 'text', text: fb });
      typed.push({ at: msgs.length, text: fb });
    }
    if (s.progress && t.shape !== 'roo-native') u.push({ type: 'text', text: FOCUS(i) });
    u.push({ type: 'text', text: ENV(i + 1) });
    msgs.push({ role: 'user', content: u });
  });
  return { json: JSON.stringify(msgs), typed };
}

function blockLength(b: ContentBlockParam): number {
  return b.type === 'text' ? b.text.length : 0;
}

/** The texts of the request's user text blocks and tool_result strings (either may carry typed words inside). */
function userTexts(body: RequestBody): string[] {
  const out: string[] = [];
  for (const m of body.messages) {
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') out.push(m.content);
    else
      for (const b of m.content)
        if (b.type === 'text') out.push(b.text);
        else if (b.type === 'tool_result' && typeof b.content === 'string') out.push(b.content);
  }
  return out;
}

/** `eager`: cache-aware timing off, so every trim a strategy proposes is applied at once. */
function check(t: Task, strategy: string, eager = false): void {
  const { json, typed } = build(t);
  const imp = parseTranscript(json, 'api_conversation_history.json');
  replayAll(imp, { strategy, config: eager ? { cacheAware: { enabled: false } } : undefined }, ({ call, prepared }) => {
    const body = prepared.body;
    const where = `${t.shape} ${strategy}${eager ? ' (eager)' : ''} call ${call.index}`;
    const recorded = latestThinking(imp, call.epochStart, call.at);
    expect(
      validateRequest(body, { model: body.model, thinking: t.thinking, latestAssistantThinking: recorded }),
      where,
    ).toEqual([]);
    const wire = {
      ...body,
      model: 'claude-sonnet-4-5',
      ...(t.thinking ? { thinking: { type: 'enabled', budget_tokens: 1024 }, max_tokens: 2048 } : {}),
    };
    const dev = checkRequest(wire, { endpoint: 'messages', models: DEV_MODELS, verifySignature: () => undefined });
    expect(dev.ok ? 'ok' : dev.rejection.message, `${where} (test server)`).toBe('ok');
    if (ANCHORS.has(strategy)) return;
    const texts = userTexts(body);
    for (const x of typed)
      if (x.at < call.at)
        expect(
          texts.some((s) => s.includes(x.text)),
          `${where}: ${x.text.slice(0, 60)}`,
        ).toBe(true);
    // The latest response's thinking is checked by validateRequest above (the API's rule); older ones may go.
    if (strategy === 'none')
      expect(loopThinkingChanged(imp, call.epochStart, call.at, body), `${where}: loop thinking`).toBe(false);
    // The client's context: older copies may go, the newest of each reaches the model verbatim.
    for (const newest of newestContext(imp, call.at)) expect(texts, `${where}: newest context`).toContain(newest);
  });
}

/** The newest environment block and the newest focus chain block of the messages before `upTo`. */
function newestContext(imp: ReturnType<typeof parseTranscript>, upTo: number): string[] {
  const out = new Map<string, string>();
  for (const m of imp.messages.slice(0, upTo))
    for (const b of m.blocks) {
      if (m.role !== 'user' || b.param.type !== 'text') continue;
      if (b.param.text.startsWith('<environment_details>')) out.set('env', b.param.text);
      if (b.param.text.includes('# TODO LIST UPDATE REQUIRED')) out.set('focus', b.param.text);
    }
  return [...out.values()];
}

/**
 * Tool output is trimmed like a tool result: with cache-aware timing off, summarize-tool-results
 * leaves no long output of a round older than the last two (rounds answered in output) verbatim
 * in the last request.
 */
function checkTrimmed(t: Task): void {
  const { json } = build(t);
  const imp = parseTranscript(json, 'api_conversation_history.json');
  let last: RequestBody | undefined;
  replayAll(
    imp,
    { strategy: 'summarize-tool-results', config: { cacheAware: { enabled: false } } },
    ({ prepared }) => (last = prepared.body),
  );
  if (!last) return;
  const sent = new Set(userTexts(last));
  const upTo = imp.calls.at(-1)!.at;
  // Results of a round are older than the last two when two later messages of the request answer in output.
  const answers = imp.messages.map((m, p) => p < upTo && m.blocks.some((b) => b.observation));
  for (let p = 0; p < upTo; p++) {
    if (answers.slice(p + 1, upTo).filter(Boolean).length < 2) continue;
    for (const b of imp.messages[p].blocks) {
      if (!b.observation || b.param.type !== 'text' || b.param.text.length < 1000) continue;
      // The same output read again later is rightly verbatim there.
      const text = b.param.text;
      if (
        imp.messages
          .slice(p + 1, upTo)
          .some((m) => m.blocks.some((x) => x.param.type === 'text' && x.param.text === text))
      )
        continue;
      expect(sent.has(b.param.text), `${t.shape}: ${b.param.text.slice(0, 50)} sent verbatim`).toBe(false);
    }
  }
}

describe("Cline and Roo histories: the user's words verbatim, every request valid", () => {
  it(`text-form tool output is trimmed like a tool result (${RUNS} tasks)`, () => {
    fc.assert(
      fc.property(taskShape, (t) => checkTrimmed(t)),
      { numRuns: RUNS },
    );
  });

  it('the random tasks hold long text-form outputs to trim', () => {
    const t: Task = {
      shape: 'cline-native',
      thinking: true,
      steps: [0, 1, 2, 3].map((file) => ({
        tool: 'read_file',
        file,
        lines: 100,
        extra: 'none',
        said: 0,
        progress: false,
        parallel: 0,
      })),
    };
    const imp = parseTranscript(build(t).json, 'api_conversation_history.json');
    expect(
      imp.messages.filter((m) => m.blocks.some((b) => b.observation && blockLength(b.param) >= 1000)),
    ).toHaveLength(4);
  });

  it(`every strategy on random tasks in the three shapes (${RUNS} tasks)`, () => {
    fc.assert(
      fc.property(taskShape, fc.constantFrom(...MODEL_FREE_STRATEGIES), (t, strategy) => {
        check(t, strategy);
        check(t, strategy, true);
        if (strategy !== 'default') check(t, 'default');
      }),
      { numRuns: RUNS },
    );
  });
});
