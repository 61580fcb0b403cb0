/**
 * The report's engine for the extension (dist/report-core.js), required on the
 * first run of the report command so activation stays light. The files are
 * reported in worker threads (dist/report-worker.js, beside this bundle) so the
 * extension host stays free; without the worker script, in this thread,
 * yielding between files.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { buildReportAsync, buildReportParallel, type Report, type ReportOptions } from '../../core/report';

export { buildReportAsync, defaultProjectsDir } from '../../core/report';

/** Workers even on one core: the point in the editor is to keep the extension host free. */
const MIN_WORKERS = 2;

export function buildReportInWorkers(o: ReportOptions): Promise<Report> {
  const script = join(__dirname, 'report-worker.js');
  if (!existsSync(script)) return buildReportAsync(o);
  return buildReportParallel({ ...o, workerScript: script, workers: Math.max(MIN_WORKERS, availableParallelism()) });
}
