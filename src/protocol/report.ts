/**
 * The report view's typed protocol (host ⇄ webview), imported by both sides.
 * As with the inspector: the webview announces `ready` before the host sends;
 * the host sends the whole report as one typed snapshot (never JSON in JSON).
 */
import type { Report } from './report-types';

export type ReportHostMessage = { readonly type: 'report'; readonly report: Report };

export type ReportWebviewMessage =
  | { readonly type: 'ready' }
  /** Open a session of the report in the inspector with a strategy. */
  | { readonly type: 'openSession'; readonly file: string; readonly strategy: string };

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

/** A message from the report webview, or undefined when it is not one. */
export function parseReportWebviewMessage(raw: unknown): ReportWebviewMessage | undefined {
  if (!isObj(raw)) return undefined;
  if (raw.type === 'ready') return { type: 'ready' };
  if (raw.type === 'openSession' && typeof raw.file === 'string' && typeof raw.strategy === 'string')
    return { type: 'openSession', file: raw.file, strategy: raw.strategy };
  return undefined;
}

/** A message from the host, or undefined when it is not one. */
export function parseReportHostMessage(raw: unknown): ReportHostMessage | undefined {
  if (!isObj(raw) || raw.type !== 'report' || !isObj(raw.report)) return undefined;
  const r = raw.report;
  if (!Array.isArray(r.sessions) || !isObj(r.totals) || !Array.isArray(r.strategies)) return undefined;
  return raw as ReportHostMessage;
}
