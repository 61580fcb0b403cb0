/**
 * The real Claude Code CLI through `trimline proxy`: a single-prompt session with large
 * reads, once with `--strategy none` and once with `default`, against the local
 * Anthropic-compatible server (a scripted model that reads one large file per call,
 * then answers). Measures, from what reached upstream:
 * - user text: every text block of every user message the client sent (its
 *   `<system-reminder>` blocks with CLAUDE.md, the typed prompt, reminders beside tool
 *   results) present verbatim in every upstream request (checked against the proxy's
 *   own log of what the client sent);
 * - message tokens and billed input-side cost (the one pricer over the upstream's usage)
 *   against `none`; requests the upstream's checker refused.
 *
 * Needs the CLI: `CLAUDE_BIN=/path/to/claude` (e.g. after `npm install @anthropic-ai/claude-code`
 * in a scratch folder); without it the section says so and measures nothing.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { costOf } from '../../src/core/cache/cost';
import { checkUserText } from '../../src/core/request/user-text-check';
import type { RequestBody } from '../../src/core/api/wire';
import { startTestServer, type TestServer } from '../../src/dev/server';
import type { IncomingCall, ScriptedTurn } from '../../src/dev/types';
import { startProxy } from '../../src/host/proxy/server';

/** Reads before the answer: 28 tool calls + the answer = 29 main-loop calls. */
const READS = 28;
/**
 * Small enough that `none` stays under the point where Claude Code compacts (it did with 400 and 700 lines: the 22nd
 * read passed its threshold).
 */
const FILE_LINES = 150;
const PROMPT = 'Read every file under src/ one by one and tell me whether they agree with each other.';

export interface CliRun {
  strategy: string;
  mainCalls: number;
  sideCalls: number;
  messageTokens: number;
  inputCost: number;
  refused: number;
  userTextNeeded: number;
  userTextKept: number;
  callsLosingUserText: number;
}

function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'trimline-cc-'));
  mkdirSync(join(dir, 'src'));
  writeFileSync(
    join(dir, 'CLAUDE.md'),
    '# Project rules\nAlways run `npm test` before you say you are done.\nNever edit generated files.\n',
  );
  for (let i = 0; i < READS; i++) {
    const lines = Array.from(
      { length: FILE_LINES },
      (_, k) => `export const value_${i}_${k} = compute("mod${i}", ${k}); // REF-${i}-${k}`,
    );
    writeFileSync(join(dir, 'src', `mod${i}.ts`), `${lines.join('\n')}\n`);
  }
  return dir;
}

/**
 * The scripted model: on the main loop (it offers Read), read the next file, then answer; side calls get a short text.
 */
function policy(dir: string): (call: IncomingCall) => ScriptedTurn {
  return (call) => {
    const body = call.body as unknown as RequestBody;
    const tools = (body.tools ?? []) as { name?: string }[];
    if (!tools.some((t) => t.name === 'Read')) return { content: [{ type: 'text', text: 'ok' }] };
    let results = 0;
    for (const m of body.messages)
      if (m.role === 'user' && typeof m.content !== 'string')
        results += m.content.filter((b) => b.type === 'tool_result').length;
    const thinking = { type: 'thinking' as const, thinking: `Step ${results}.` };
    if (results >= READS)
      return { content: [thinking, { type: 'text', text: 'They agree: every module follows the same pattern.' }] };
    return {
      content: [
        thinking,
        { type: 'text', text: `Reading src/mod${results}.ts.` },
        { type: 'tool_use', name: 'Read', input: { file_path: join(dir, 'src', `mod${results}.ts`) } },
      ],
    };
  };
}

function runCli(bin: string, cwd: string, baseUrl: string, home: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: home,
      ANTHROPIC_BASE_URL: baseUrl,
      ANTHROPIC_API_KEY: 'sk-ant-local-test',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
    };
    const child = spawn(
      bin,
      ['-p', PROMPT, '--model', 'claude-sonnet-4-6', '--allowedTools', 'Read', '--max-turns', String(READS + 5)],
      { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const timer = setTimeout(() => child.kill('SIGKILL'), 10 * 60_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code ?? -1);
    });
  });
}

export async function runClaudeCodeCli(bin: string, strategy: string): Promise<CliRun> {
  const dir = project();
  const server: TestServer = await startTestServer({ fallback: 'echo' });
  server.script(...Array.from({ length: 200 }, () => policy(dir)));
  // Claude Code's home and the proxy's journals are this run's own, removed with it.
  const home = mkdtempSync(join(tmpdir(), 'trimline-cc-home-'));
  const journalDir = mkdtempSync(join(tmpdir(), 'trimline-cc-journal-'));
  const proxy = await startProxy({ upstream: server.url, strategy, journalDir });
  try {
    await runCli(bin, dir, proxy.url, home);
    const requests = server.requests.filter(
      (r) => r.path.startsWith('/v1/messages') && !r.path.includes('count_tokens'),
    );
    const run: CliRun = {
      strategy,
      mainCalls: 0,
      sideCalls: 0,
      messageTokens: 0,
      inputCost: 0,
      refused: 0,
      userTextNeeded: 0,
      userTextKept: 0,
      callsLosingUserText: 0,
    };
    // The main conversation as the proxy logged what the client sent: the session with the most calls.
    const main = proxy.engine.sessions
      .all()
      .reduce((a, b) => (b.session.calls.length > a.session.calls.length ? b : a));
    let k = 0;
    for (const r of requests) {
      const body = r.body as RequestBody;
      if (!r.validation.ok) run.refused++;
      const u = r.response?.usage;
      if (u) {
        run.messageTokens += u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
        run.inputCost += costOf({ ...u, output_tokens: 0 }, body.model).total;
      }
      if (!(body.tools ?? []).some((t) => (t as { name?: string }).name === 'Read')) {
        run.sideCalls++;
        continue;
      }
      run.mainCalls++;
      const call = main.session.calls[k++];
      if (!call) continue;
      const check = checkUserText(main.session.messages, call.epochStart, call.at, body.messages);
      run.userTextNeeded += check.needed;
      run.userTextKept += check.kept;
      if (check.kept < check.needed) run.callsLosingUserText++;
    }
    return run;
  } finally {
    await proxy.close();
    server.close();
    for (const d of [dir, home, journalDir]) rmSync(d, { recursive: true, force: true });
  }
}

export function claudeBin(): string | undefined {
  const bin = process.env.CLAUDE_BIN;
  return bin && existsSync(bin) ? bin : undefined;
}

export function formatCliRuns(runs: readonly CliRun[]): string {
  const none = runs.find((r) => r.strategy === 'none');
  const pct = (a: number, b: number | undefined): string => (b ? `${((100 * a) / b).toFixed(1)}%` : '–');
  return [
    '| strategy | main-loop calls | side calls | user text kept | calls losing user text | message tokens vs none | input-side cost vs none | refused by the upstream |',
    '|---|---|---|---|---|---|---|---|',
    ...runs.map(
      (r) =>
        `| ${r.strategy} | ${r.mainCalls} | ${r.sideCalls} | ${pct(r.userTextKept, r.userTextNeeded)} (${r.userTextNeeded}) | ${r.callsLosingUserText} | ${pct(r.messageTokens, none?.messageTokens)} | ${pct(r.inputCost, none?.inputCost)} | ${r.refused} |`,
    ),
  ].join('\n');
}
