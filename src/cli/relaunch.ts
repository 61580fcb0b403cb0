/**
 * `trimline report` relaunched with {@link REPORT_V8_FLAGS} when it will read a lot in
 * worker threads. V8 takes those flags only on a process's command line (see parallel.ts),
 * so the CLI starts itself again with them, once, and answers with the child's exit.
 */
import { spawnSync } from 'node:child_process';
import { parallelPlan, REPORT_V8_FLAGS } from '../core/report';
import { parseReportArgs, reportWorkerScript } from './report';

/** Node's exit code for an option it does not know. */
const NODE_BAD_OPTION = 9;

/** Set in the relaunched process: it never relaunches again. */
export const RELAUNCHED_ENV = 'TRIMLINE_REPORT_RELAUNCHED';
/**
 * Bytes to report in worker threads below which a relaunch is not worth it: starting the
 * bundle again costs ~0.16 s here, the flags save ~7% of a run, which reads ~30 MB/s.
 * `TRIMLINE_RELAUNCH_MIN_BYTES` overrides it (tests).
 */
export const RELAUNCH_MIN_BYTES = 64_000_000;

export interface RelaunchContext {
  readonly env: NodeJS.ProcessEnv;
  /** The node options this process runs with (`process.execArgv`). */
  readonly execArgv: readonly string[];
  /** The CLI script (`process.argv[1]`). */
  readonly script: string;
  /** The worker script beside the CLI, if any (none: the report runs in this thread anyway). */
  readonly workerScript: string | undefined;
}

const here = (): RelaunchContext => ({
  env: process.env,
  execArgv: process.execArgv,
  script: process.argv[1] ?? '',
  workerScript: reportWorkerScript(),
});

/** The node arguments to run `trimline report <argv>` again with the flags, or undefined to run it here. */
export function reportRelaunchArgs(
  argv: readonly string[],
  ctx: RelaunchContext = here(),
  flags: readonly string[] = REPORT_V8_FLAGS,
): string[] | undefined {
  if (ctx.env[RELAUNCHED_ENV] || !ctx.workerScript || !ctx.script) return undefined;
  if (flags.every((f) => ctx.execArgv.includes(f))) return undefined;
  // Under a debugger the report stays in the process being debugged (a child would also take its port).
  if (ctx.execArgv.some((a) => a.startsWith('--inspect') || a.startsWith('--debug'))) return undefined;
  const min = Number(ctx.env.TRIMLINE_RELAUNCH_MIN_BYTES ?? RELAUNCH_MIN_BYTES);
  let plan;
  try {
    const { options, workers } = parseReportArgs(argv);
    plan = parallelPlan({ ...options, workers });
  } catch {
    // A usage error: the report run here says it.
    return undefined;
  }
  if (plan.threads < 2 || plan.bytes < (Number.isFinite(min) ? min : RELAUNCH_MIN_BYTES)) return undefined;
  return [...flags, ...ctx.execArgv, ctx.script, 'report', ...argv];
}

/**
 * Run the report in a relaunched process when {@link reportRelaunchArgs} says so: its exit code; undefined to run it
 * here.
 */
export function relaunchReport(
  argv: readonly string[],
  ctx: RelaunchContext = here(),
  flags: readonly string[] = REPORT_V8_FLAGS,
): number | undefined {
  const args = reportRelaunchArgs(argv, ctx, flags);
  if (!args) return undefined;
  const r = spawnSync(process.execPath, args, { stdio: 'inherit', env: { ...ctx.env, [RELAUNCHED_ENV]: '1' } });
  // Could not start a process, or a node that does not know the flags (its exit code for a bad
  // option is 9; the CLI never exits with it): the report runs here, without them.
  if (r.error || r.status === NODE_BAD_OPTION) return undefined;
  if (r.signal) process.kill(process.pid, r.signal);
  return r.status ?? 1;
}
