/**
 * `trimline report` speed: MB/s and peak RSS on a synthetic projects directory
 * of at least {@link CORPUS_MIN_BYTES} (report-corpus.ts), for `none` alone and
 * for the default strategy set, in one thread and in worker threads. Each run
 * is its own process (this bundle with `--report-run=`), so its peak RSS is
 * its own: main thread and workers together.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { buildReportParallel, DEFAULT_REPORT_STRATEGIES, REPORT_V8_FLAGS } from '../../src/core/report';
import { reportCorpus } from './report-corpus';

/** The corpus: at least 200 MB. */
export const CORPUS_MIN_BYTES = 200_000_000;
const RUN_FLAG = '--report-run=';

interface RunSpec {
  readonly dir: string;
  readonly strategies: readonly string[];
  /** 0: in this thread; undefined: the default (one worker per core). */
  readonly workers?: number;
}

export interface RunResult {
  readonly label: string;
  readonly strategies: readonly string[];
  readonly workers: string;
  readonly ms: number;
  readonly mbPerS: number;
  readonly peakRssMb: number;
  readonly cpuMs: number;
  readonly sessions: number;
  readonly calls: number;
}

/** In the child: run one report and print its time, CPU and peak RSS as JSON. */
export async function reportRunChild(argv: readonly string[]): Promise<boolean> {
  const arg = argv.find((a) => a.startsWith(RUN_FLAG));
  if (!arg) return false;
  const spec = JSON.parse(arg.slice(RUN_FLAG.length)) as RunSpec;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const rep = await buildReportParallel({
    paths: [spec.dir],
    strategies: spec.strategies,
    config: {},
    workerScript: join(__dirname, 'report-worker.js'),
    workers: spec.workers,
  });
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  process.stdout.write(
    JSON.stringify({
      ms,
      cpuMs: (cpu.user + cpu.system) / 1000,
      peakRssMb: process.resourceUsage().maxRSS / 1024,
      sessions: rep.sessions.length,
      calls: rep.totals.calls,
    }),
  );
  return true;
}

function run(label: string, spec: RunSpec, bytes: number, v8Flags?: readonly string[]): RunResult {
  // Worker runs start node with the flags `trimline report` relaunches itself with (src/cli/relaunch.ts).
  const flags = v8Flags ?? (spec.workers === 0 ? [] : REPORT_V8_FLAGS);
  const out = execFileSync(
    process.execPath,
    [...flags, join(__dirname, 'bench.js'), `${RUN_FLAG}${JSON.stringify(spec)}`],
    { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
  );
  const r = JSON.parse(out) as { ms: number; cpuMs: number; peakRssMb: number; sessions: number; calls: number };
  return {
    label,
    strategies: spec.strategies,
    workers: spec.workers === 0 ? 'in process' : spec.workers === undefined ? 'by size' : 'one per core',
    ...r,
    mbPerS: bytes / 1e6 / (r.ms / 1000),
  };
}

/** The shared sets of real sessions the section also reads when they are there (../shared; never in tests). */
const REAL_SETS = ['m-claude', 'entire-dev'];

/** Bytes of the .jsonl files directly in `dir`. */
function setBytes(dir: string): number {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .reduce((n, f) => n + statSync(join(dir, f)).size, 0);
}

/**
 * Real sessions (the shared sets, when present): `none` + `default` as `trimline report --no-cache` runs them (threads
 * by the input's size) and in this thread, with CPU seconds per MB beside the wall (the machine is shared).
 */
function realSetRows(log: (s: string) => void): { md: string[]; rows: (RunResult & { set: string })[] } {
  const rows: (RunResult & { set: string })[] = [];
  for (const set of REAL_SETS) {
    const dir = join(process.cwd(), '..', 'shared', 'data', 'transcripts', set);
    if (!existsSync(dir)) continue;
    const bytes = setBytes(dir);
    for (const [label, workers] of [
      ['by size', undefined],
      ['in process', 0],
    ] as const) {
      // Below the relaunch size (src/cli/relaunch.ts) the CLI runs without the V8 flags: so do these runs.
      const r = run(`${set}, ${label}`, { dir, strategies: [...DEFAULT_REPORT_STRATEGIES], workers }, bytes, []);
      log(
        `report ${set} ${label}: ${r.mbPerS.toFixed(1)} MB/s, CPU ${(r.cpuMs / 1000 / (bytes / 1e6)).toFixed(3)} s/MB`,
      );
      rows.push({ ...r, set, label: String(bytes) });
    }
  }
  if (!rows.length) return { md: [], rows };
  const md = [
    '',
    'Real sessions (../shared/data/transcripts, `none` + `default`, no cache), one process per run:',
    '',
    '| set | MB | threads | MB/s (wall) | wall | CPU | CPU s per MB |',
    '|---|---|---|---|---|---|---|',
    ...rows.map((r) => {
      const mb = Number(r.label) / 1e6;
      const cpu = r.cpuMs / 1000;
      const cells = [r.set, mb.toFixed(1), r.workers, r.mbPerS.toFixed(1), `${(r.ms / 1000).toFixed(2)} s`];
      cells.push(`${cpu.toFixed(2)} s`, (cpu / mb).toFixed(3));
      return `| ${cells.join(' | ')} |`;
    }),
    '',
  ];
  return { md, rows };
}

export function reportSpeedSection(log: (s: string) => void): { md: string[]; json: unknown } {
  const corpus = reportCorpus(CORPUS_MIN_BYTES);
  const corpusMb = (corpus.bytes / 1e6).toFixed(0);
  log(
    `report corpus: ${corpusMb} MB, ${corpus.files} files (${corpus.copies} copies of the fixtures) in ${corpus.dir}`,
  );
  const specs: [string, RunSpec][] = [
    ['none, one thread', { dir: corpus.dir, strategies: ['none'], workers: 0 }],
    ['none + default, one thread', { dir: corpus.dir, strategies: [...DEFAULT_REPORT_STRATEGIES], workers: 0 }],
    ['none, workers', { dir: corpus.dir, strategies: ['none'] }],
    ['none + default, workers', { dir: corpus.dir, strategies: [...DEFAULT_REPORT_STRATEGIES] }],
  ];
  const load = loadavg()[0];
  const rows = specs.map(([label, spec]) => {
    const r = run(label, spec, corpus.bytes);
    log(`report ${label}: ${r.mbPerS.toFixed(1)} MB/s, peak RSS ${r.peakRssMb.toFixed(0)} MB`);
    return r;
  });
  const real = realSetRows(log);
  const mb = corpus.bytes / 1e6;
  const md = [
    '## `trimline report` speed',
    '',
    `Corpus: ${mb.toFixed(0)} MB in ${corpus.files} files: the transcript fixtures copied ${corpus.copies} times ` +
      'with ' +
      `fresh ids and contents (test/bench/report-corpus.ts), ${rows[0].sessions} sessions, ${rows[0].calls} billed ` +
      'calls. Each run is its own process (`buildReportParallel`, no cache); worker runs start it with ' +
      `\`${REPORT_V8_FLAGS.join(' ')}\`, as \`trimline report\` relaunches itself for a large input ` +
      "(src/cli/relaunch.ts); peak RSS covers its worker threads. CPU is the process's user + system time.",
    '',
    `Machine: ${cpus().length} cores, load average ${load.toFixed(1)} when the section started (other processes ` +
      'take cores from the runs: MB per CPU-second is what one core does, whatever the load).',
    '',
    '| strategies | threads | MB/s | wall | CPU | MB per CPU-second | peak RSS |',
    '|---|---|---|---|---|---|---|',
    ...rows.map((r) => {
      const cpu = r.cpuMs / 1000;
      const cells = [r.strategies.join(' + '), r.workers, r.mbPerS.toFixed(1), `${(r.ms / 1000).toFixed(1)} s`];
      cells.push(`${cpu.toFixed(1)} s`, (mb / cpu).toFixed(1), `${r.peakRssMb.toFixed(0)} MB`);
      return `| ${cells.join(' | ')} |`;
    }),
    ...real.md,
    '',
  ];
  return {
    md,
    json: {
      corpusBytes: corpus.bytes,
      files: corpus.files,
      cores: cpus().length,
      loadAverage: load,
      runs: rows,
      realSets: real.rows,
    },
  };
}
