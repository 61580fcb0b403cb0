/**
 * `trimline report` speed: MB/s and peak RSS on a synthetic projects directory
 * of at least {@link CORPUS_MIN_BYTES} (report-corpus.ts), for `none` alone and
 * for the default strategy set, in one thread and in worker threads. Each run
 * is its own process (this bundle with `--report-run=`), so its peak RSS is
 * its own: main thread and workers together.
 */
import { execFileSync } from 'node:child_process';
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

function run(label: string, spec: RunSpec, bytes: number): RunResult {
  // Worker runs start node with the flags `trimline report` relaunches itself with (src/cli/relaunch.ts).
  const flags = spec.workers === 0 ? [] : REPORT_V8_FLAGS;
  const out = execFileSync(
    process.execPath,
    [...flags, join(__dirname, 'bench.js'), `${RUN_FLAG}${JSON.stringify(spec)}`],
    { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
  );
  const r = JSON.parse(out) as { ms: number; cpuMs: number; peakRssMb: number; sessions: number; calls: number };
  return {
    label,
    strategies: spec.strategies,
    workers: spec.workers === 0 ? 'in process' : 'one per core',
    ...r,
    mbPerS: bytes / 1e6 / (r.ms / 1000),
  };
}

export function reportSpeedSection(log: (s: string) => void): { md: string[]; json: unknown } {
  const corpus = reportCorpus(CORPUS_MIN_BYTES);
  log(
    `report corpus: ${(corpus.bytes / 1e6).toFixed(0)} MB, ${corpus.files} files (${corpus.copies} copies of the fixtures) in ${corpus.dir}`,
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
  const md = [
    '## `trimline report` speed',
    '',
    `Corpus: ${(corpus.bytes / 1e6).toFixed(0)} MB in ${corpus.files} files: the transcript fixtures copied ${corpus.copies} times with fresh ids and contents (test/bench/report-corpus.ts), ${rows[0].sessions} sessions, ${rows[0].calls} billed calls. Each run is its own process (\`buildReportParallel\`, no cache); worker runs start it with \`${REPORT_V8_FLAGS.join(' ')}\`, as \`trimline report\` relaunches itself for a large input (src/cli/relaunch.ts); peak RSS covers its worker threads. CPU is the process's user + system time.`,
    '',
    `Machine: ${cpus().length} cores, load average ${load.toFixed(1)} when the section started (other processes take cores from the runs: MB per CPU-second is what one core does, whatever the load).`,
    '',
    '| strategies | threads | MB/s | wall | CPU | MB per CPU-second | peak RSS |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.strategies.join(' + ')} | ${r.workers} | ${r.mbPerS.toFixed(1)} | ${(r.ms / 1000).toFixed(1)} s | ${(r.cpuMs / 1000).toFixed(1)} s | ${(corpus.bytes / 1e6 / (r.cpuMs / 1000)).toFixed(1)} | ${r.peakRssMb.toFixed(0)} MB |`,
    ),
    '',
  ];
  return {
    md,
    json: { corpusBytes: corpus.bytes, files: corpus.files, cores: cpus().length, loadAverage: load, runs: rows },
  };
}
