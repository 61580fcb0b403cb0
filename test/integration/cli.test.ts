/** The `trimline` CLI as users run it (the built bundle), plus replay output checks. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runReplay } from '../../src/cli/replay';
import { importTranscript } from '../../src/core/import';
import { validateRequest } from '../../src/core/request/validate';

const CLI = resolve('dist/cli.js');
const FIXTURE = resolve('test/fixtures/transcripts/m-claude/343e3472-b9b6-4561-ade0-21d1a4730c11.jsonl');
const SHARED = resolve(process.cwd(), 'test/fixtures/transcripts/m-claude');

function cli(args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
}

async function replayLines(
  file: string,
  strategy: string,
): Promise<
  {
    call: number;
    request: { model: string; system?: unknown; tools?: unknown; messages: { role: string; content: unknown }[] };
    stats: Record<string, unknown>;
  }[]
> {
  const chunks: string[] = [];
  const out = new Writable({
    write(c, _e, cb) {
      chunks.push(String(c));
      cb();
    },
  });
  await runReplay(file, { strategy, config: {} }, out);
  return chunks
    .join('')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

describe('trimline CLI', () => {
  it('inspect prints one row per block, totals and the next request cost', () => {
    const r = cli(['inspect', FIXTURE, '--strategy', 'default']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^# +role +kind +tool +tokens/m);
    expect(r.stdout).toMatch(/next request: input \d+, cache write \d+, cache read \d+ tokens → \$/);
    expect(r.stdout).toMatch(/blocks: \d+ verbatim, \d+ trimmed/);
  });

  it('inspect --json is machine-readable and rows carry state, tokens with quality, and why', () => {
    const r = cli(['inspect', FIXTURE, '--json']);
    const j = JSON.parse(r.stdout) as {
      rows: { state: string; quality: string; tokens: number; why?: string }[];
      calls: number;
    };
    expect(j.calls).toBe(importTranscript(FIXTURE).calls.length);
    expect(j.rows.length).toBeGreaterThan(50);
    expect(j.rows.some((x) => x.state === 'trimmed' && x.why)).toBe(true);
    expect(new Set(j.rows.map((x) => x.quality))).toEqual(new Set(['calibrated']));
  });

  it('a corrupt file gets one clear line naming the file and line, exit code 2, no stack', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tl-cli-'));
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"messages": [ {"role": "user", "content": "hi"}, ');
    const r = cli(['inspect', bad]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('bad.json');
    expect(r.stderr).toMatch(/line \d+/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('unknown strategies and missing files are usage errors (exit 2)', () => {
    const a = cli(['inspect', FIXTURE, '--strategy', 'nope']);
    expect(a.status).toBe(2);
    expect(a.stderr).toMatch(/unknown strategy "nope"/);
    const b = cli(['inspect', '/no/such/file.jsonl']);
    expect(b.status).toBe(2);
    expect(b.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('strategies lists names and options', () => {
    const r = cli(['strategies']);
    expect(r.status).toBe(0);
    for (const n of [
      'summarize-tool-results',
      'atomic-window',
      'tool-pruning',
      'supersede-stale-reads',
      'keepTurns',
      'minRecentKeep',
    ])
      expect(r.stdout).toContain(n);
  });
});

describe('trimline replay', () => {
  it('emits one valid request per recorded call, numbered from 0, with the full history under none', async () => {
    const file = join(SHARED, 'ff33b5b0-cc51-4271-a3eb-545a85882e5f.jsonl');
    const imp = importTranscript(file);
    const lines = await replayLines(file, 'none');
    expect(lines.map((l) => l.call)).toEqual(imp.calls.map((_, i) => i));
    for (const l of lines) {
      expect(validateRequest(l.request as never, { model: l.request.model })).toEqual([]);
      // Claude Code transcripts record neither system prompt nor tools: one placeholder block stands for them,
      // at the size the recorded usage implies (the engine plans with it, as the proxy would with the real one).
      const placeholder =
        /^\[system prompt and tools of the recording client, not in the transcript: \d+ tokens inferred/;
      expect(l.request.system).toEqual([
        expect.objectContaining({ type: 'text', text: expect.stringMatching(placeholder) }),
      ]);
      expect(l.request.tools).toBeUndefined();
    }
    // From the second call on, the request carries the prior conversation and grows.
    for (let i = 1; i < lines.length; i++)
      expect(lines[i].request.messages.length).toBeGreaterThanOrEqual(lines[i - 1].request.messages.length);
    expect(lines.at(-1)!.request.messages.length).toBeGreaterThan(10);
  });

  it('the default strategy sends fewer tokens than none on a long session and stays valid', async () => {
    const file = join(SHARED, 'abc757d1-3da3-42fb-bb7b-ffa293a4ba29.jsonl');
    const none = await replayLines(file, 'none');
    const def = await replayLines(file, 'default');
    expect(def).toHaveLength(none.length);
    const size = (ls: typeof none) => ls.reduce((s, l) => s + JSON.stringify(l.request.messages).length, 0);
    expect(size(def)).toBeLessThan(size(none) * 0.5);
    for (const l of def) expect(validateRequest(l.request as never, { model: l.request.model })).toEqual([]);
  });

  it("carries the transcript's own system prompt and tools when it recorded them", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tl-replay-'));
    const file = join(dir, 'session.json');
    const tools = [
      {
        name: 'read_file',
        description: 'Read a file',
        input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      },
    ];
    writeFileSync(
      file,
      JSON.stringify({
        system: 'You are a careful coding agent.',
        tools,
        messages: [
          { role: 'user', content: 'read a.ts' },
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.ts' } }],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'export {}' }] },
          { role: 'assistant', content: 'It is empty.' },
        ],
      }),
    );
    const lines = await replayLines(file, 'none');
    expect(lines.map((l) => l.call)).toEqual([0, 1]);
    const sys = lines[1].request.system as { type: string; text: string }[] | string;
    expect(typeof sys === 'string' ? sys : sys.map((b) => b.text).join('')).toBe('You are a careful coding agent.');
    expect((lines[1].request.tools as { name: string }[]).map((t) => t.name)).toEqual(['read_file']);
    expect(lines[1].request.messages).toHaveLength(3);
  });

  it('repairs a recorded history the API would reject (c76e5be5 has a lost tool result)', async () => {
    const file = join(SHARED, 'c76e5be5-ffd2-4901-a935-885527c83a61.jsonl');
    const lines = await replayLines(file, 'none');
    expect(lines.length).toBe(importTranscript(file).calls.length);
    expect(lines.some((l) => (l.stats.repairs as string[]).length > 0)).toBe(true);
    for (const l of lines) expect(validateRequest(l.request as never, { model: l.request.model })).toEqual([]);
  });
});
