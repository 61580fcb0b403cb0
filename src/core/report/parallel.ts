/**
 * The report on every core: files are reported by a pool of worker threads
 * and merged in the main thread in counting order, so the output is the
 * sequential one (buildReport), row for row.
 *
 * Which responses a file counts depends on the files before it (a resumed
 * session copies its parent's lines). Each file is first reported as if
 * nothing were counted before it; at its turn in the merge, the keys it
 * counted are checked against those counted so far. Almost always none are
 * (the result stands); otherwise the file is reported again, first in the
 * queue, with just those keys counted (jobs.ts: that gives the sequential
 * rows exactly). The per-file cache works as in the sequential run: a file it
 * answers is not sent to a worker, and a cached file whose responses were
 * counted earlier in this run is reported anew.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { FoundFile } from './discover';
import { runFileJob, type FileJobResult } from './jobs';
import { addFile, finish, push, reportSetup, start, type ReportOptions } from './report';
import type { Report } from '../../protocol/report-types';
import type { JobReply, JobRequest, WorkerSetup } from './worker';

/**
 * Young generation of each worker (MB): the report allocates short-lived objects
 * per call and per block; V8's default (16 MB semi-spaces) scavenges about twice
 * as often, measured at 10–15% of the time in GC, 6–8% with this.
 */
const WORKER_YOUNG_GENERATION_MB = 96;

/**
 * On two cores, below this many bytes in all one thread finishes first. Each worker loads the
 * bundle and warms up its own JIT (a cold process reads its first 8 MB of sessions about 3×
 * slower than a warm one), and two busy threads share the cores with V8's helpers. Measured
 * here (copies of the m-claude sessions, `none` + `default`, wall): 34 MB 2.3 s in this thread
 * vs 2.5–2.7 s in two workers; 67 MB 3.3 vs 3.5–3.7 s; 133 MB 5.4 vs 5.1 s; 205 MB 7.3 vs 6.5 s.
 */
export const PARALLEL_MIN_BYTES = 96_000_000;
/** Two workers did the work of 1.22 threads here (205 MB: 6.1 s of work in one thread, 5.0 s in two, warm-up aside). */
const WORKER_EFFICIENCY = 0.61;

/**
 * The bytes above which workers pay on `cores` cores: {@link PARALLEL_MIN_BYTES} scaled by the
 * share of the work the workers save there against two (more cores: the crossover comes sooner).
 */
export function parallelMinBytes(cores: number): number {
  if (cores < 2) return Infinity;
  const saved = (k: number): number => 1 - 1 / (k * WORKER_EFFICIENCY);
  return Math.round((PARALLEL_MIN_BYTES * saved(2)) / saved(cores));
}

export interface ParallelReportOptions extends ReportOptions {
  /** The worker script (dist/report-worker.js: src/cli/report-worker.ts). */
  readonly workerScript: string;
  /**
   * Worker threads (at most one per file); 0 or 1: in this thread (synchronously).
   * Default: the cores available, or this thread when the files are fewer than
   * {@link parallelMinBytes} in all.
   */
  readonly workers?: number;
}

interface Pending {
  readonly job: JobRequest;
  readonly done: (r: FileJobResult) => void;
}

/** Worker threads taking jobs from one queue; urgent jobs (re-runs the merge waits for) go first. */
class Pool {
  private readonly queue: Pending[] = [];
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Pending>();
  private readonly workers: Worker[] = [];
  private nextId = 0;

  constructor(
    private readonly script: string,
    private readonly size: number,
    private readonly setup: WorkerSetup,
  ) {}

  run(path: string, prior: readonly string[], urgent = false): Promise<FileJobResult> {
    return new Promise((done) => {
      const p: Pending = { job: { id: this.nextId++, path, prior }, done };
      if (urgent) this.queue.unshift(p);
      else this.queue.push(p);
      this.pump();
    });
  }

  async close(): Promise<void> {
    const all = this.workers.splice(0);
    this.idle.length = 0;
    await Promise.all(all.map((w) => w.terminate()));
  }

  private pump(): void {
    while (this.queue.length) {
      const w = this.idle.pop() ?? (this.workers.length < this.size ? this.spawn() : undefined);
      if (!w) return;
      const p = this.queue.shift()!;
      this.busy.set(w, p);
      w.postMessage(p.job);
    }
  }

  private spawn(): Worker {
    const w = new Worker(this.script, {
      workerData: this.setup,
      resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
    });
    this.workers.push(w);
    w.on('message', (reply: JobReply) => {
      const p = this.busy.get(w);
      this.busy.delete(w);
      this.idle.push(w);
      if (p) p.done('result' in reply ? reply.result : this.inProcess(p.job));
      this.pump();
    });
    // A worker that fails (cannot start, crashes) is dropped; its job and the rest run without it, in process at worst.
    w.on('error', () => this.drop(w));
    w.on('exit', () => this.drop(w));
    return w;
  }

  private drop(w: Worker): void {
    const i = this.workers.indexOf(w);
    if (i < 0) return;
    this.workers.splice(i, 1);
    const j = this.idle.indexOf(w);
    if (j >= 0) this.idle.splice(j, 1);
    const p = this.busy.get(w);
    this.busy.delete(w);
    if (p) p.done(this.inProcess(p.job));
    if (!this.workers.length) for (const q of this.queue.splice(0)) q.done(this.inProcess(q.job));
    else this.pump();
  }

  private inProcess(job: JobRequest): FileJobResult {
    return runFileJob(job.path, job.prior, this.setup);
  }
}

/**
 * V8 flags for a report in worker threads. The workers keep every core busy, so V8's own
 * helper threads (parallel and concurrent GC, background compiles) only take turns with
 * them. Measured on this 2-core machine, 205 MB, two workers, `none` + `default`: 7.3–7.6 s
 * → 6.6–6.8 s wall, CPU 13.3–14.0 s → 12.3–12.6 s. V8 reads them when it makes a heap, so
 * they go on a new process's command line (the CLI relaunches itself, src/cli/relaunch.ts):
 * set at run time (`v8.setFlagsFromString`) they end a heap that is marking in a fatal CHECK (seen here).
 */
export const REPORT_V8_FLAGS: readonly string[] = ['--single-threaded-gc', '--no-concurrent-recompilation'];

/** Worker threads for `bytes` in `files` files: 0 to report them in this thread. */
function threadsFor(bytes: number, files: number, workers: number | undefined): number {
  const cores = availableParallelism();
  const wanted = workers ?? (bytes < parallelMinBytes(cores) ? 1 : cores);
  return wanted <= 1 ? 0 : Math.max(1, Math.min(wanted, files));
}

/**
 * The bytes of the files the cache will not answer (what there is to read), and the worker threads for them (0: none).
 */
function planFor(
  files: readonly FoundFile[],
  setup: string,
  o: Pick<ParallelReportOptions, 'cache' | 'workers'>,
): { bytes: number; threads: number } {
  let bytes = 0;
  let toRead = 0;
  for (const f of files) {
    if (o.cache?.peek(f.path, f.size, f.mtimeMs, setup)) continue;
    bytes += f.size;
    toRead++;
  }
  return { bytes, threads: threadsFor(bytes, toRead, o.workers) };
}

/**
 * What {@link buildReportParallel} would hand to worker threads for these options: the bytes
 * of the files its cache will not answer, and the number of threads (0: none). Reads the
 * directory listing and the cache, not the files.
 */
export function parallelPlan(o: Omit<ParallelReportOptions, 'workerScript' | 'onFile'>): {
  bytes: number;
  threads: number;
} {
  const { files, strategies } = start(o);
  return planFor(files, reportSetup(strategies, o.config), o);
}

/** The report of {@link buildReport}, with the files reported by worker threads. */
export async function buildReportParallel(o: ParallelReportOptions): Promise<Report> {
  const { files, strategies, acc, searched } = start(o);
  const setup = reportSetup(strategies, o.config);
  // Decided on what there is to read: a rerun the cache mostly answers is read in this thread.
  const size = planFor(files, setup, o).threads;
  if (size === 0) {
    for (let i = 0; i < files.length; i++) {
      addFile(acc, files[i], strategies, o.config, o.cache);
      if (o.onFile?.(i + 1, files.length, files[i].path) === false) break;
    }
    return finish(acc, strategies, o.cache, searched);
  }
  const pool = new Pool(o.workerScript, size, { strategies, config: o.config });
  try {
    // Every file the cache will not answer is started now; the merge below takes them in order.
    const first = files.map((f) =>
      o.cache?.peek(f.path, f.size, f.mtimeMs, setup) ? undefined : pool.run(f.path, []),
    );
    for (let i = 0; i < files.length; i++) {
      const f = files[i];
      const hit = o.cache?.get(f.path, f.size, f.mtimeMs, setup, acc.counted);
      if (hit) {
        for (const k of hit.keys) acc.counted.add(k);
        push(acc, f, hit);
      } else {
        let r = await (first[i] ?? pool.run(f.path, [], true));
        const prior = r.unreadable ? [] : r.keys.filter((k) => acc.counted.has(k));
        if (prior.length) r = await pool.run(f.path, prior, true);
        if (r.unreadable) acc.skipped.push({ file: f.path, reason: r.unreadable });
        else {
          for (const k of r.keys) acc.counted.add(k);
          o.cache?.set(f.path, {
            size: f.size,
            mtimeMs: f.mtimeMs,
            setup,
            rows: r.rows,
            skipped: r.skipped,
            badLines: r.badLines,
            keys: r.keys,
          });
          push(acc, f, r);
        }
      }
      if (o.onFile?.(i + 1, files.length, f.path) === false) break;
    }
  } finally {
    await pool.close();
  }
  return finish(acc, strategies, o.cache, searched);
}
