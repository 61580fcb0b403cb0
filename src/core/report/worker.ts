/**
 * The worker side of a parallel report (parallel.ts): jobs in, results out,
 * one at a time. The worker script (src/cli/report-worker.ts, built to
 * dist/report-worker.js) only calls {@link serveFileJobs}.
 */
import type { MessagePort } from 'node:worker_threads';
import type { PipelineConfig } from '../trimming';
import { runFileJob, type FileJobResult } from './jobs';

/** What every job of one report shares (the worker's `workerData`). */
export interface WorkerSetup {
  readonly strategies: readonly string[];
  readonly config: PipelineConfig;
}

/** One file to report; `prior`: its responses already counted by earlier files. */
export interface JobRequest {
  readonly id: number;
  readonly path: string;
  readonly prior: readonly string[];
}

export type JobReply =
  { readonly id: number; readonly result: FileJobResult } | { readonly id: number; readonly error: string };

export function serveFileJobs(port: MessagePort, setup: WorkerSetup): void {
  port.on('message', (job: JobRequest) => {
    let reply: JobReply;
    try {
      reply = { id: job.id, result: runFileJob(job.path, job.prior, setup) };
    } catch (e) {
      reply = { id: job.id, error: (e as Error).stack ?? String(e) };
    }
    port.postMessage(reply);
  });
}
