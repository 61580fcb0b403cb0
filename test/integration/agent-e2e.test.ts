/**
 * End to end: two prompts, 30+ model calls of a tool-using session in a temp
 * workspace, through the headless CLI (child processes) and the real SDK, against
 * the local server playing a scripted model. Default trimming, faults injected
 * (429 with retry-after, 529, a reset mid-stream, an error event after HTTP 200),
 * and a SIGKILL mid-stream followed by a resume.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { costOf } from '../../src/core/cache/cost';
import { journalPath, loadJournal, scanJournal } from '../../src/core/store';
import { faults, startTestServer, type Fault, type TestServer } from '../../src/dev/server';
import { buildCli, runCli, waitFor } from './cli';
import { policy, position, use, type StepSpec } from './scenario';

const SESSION = 'e2e-session';
/** The kill lands in this step's response, streamed slowly so it is cut mid-message. */
const KILL_AT = { task: 1, step: 6 };
const KILL_STREAM_DELAY_MS = 40;
/** Time the killed response has been streaming when the kill lands. */
const KILL_AFTER_MS = 300;
const BIG_FILE =
  Array.from({ length: 400 }, (_, i) => `filler line ${i}: nothing to see here, just text to make the file large`).join(
    '\n',
  ) + '\n';

/** Three steps per module: write it, read it back next to a search, edit it. */
function moduleSteps(i: number): StepSpec[] {
  const file = `src/mod${i}.ts`;
  return [
    {
      text: `Creating ${file}.`,
      tools: [use('write_file', { path: file, content: `export const value${i} = ${i};\n// TODO: scale value${i}\n` })],
    },
    {
      text: `Checking ${file}.`,
      tools: [use('read_file', { path: file }), use('search', { query: `value${i}`, path: 'src' })],
    },
    {
      text: `Scaling value${i}.`,
      tools: [use('edit_file', { path: file, old_text: `= ${i};`, new_text: `= ${i * 10};` })],
    },
  ];
}

function plans(task: number): StepSpec[] {
  if (task === 0) {
    return [
      { text: 'Looking around.', tools: [use('list_files', {}), use('search', { query: 'TODO' })] },
      ...[0, 1, 2, 3].flatMap(moduleSteps),
      { text: 'Reading the big file.', tools: [use('read_file', { path: 'big.txt' })] },
      (prev) => ({
        text: 'Done with the big file: trimming it.',
        tools: [
          use('trim_tool_result', {
            tool_use_id: prev.toolUseIds[0],
            summary: 'big.txt: 400 filler lines, nothing needed.',
          }),
        ],
      }),
      { text: 'Listing the modules.', tools: [use('run_command', { command: 'ls src | sort > listing.txt' })] },
    ];
  }
  return [
    ...[4, 5, 6, 7].flatMap(moduleSteps),
    {
      text: 'Documenting.',
      tools: [use('write_file', { path: 'README.md', content: '# Modules\n\nmod0–mod7, each value scaled by 10.\n' })],
    },
    {
      text: 'Counting exports.',
      tools: [use('run_command', { command: 'cat src/*.ts | grep -c export > count.txt' })],
    },
    { text: 'Reading the count.', tools: [use('read_file', { path: 'count.txt' })] },
  ];
}

/** Faults by (task, step), each injected once. */
const FAULTS: Record<string, Fault> = {
  '0:2': faults.rateLimit(1),
  '0:6': faults.overloaded(),
  '1:2': faults.reset(5),
  '1:9': faults.errorEvent(6),
};

let bundle: string;
let server: TestServer;
let workspace: string;
const injected = new Set<string>();
let killSeq: number | undefined;

beforeAll(async () => {
  bundle = buildCli();
  server = await startTestServer({ fallback: 'fail' });
  server.faultWhen(({ seq, path: p, body }) => {
    if (p !== '/v1/messages') return undefined;
    const { task, step } = position((body as { messages: Parameters<typeof position>[0] }).messages);
    const key = `${task}:${step}`;
    if (FAULTS[key] && !injected.has(key)) {
      injected.add(key);
      return FAULTS[key];
    }
    if (task === KILL_AT.task && step === KILL_AT.step && killSeq === undefined) {
      killSeq = seq;
      return faults.slow(KILL_STREAM_DELAY_MS);
    }
    return undefined;
  });
  const play = policy(plans, 200);
  server.script(...Array.from({ length: 200 }, () => play));
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'trimline-e2e-'));
  fs.writeFileSync(path.join(workspace, 'big.txt'), BIG_FILE);
});

afterAll(async () => {
  await server?.close();
  if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
});

/** `$X this run, $Y for the session` from the CLI's last line. */
function printedCosts(stdout: string): { run: number; session: number } {
  const m = /cost \$([\d.]+) this run, \$([\d.]+) for the session/.exec(stdout);
  if (!m) throw new Error(`no cost line in: ${stdout.slice(-500)}`);
  return { run: Number(m[1]), session: Number(m[2]) };
}

describe('agent end to end', () => {
  it('runs a 30+ call session with faults, a SIGKILL and a resume, and nothing is lost or doubled', async () => {
    const common = ['--workspace', workspace, '--approve-commands'];

    // Prompt 1: a full turn, with a 429 (retry-after) and a 529 on the way.
    const first = runCli(
      bundle,
      ['TASK 0: create and scale modules 0-3.', '--session', SESSION, ...common],
      server.url,
      workspace,
    );
    expect((await first.exited).code, first.stderr()).toBe(0);
    expect(first.stdout()).toContain('[task 0 step 3]');
    expect(first.stdout()).toContain('→ edit_file src/mod0.ts');
    expect(first.stderr()).toMatch(/retry 1\/6 in 1\.0s: 429 rate_limit_error/);
    expect(first.stderr()).toMatch(/retry 1\/6 in .*529 overloaded_error/);

    // Prompt 2, killed mid-stream (a reset mid-stream happens before the kill).
    const second = runCli(
      bundle,
      ['TASK 1: create and scale modules 4-7.', '--resume', SESSION, ...common],
      server.url,
      workspace,
    );
    await waitFor(() => killSeq !== undefined, 60_000, 'the request to kill');
    await new Promise((r) => setTimeout(r, KILL_AFTER_MS));
    const killed = server.requests.find((r) => r.seq === killSeq)!;
    expect(killed.response, 'the kill must land mid-stream').toBeUndefined();
    second.child.kill('SIGKILL');
    expect((await second.exited).signal).toBe('SIGKILL');
    expect(second.stderr()).toMatch(/stream cut mid-message/);

    // Resume: the interrupted turn continues (an error event after HTTP 200 on the way).
    const third = runCli(bundle, ['--resume', SESSION, ...common], server.url, workspace);
    expect((await third.exited).code, third.stderr()).toBe(0);
    expect(third.stderr()).toMatch(/overloaded_error during the stream/);
    expect(third.stdout()).toContain('[task 1 done]');

    // The server saw zero invalid requests.
    const invalid = server.requests.filter((r) => !r.validation.ok).map((r) => `#${r.seq}: ${r.validation.message}`);
    expect(invalid).toEqual([]);
    expect(injected.size).toBe(4);
    expect(killed.response?.interrupted).toBe(true);

    // The journal: no loss, no duplicates.
    const file = journalPath(path.join(workspace, '.trimline', 'sessions'), SESSION);
    const scan = scanJournal(fs.readFileSync(file, 'utf8'));
    expect(scan.duplicates).toBe(0);
    expect(scan.issues).toEqual([]);
    const { session } = loadJournal(file);
    expect(session.calls.length).toBeGreaterThanOrEqual(30);
    const ids = session.messages.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    const useIds = session.messages.flatMap((m) =>
      m.blocks.filter((b) => b.kind === 'tool_use').map((b) => b.toolUseId!),
    );
    expect(new Set(useIds).size).toBe(useIds.length);
    expect(session.messages.some((m) => m.meta.interrupted)).toBe(false);
    const completed = server.requests.filter(
      (r) => r.path === '/v1/messages' && r.response?.kind === 'stream' && !r.response.interrupted,
    );
    expect(completed.length).toBe(session.calls.length);
    // Each completed response is recorded, in order, with the usage the server reported.
    completed.forEach((r, i) => {
      const call = session.calls[i];
      const u = r.response!.usage!;
      expect(call.usage).toEqual({
        input_tokens: u.input_tokens,
        output_tokens: u.output_tokens,
        cache_creation_input_tokens: u.cache_creation_input_tokens,
        cache_read_input_tokens: u.cache_read_input_tokens,
      });
      const message = session.messages[call.at];
      expect(message.role).toBe('assistant');
      const uses = ((r.response!.content ?? []) as { type: string; id?: string }[])
        .filter((b) => b.type === 'tool_use')
        .map((b) => b.id);
      expect(message.blocks.filter((b) => b.kind === 'tool_use').map((b) => b.toolUseId)).toEqual(uses);
    });
    for (let i = 0; i < session.messages.length; i++) {
      const m = session.messages[i];
      const uses = m.blocks.filter((b) => b.kind === 'tool_use').map((b) => b.toolUseId);
      if (uses.length)
        expect(session.messages[i + 1].blocks.filter((b) => b.kind === 'tool_result').map((b) => b.toolUseId)).toEqual(
          uses,
        );
    }

    // Trimming was active: strategy overlays, and the agent's own trim of big.txt.
    const overlays = session.allOverlays();
    expect(overlays.filter((o) => o.author.startsWith('strategy:')).length).toBeGreaterThan(0);
    const agentTrims = overlays.filter((o) => o.author === 'agent');
    expect(agentTrims).toHaveLength(1);
    expect(agentTrims[0].kind === 'trim' && agentTrims[0].text).toContain('big.txt: 400 filler lines');

    // Costs add up: the printed totals are the sum of the journaled usage, priced by the one table.
    const total = session.calls.reduce((s, c) => s + costOf(c.usage!, c.model!).total, 0);
    const task0 = session.calls.filter(
      (c) =>
        c.at <
        session.messages.findIndex(
          (m) =>
            m.role === 'user' && m.blocks.some((b) => b.param.type === 'text' && b.param.text.startsWith('TASK 1:')),
        ),
    );
    const p1 = printedCosts(first.stdout());
    const p3 = printedCosts(third.stdout());
    expect(p3.session).toBeCloseTo(total, 5);
    expect(p1.run).toBeCloseTo(
      task0.reduce((s, c) => s + costOf(c.usage!, c.model!).total, 0),
      5,
    );
    expect(p1.session).toBeCloseTo(p1.run, 9);
    expect(p3.run).toBeLessThan(p3.session - p1.session + 1e-9);

    // The files are right.
    const read = (f: string): string => fs.readFileSync(path.join(workspace, f), 'utf8');
    for (let i = 0; i < 8; i++)
      expect(read(`src/mod${i}.ts`)).toBe(`export const value${i} = ${i * 10};\n// TODO: scale value${i}\n`);
    expect(read('listing.txt')).toBe('mod0.ts\nmod1.ts\nmod2.ts\nmod3.ts\n');
    expect(read('count.txt')).toBe('8\n');
    expect(read('README.md')).toContain('# Modules');
    console.log(
      `e2e: ${session.calls.length} calls, ${server.requests.length} requests, ${overlays.length} overlays, $${total.toFixed(6)}`,
    );
  }, 120_000);
});
