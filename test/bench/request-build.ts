/**
 * Micro benchmark of the request builder (not a test): for synthetic agent
 * sessions of 100…5,000 messages, the time of
 * - a cold build (new builder: every message rendered),
 * - an incremental build (one assistant + one user message appended since the last build),
 * - the same incremental build with cache breakpoints planned (chars/4 accountant),
 * - one `JSON.stringify(body)` of the result (the floor any send pays anyway).
 * Per-turn work should track the incremental column, and stay near the stringify one.
 */
import { RequestBuilder, type BuildOptions } from '../../src/core/request/build';
import { blockText } from '../../src/core/session/log';
import { Session } from '../../src/core/session/session';
import type { ContentBlockParam } from '../../src/core/session/types';
import type { TokenAccountant } from '../../src/core/tokens/types';

export interface RequestBuildRow {
  messages: number;
  bodyBytes: number;
  coldMs: number;
  incrementalMs: number;
  incrementalPlannedMs: number;
  stringifyMs: number;
}

export interface RequestBuildBenchOptions {
  sizes?: readonly number[];
  /** Timed repetitions per size (the median is reported). */
  reps?: number;
}

const DEFAULT_SIZES = [100, 500, 1000, 2000, 5000] as const;
const DEFAULT_REPS = 15;
/** Tool output size of the synthetic session (a typical file read). */
const RESULT_CHARS = 2000;
const CHARS_PER_TOKEN = 4;

const accountant: TokenAccountant = {
  block: (p) => ({ tokens: Math.ceil(blockText(p).length / CHARS_PER_TOKEN), quality: 'estimated' }),
  text: (t) => ({ tokens: Math.ceil(t.length / CHARS_PER_TOKEN), quality: 'estimated' }),
  raw: (t) => Math.ceil(t.length / CHARS_PER_TOKEN),
};

/** One agent round: assistant (thinking every 5th, text, tool_use) then user (tool_result, sometimes text). */
function round(i: number): [ContentBlockParam[], ContentBlockParam[]] {
  const id = `toolu_${i.toString(36).padStart(6, '0')}`;
  const a: ContentBlockParam[] = [];
  if (i % 5 === 0) a.push({ type: 'thinking', thinking: `thinking about step ${i}`, signature: `sig${i}` });
  a.push(
    { type: 'text', text: `Step ${i}: reading the next file.` },
    { type: 'tool_use', id, name: 'read_file', input: { path: `src/f${i}.ts` } },
  );
  const u: ContentBlockParam[] = [
    { type: 'tool_result', tool_use_id: id, content: `// file ${i}\n${'x'.repeat(RESULT_CHARS)}` },
  ];
  if (i % 7 === 0) u.push({ type: 'text', text: 'Keep going.' });
  return [a, u];
}

function makeSession(messages: number): { session: Session; next: number } {
  const session = new Session({ system: 'You are a coding agent.' });
  session.append('user', 'Please refactor the project.');
  let i = 0;
  while (session.messages.length + 2 <= messages) appendRound(session, i++);
  return { session, next: i };
}

function appendRound(session: Session, i: number): void {
  const [a, u] = round(i);
  session.append('assistant', a);
  session.append('user', u);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function time(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

const MODEL = 'claude-sonnet-4-5';

export function benchRequestBuild(opts: RequestBuildBenchOptions = {}): RequestBuildRow[] {
  const rows: RequestBuildRow[] = [];
  const reps = opts.reps ?? DEFAULT_REPS;
  for (const n of opts.sizes ?? DEFAULT_SIZES) {
    const { session, next } = makeSession(n);
    const base: BuildOptions = { model: MODEL, maxTokens: 4096 };
    const planned: BuildOptions = { ...base, cacheTtl: '5m', accountant };
    const cold: number[] = [];
    for (let r = 0; r < reps; r++) cold.push(time(() => new RequestBuilder().build(session, base)));

    const incremental: number[] = [];
    const incrementalPlanned: number[] = [];
    const builder = new RequestBuilder();
    const plannedBuilder = new RequestBuilder();
    builder.build(session, base);
    let previous = plannedBuilder.build(session, planned).breakpoints;
    let k = next;
    for (let r = 0; r < reps; r++) {
      appendRound(session, k++);
      incremental.push(time(() => builder.build(session, base)));
      incrementalPlanned.push(
        time(() => {
          previous = plannedBuilder.build(session, { ...planned, previousBreakpoints: previous }).breakpoints;
        }),
      );
    }
    const body = builder.build(session, base).body;
    const stringify: number[] = [];
    let bytes = 0;
    for (let r = 0; r < reps; r++) stringify.push(time(() => (bytes = JSON.stringify(body).length)));
    rows.push({
      messages: n,
      bodyBytes: bytes,
      coldMs: median(cold),
      incrementalMs: median(incremental),
      incrementalPlannedMs: median(incrementalPlanned),
      stringifyMs: median(stringify),
    });
  }
  return rows;
}

export function formatRequestBuild(rows: readonly RequestBuildRow[]): string {
  const head = 'messages |   body MB | cold ms | incremental ms | +planner ms | JSON.stringify ms';
  const lines = rows.map((r) =>
    [
      String(r.messages).padStart(8),
      (r.bodyBytes / 1e6).toFixed(2).padStart(9),
      r.coldMs.toFixed(2).padStart(7),
      r.incrementalMs.toFixed(2).padStart(14),
      r.incrementalPlannedMs.toFixed(2).padStart(11),
      r.stringifyMs.toFixed(2).padStart(17),
    ].join(' | '),
  );
  return [head, ...lines].join('\n');
}

export function main(): RequestBuildRow[] {
  const rows = benchRequestBuild();
  console.log(formatRequestBuild(rows));
  return rows;
}

if (process.argv[1] && /request-build\.[cm]?[jt]s$/.test(process.argv[1])) main();
