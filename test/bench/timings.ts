/**
 * Timings that tests must not assert (a loaded machine makes any bound flaky), measured here:
 * - `trimline statusline` end to end (node start, the status-line bundle, a transcript tail) on a
 *   large transcript, against `node -e 0` on the same machine, and the tail read alone in-process;
 * - the cache simulator on a 300-call session of 2,000-block requests (was a < 2 s test bound);
 * - the tokenizer on a pathological 220,000-character run (was a < 5 s test bound).
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CacheSimulator, type SimBlock, type SimRequest } from '../../src/core/cache/simulator';
import { statusFromTranscript } from '../../src/core/status';
import { cl100kCount } from '../../src/core/tokens/encoder';

const RUNS = 9;
/** A transcript of about this many bytes for the status line (a long Claude Code session). */
const BIG_TRANSCRIPT_BYTES = 50_000_000;

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function timed(f: () => void): number {
  const t = performance.now();
  f();
  return performance.now() - t;
}

/** A Claude Code-like transcript of ~`bytes`: prompts, reads with 8 KB results, responses with usage. */
function bigTranscript(file: string, bytes: number): void {
  const result = 'x'.repeat(8_000);
  let lines: string[] = [];
  for (let i = 0; statSyncSize(file) < bytes; i++) {
    const at = new Date(Date.UTC(2026, 10, 28, 10, 0, i)).toISOString();
    const usage = {
      input_tokens: 5,
      output_tokens: 80,
      cache_read_input_tokens: 20_000 + (i % 80) * 2_000,
      cache_creation_input_tokens: 2_000,
    };
    lines.push(
      JSON.stringify({
        type: 'assistant',
        timestamp: at,
        message: {
          id: `msg_${i}`,
          model: 'claude-sonnet-4-6',
          role: 'assistant',
          content: [{ type: 'tool_use', id: `toolu_${i}`, name: 'Read', input: {} }],
          usage,
        },
      }),
      JSON.stringify({
        type: 'user',
        timestamp: at,
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: result }] },
      }),
    );
    if (lines.length >= 200) {
      appendFileSync(file, `${lines.join('\n')}\n`);
      lines = [];
    }
  }
}

function statSyncSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

function simulatorMs(): number {
  const tokensOf = (b: unknown): number => String((b as { text?: string }).text ?? '').length;
  const text = (tag: string, n: number): SimBlock => ({ type: 'text', text: `${tag}:`.padEnd(n, '.') }) as SimBlock;
  const sim = new CacheSimulator();
  const system = [{ ...text('system', 3000), cache_control: { type: 'ephemeral' } } as SimBlock];
  const log: SimBlock[] = Array.from({ length: 1700 }, (_, i) => text(`b${i}`, 40));
  return timed(() => {
    for (let call = 0; call < 300; call++) {
      log.push(text(`new${call}`, 40));
      const blocks = log.map((b, i) =>
        i === log.length - 1 ? ({ ...b, cache_control: { type: 'ephemeral' } } as SimBlock) : b,
      );
      const body: SimRequest = { model: 'claude-sonnet-4-6', system, messages: [{ role: 'user', content: blocks }] };
      sim.step(body, tokensOf, 1_700_000_000_000 + call * 10_000);
    }
  });
}

export function timingsSection(log: (s: string) => void): { md: string[]; json: Record<string, unknown> } {
  const dir = mkdtempSync(join(tmpdir(), 'trimline-timings-'));
  try {
    const file = join(dir, 'session.jsonl');
    bigTranscript(file, BIG_TRANSCRIPT_BYTES);
    const input = JSON.stringify({
      session_id: 'bench',
      transcript_path: file,
      model: { id: 'claude-sonnet-4-6', display_name: 'Sonnet 4.6' },
      cost: { total_cost_usd: 12.5 },
    });
    const env = { ...process.env, TRIMLINE_DATA_DIR: dir };
    // Beside this bundle (dist/bench.js): runs from any directory.
    const cli = join(__dirname, 'cli.js');
    const node: number[] = [];
    const status: number[] = [];
    let line = '';
    for (let r = 0; r < RUNS; r++) {
      node.push(timed(() => spawnSync(process.execPath, ['-e', '0'], { env })));
      status.push(
        timed(
          () =>
            (line = spawnSync(process.execPath, [cli, 'statusline'], { input, env, encoding: 'utf8' }).stdout.trim()),
        ),
      );
    }
    const tail = Array.from({ length: RUNS }, () => timed(() => statusFromTranscript(file)));
    const sim = Array.from({ length: 3 }, simulatorMs);
    const run = `start ${'A'.repeat(200_000)} ${'─'.repeat(20_000)} end`;
    const tokens = Array.from({ length: 3 }, () => timed(() => cl100kCount(run)));
    const json = {
      transcriptMB: statSync(file).size / 1e6,
      statuslineMs: median(status),
      nodeStartMs: median(node),
      tailReadMs: median(tail),
      simulator300CallsMs: median(sim),
      pathologicalRunMs: median(tokens),
      line,
    };
    log(`timings: ${JSON.stringify(json)}`);
    const ms = (n: number): string => `${n.toFixed(1)} ms`;
    return {
      json,
      md: [
        '## Timings kept out of the tests',
        '',
        `Medians of ${RUNS} runs (the machine may be shared: compare with \`node -e 0\` beside it).`,
        '',
        '| what | time |',
        '|---|---|',
        `| \`trimline statusline\`, end to end, ${json.transcriptMB.toFixed(0)} MB transcript, no proxy | ${ms(json.statuslineMs)} |`,
        `| \`node -e 0\` on the same machine | ${ms(json.nodeStartMs)} |`,
        `| the transcript's tail read and parsed, in-process | ${ms(json.tailReadMs)} |`,
        `| cache simulator, 300 calls of 2,000-block requests | ${ms(json.simulator300CallsMs)} |`,
        `| tokenizer, a 220,000-character pathological run | ${ms(json.pathologicalRunMs)} |`,
        '',
        `The status line printed: \`${line}\``,
        '',
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
