/**
 * What trimming would have saved on recorded sessions, anchored to what the
 * API charged: recorded spend (recorded.ts), the bill model and its fit
 * (bill-model.ts, sizing.ts, fit.ts), strategies (strategies.ts), offenders,
 * discovery and output (format.ts, html.ts).
 */
export * from '../../protocol/report-types';
export { buildReport, buildReportAsync, DEFAULT_REPORT_STRATEGIES, type ReportOptions } from './report';
export { completeLines } from './jobs';
export {
  buildReportParallel,
  PARALLEL_MIN_BYTES,
  parallelMinBytes,
  parallelPlan,
  REPORT_V8_FLAGS,
  type ParallelReportOptions,
} from './parallel';
export { defaultProjectsDir, discover, holdsTranscript } from './discover';
export { formatReport } from '../../views/report-text';
export { reportHtml } from '../../views/report-html';
export { callCost } from './recorded';
export { fitNone, MIN_CALLS_FOR_FIT } from './fit';
export * from '../../protocol/report';
export { defaultCacheFile, ReportCache, REPORT_CACHE_VERSION } from './cache';
export { INFERRED_NOTE, inferredHeadRows, transcriptBill, type TranscriptBill } from './transcript-bill';
export { clientPrefixOf, inferClientPrefix } from './client-prefix';
