/**
 * The report's engine for the extension (dist/report-core.js), required on the
 * first run of the report command so activation stays light.
 */
export { buildReportAsync, defaultProjectsDir } from '../../core/report';
