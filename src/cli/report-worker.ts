/** Worker thread of `trimline report` (built to dist/report-worker.js; see src/core/report/parallel.ts). */
import { parentPort, workerData } from 'node:worker_threads';
import { serveFileJobs, type WorkerSetup } from '../core/report/worker';

if (parentPort) serveFileJobs(parentPort, workerData as WorkerSetup);
