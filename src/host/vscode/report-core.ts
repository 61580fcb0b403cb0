/**
 * The report's engine for the extension (dist/report-core.js), required on the
 * first run of the report command so activation stays light. Like the CLI, it
 * keeps the per-file cache (path, size, mtime; core/report/cache.ts), here in
 * the extension's globalStorage, so a second run only reads what changed. The
 * files are reported in worker threads (dist/report-worker.js, beside this
 * bundle) so the extension host stays free; without the worker script, in this
 * thread, yielding between files. No `vscode` import: testable in Node.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { buildReportAsync, buildReportParallel, ReportCache, type Report, type ReportOptions } from '../../core/report';

export { buildReportAsync, defaultProjectsDir } from '../../core/report';

/** Workers even on one core: the point in the editor is to keep the extension host free. */
const MIN_WORKERS = 2;

/** The report in worker threads when the worker script is shipped beside this bundle, else in this thread. */
export function buildReportInWorkers(o: ReportOptions): Promise<Report> {
  const script = join(__dirname, 'report-worker.js');
  if (!existsSync(script)) return buildReportAsync(o);
  return buildReportParallel({ ...o, workerScript: script, workers: Math.max(MIN_WORKERS, availableParallelism()) });
}

export interface EditorReportOptions {
  readonly paths: readonly string[];
  readonly strategies: readonly string[];
  /** Where the per-file cache lives; undefined: no cache. */
  readonly cacheFile?: string;
  /** Progress and cancellation, as in ReportOptions (return false to stop). */
  readonly onFile?: ReportOptions['onFile'];
}

export interface EditorReport {
  readonly report: Report;
  /** Files the run went through. */
  readonly files: number;
  /** Of those, unchanged ones taken from the cache (not read). */
  readonly fromCache: number;
  /** Why the cache could not be written (the report is shown all the same). */
  readonly cacheError?: string;
}

/** A cache whose failure to save is kept, not thrown: an unwritable globalStorage must not lose the report. */
class EditorCache extends ReportCache {
  saveError?: string;
  override save(): void {
    try {
      super.save();
    } catch (e) {
      this.saveError = e instanceof Error ? e.message : String(e);
    }
  }
}

/** Build the report for the editor's view, through the per-file cache when one is given. */
export async function runEditorReport(o: EditorReportOptions): Promise<EditorReport> {
  const cache = o.cacheFile ? new EditorCache(o.cacheFile) : undefined;
  let files = 0;
  const report = await buildReportInWorkers({
    paths: o.paths,
    strategies: o.strategies,
    config: {},
    cache,
    onFile: (done, total, file) => {
      files = done;
      return o.onFile?.(done, total, file);
    },
  });
  return { report, files, fromCache: cache?.hits ?? 0, cacheError: cache?.saveError };
}
