/** The report as a terminal table: per session, totals, top offenders, fit notes, skipped files. */
import { dearerLines, headlineLines, nextStepLines, nothingFoundLines, oneLine, skippedSummary } from './report-summary';
import type { Report, SessionReport } from '../protocol/report-types';

/** The last path segment (pure: this file is also bundled into the report webview). */
export function basename(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
}

/** Cline's history file name (CLINE_FILE_NAME in import/cline.ts; not imported: this file is bundled into the webview). */
const CLINE_HISTORY = 'api_conversation_history.json';

/** The path without its last segment. */
function parentName(path: string): string {
  const dir = path.slice(0, Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')));
  return basename(dir);
}

/** Columns of the session name; longer names are cut. */
const NAME_WIDTH = 26;
/** Fit notes printed per session (the JSON has them all). */
const NOTES_SHOWN = 6;

export function dollars(n: number): string {
  if (n === 0) return '$0';
  return n < 0.01 ? `$${n.toFixed(4)}` : n < 100 ? `$${n.toFixed(3)}` : `$${Math.round(n).toLocaleString('en-US')}`;
}

export function percent(x: number | null | undefined, signed = true): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '—';
  const v = (x * 100).toFixed(1);
  return signed && x >= 0 ? `+${v}%` : `${v}%`;
}

/** Left-aligned, cut from the middle so a suffix (` +1`) stays visible. */
function padEnd(s: string, n: number): string {
  const m = / \+\d+$/.exec(s)?.[0] ?? '';
  return m && s.length > n ? pad(s.slice(0, s.length - m.length), n - m.length) + m : pad(s, n);
}

function pad(s: string, n: number, right = false): string {
  if (s.length > n) s = s.slice(0, n - 1) + '…';
  return right ? s.padStart(n) : s.padEnd(n);
}

/** A short name: the file's base name (the session id for Claude Code), `↳ agent <id>` for a subagent in its parent's file. */
export function sessionName(r: SessionReport): string {
  // A Cline task is named by its folder (every task's history has the same file name).
  if (basename(r.file) === CLINE_HISTORY) return `cline ${parentName(r.file)}`;
  const b = basename(r.file).replace(/\.jsonl$/, '');
  if (r.sidechain && !b.startsWith('agent-')) return `↳ agent ${r.agentId ?? ''} of ${b.slice(0, 8)}`;
  return b;
}

/** The model column: the main model, and how many others the session also called. */
export function modelCell(r: SessionReport): string {
  const n = r.otherModels?.length ?? 0;
  return `${r.model.replace(/^claude-/, '')}${n ? ` +${n}` : ''}`;
}

/** The fit column: `none` vs the bill, or why there is none. */
export function fitCell(r: SessionReport): string {
  if (r.fit.status === 'loose') return `loose ${percent(r.fit.error)}`;
  if (r.fit.status !== 'anchored') return r.fit.status;
  return percent(r.fit.error);
}

/** Width of the fit column (`loose +12.3%`). */
const FIT_WIDTH = 13;

/** Saving of a strategy against `none` (positive = cheaper). */
function saving(r: { inputCost: number } | undefined, none: { inputCost: number } | undefined): string {
  if (!r || !none || none.inputCost === 0) return '—';
  return percent(1 - r.inputCost / none.inputCost, false);
}

/** Sessions costliest first (recorded input-side cost), for reading; the JSON keeps counting order. */
export function byCost(rows: readonly SessionReport[]): SessionReport[] {
  return [...rows].sort((a, b) => b.recorded.inputCost - a.recorded.inputCost);
}

/** The report as terminal text; `exists` tells a missing searched path from an empty one. */
export function formatReport(rep: Report, exists?: (path: string) => boolean): string {
  if (!rep.sessions.length) {
    const skipped = skippedSummary(rep.skipped);
    const extra = [skipped.counted, ...skipped.listed.map((s) => `  ${oneLine(s.file)}: ${oneLine(s.reason)}`)].filter((x): x is string => !!x);
    return [...nothingFoundLines(rep, exists), ...(extra.length ? ['', ...extra] : [])].join('\n');
  }
  const others = rep.strategies.filter((s) => s !== 'none');
  const head = [pad('session', NAME_WIDTH), pad('model', 18), pad('calls', 6, true), pad('recorded in', 12, true), pad('out', 9, true), pad('none', 10, true), pad('fit', FIT_WIDTH, true)];
  for (const s of others) head.push(pad(s, 10, true), pad('saving', 7, true), pad('kept', 6, true));
  const lines: string[] = [];
  lines.push(`trimline report: ${rep.totals.sessions} session(s), ${rep.totals.calls} billed call(s)`);
  lines.push(rep.note);
  lines.push('"recorded in" = input-side cost from the transcript\'s usage (uncached + cache writes 5m/1h + reads); "fit" = simulated none / recorded − 1 (anchored within ±5%, else "loose"); "saving" = against simulated none; "kept" = tokens sent / none\'s.');
  lines.push('');
  lines.push(head.join(' '));
  for (const r of byCost(rep.sessions)) {
    const none = r.strategies.none;
    const row = [pad(sessionName(r), NAME_WIDTH), padEnd(modelCell(r), 18), pad(String(r.calls), 6, true), pad(dollars(r.recorded.inputCost), 12, true), pad(dollars(r.recorded.outputCost), 9, true), pad(none ? dollars(none.inputCost) : '—', 10, true), pad(fitCell(r), FIT_WIDTH, true)];
    for (const s of others) {
      const v = r.strategies[s];
      row.push(pad(v ? dollars(v.inputCost) : '—', 10, true), pad(saving(v, none), 7, true), pad(v ? percent(v.retention, false) : '—', 6, true));
    }
    lines.push(row.join(' '));
  }
  const t = rep.totals;
  const tn = t.strategies.none;
  const total = [pad('TOTAL', NAME_WIDTH), pad('', 18), pad(String(t.calls), 6, true), pad(dollars(t.recorded.inputCost), 12, true), pad(dollars(t.recorded.outputCost), 9, true), pad(tn ? dollars(tn.inputCost) : '—', 10, true), pad(t.recorded.inputCost && tn ? percent(tn.inputCost / t.recorded.inputCost - 1) : '—', FIT_WIDTH, true)];
  for (const s of others) {
    const v = t.strategies[s];
    total.push(pad(v ? dollars(v.inputCost) : '—', 10, true), pad(saving(v, tn), 7, true), pad(v ? percent(v.retention, false) : '—', 6, true));
  }
  lines.push(total.join(' '));
  lines.push(`Recorded spend: ${dollars(t.recorded.inputCost + t.recorded.outputCost)} (input side ${dollars(t.recorded.inputCost)}, output ${dollars(t.recorded.outputCost)}; ${t.recorded.cacheWrite1hTokens.toLocaleString('en-US')} of ${t.recorded.cacheWriteTokens.toLocaleString('en-US')} cache-write tokens were 1-hour writes).`);

  if (t.offenders.length) {
    lines.push('', 'Top offenders (tool results that cost the most over all the calls that re-sent them, in `none`):');
    for (const o of t.offenders) {
      lines.push(`  ${pad(dollars(o.dollars), 9, true)}  ${pad(o.tool, 10)} ${pad(oneLine(o.target) || '—', 60)} ${o.tokens.toLocaleString('en-US')} tok × ${o.timesResent} re-sent  (${basename(o.file) === CLINE_HISTORY ? `cline ${parentName(o.file)}` : basename(o.file).slice(0, 8)})`);
    }
  }
  const noted = rep.sessions.filter((r) => r.fit.notes.length);
  if (noted.length) {
    lines.push('', 'Fit notes (what the bill model followed, and what it could not):');
    for (const r of noted) for (const n of r.fit.notes.slice(0, NOTES_SHOWN)) lines.push(`  ${sessionName(r)}: ${oneLine(n)}`);
  }
  const dearer = dearerLines(rep, sessionName);
  if (dearer.length) lines.push('', ...dearer);
  const skipped = skippedSummary(rep.skipped);
  if (skipped.listed.length || skipped.counted) lines.push('');
  if (skipped.counted) lines.push(skipped.counted);
  if (skipped.listed.length) {
    lines.push(`Skipped or partly read (${skipped.listed.length}):`);
    for (const s of skipped.listed) lines.push(`  ${oneLine(s.file)}: ${oneLine(s.reason)}`);
  }
  lines.push('', ...headlineLines(rep), '', ...nextStepLines(rep));
  return lines.join('\n');
}
