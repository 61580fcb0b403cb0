/**
 * The report's engine for the extension (dist/report-core.js), required on the
 * first run of the report command so activation stays light. Like the CLI, it
 * keeps the per-file cache (path, size, mtime; core/report/cache.ts), here in
 * the extension's globalStorage, so a second run only reads what changed.
 * No `vscode` import: testable in Node.
 */
import { buildReportAsync, ReportCache, type Report, type ReportOptions } from '../../core/report';

export { defaultProjectsDir } from '../../core/report';

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
  const report = await buildReportAsync({
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
