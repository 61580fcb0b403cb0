/** The report as a terminal table: per session, totals, top offenders, fit notes, skipped files. */
import {
  dearerLines,
  headlineLines,
  nextStepLines,
  nothingFoundLines,
  oneLine,
  skippedSummary,
} from './report-summary';
import { dateFormat, localTimeZone, periodCells } from './report-periods';
import {
  foldTrivial,
  GLOSSARY,
  MISSES_LEAD,
  missTotals,
  projectOf,
  rowDate,
  shortNames,
  spendOf,
  TRIVIAL_CALLS,
} from './report-rows';
import type { Report, SessionReport } from '../protocol/report-types';

/** The last path segment (pure: this file is also bundled into the report webview). */
export function basename(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
}

/**
 * Cline's history file name (CLINE_FILE_NAME in import/cline.ts; not imported: this file is bundled into the webview).
 */
const CLINE_HISTORY = 'api_conversation_history.json';

/** The path without its last segment. */
function parentName(path: string): string {
  const dir = path.slice(0, Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')));
  return basename(dir);
}

/** Fit notes printed per session (the JSON has them all). */
const NOTES_SHOWN = 6;
/** Columns of the project name; longer names are cut in the middle. */
const PROJECT_WIDTH = 20;
/** Columns of the report's prose lines (the note and the glossary). */
const PROSE_WIDTH = 118;

export function dollars(n: number): string {
  if (n === 0) return '$0';
  return n < 0.01 ? `$${n.toFixed(4)}` : n < 100 ? `$${n.toFixed(3)}` : `$${Math.round(n).toLocaleString('en-US')}`;
}

export function percent(x: number | null | undefined, signed = true): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '—';
  const v = (x * 100).toFixed(1);
  return signed && x >= 0 ? `+${v}%` : `${v}%`;
}

function pad(s: string, n: number, right = false): string {
  if (s.length > n) s = s.slice(0, n - 1) + '…';
  return right ? s.padStart(n) : s.padEnd(n);
}

/**
 * A short name: the file's base name (the session id for Claude Code), `↳ agent <id>` for a subagent in its parent's
 * file.
 */
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

/** Saving of a strategy against `none` (positive = cheaper). */
function saving(r: { inputCost: number } | undefined, none: { inputCost: number } | undefined): string {
  if (!r || !none || none.inputCost === 0) return '—';
  return percent(1 - r.inputCost / none.inputCost, false);
}

/** Sessions costliest first (recorded input-side cost), for reading; the JSON keeps counting order. */
export function byCost(rows: readonly SessionReport[]): SessionReport[] {
  return [...rows].sort((a, b) => b.recorded.inputCost - a.recorded.inputCost);
}

/** Rows of cells as aligned text: the first column and those in `left` left-aligned, the others right-aligned. */
export function alignRows(rows: readonly (readonly string[])[], left: ReadonlySet<number> = new Set([0])): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, [...c].length)));
  const cell = (c: string, i: number): string => {
    const n = widths[i] + c.length - [...c].length;
    return left.has(i) ? c.padEnd(n) : c.padStart(n);
  };
  return rows.map((r) => r.map(cell).join('  ').trimEnd());
}

/** Prose wrapped at word boundaries to `width` columns. */
export function wrap(text: string, width = PROSE_WIDTH): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return line ? [...out, line] : out;
}

/** A name cut in the middle to `n` columns (the start and the end stay readable). */
function middleCut(s: string, n: number): string {
  if (s.length <= n) return s;
  const head = Math.ceil((n - 1) / 2);
  return `${s.slice(0, head)}…${s.slice(s.length - (n - 1 - head))}`;
}

export interface TextOptions {
  /** IANA zone for the dates; the periods' zone, else the system's. */
  readonly timezone?: string;
}

/** Cells of a strategy beside `none`: its input-side cost, its saving, the tokens it kept. */
function strategyCells(
  v: { inputCost: number; retention: number } | undefined,
  none: { inputCost: number } | undefined,
): string[] {
  return [v ? dollars(v.inputCost) : '—', saving(v, none), v ? percent(v.retention, false) : '—'];
}

/**
 * The session table: per row its date, project, short id, model, calls, spend, fit and each strategy; trivial rows
 * folded.
 */
export function sessionTableLines(rep: Report, tz: string): string[] {
  const others = rep.strategies.filter((s) => s !== 'none');
  const fmt = dateFormat(tz);
  const { shown, folded } = foldTrivial(byCost(rep.sessions));
  const names = shortNames(rep.sessions, sessionName);
  const head = ['date', 'project', 'session', 'model', 'calls', 'spend', 'none', 'fit'];
  for (const s of others) head.push(s, 'saving', 'kept');
  const rows: string[][] = [head];
  for (const r of shown) {
    const none = r.strategies.none;
    const named = [
      rowDate(r, fmt),
      middleCut(projectOf(r), PROJECT_WIDTH),
      names.get(r) ?? sessionName(r),
      modelCell(r),
    ];
    const priced = [String(r.calls), dollars(spendOf(r)), none ? dollars(none.inputCost) : '—', fitCell(r)];
    rows.push([...named, ...priced, ...others.flatMap((s) => strategyCells(r.strategies[s], none))]);
  }
  const t = rep.totals;
  const tn = t.strategies.none;
  const fit = t.recorded.inputCost && tn ? percent(tn.inputCost / t.recorded.inputCost - 1) : '—';
  const spend = dollars(t.recorded.inputCost + t.recorded.outputCost);
  const total = ['TOTAL', '', '', '', String(t.calls), spend, tn ? dollars(tn.inputCost) : '—', fit];
  total.push(...others.flatMap((s) => strategyCells(t.strategies[s], tn)));
  const lines = alignRows([...rows, total], new Set([0, 1, 2, 3]));
  if (folded.sessions) {
    const few = `+ ${folded.sessions} session(s) with fewer than ${TRIVIAL_CALLS} calls`;
    lines.splice(
      lines.length - 1,
      0,
      `${few}: ${folded.calls} call(s), ${dollars(folded.spend)} spend (in the JSON and the HTML)`,
    );
  }
  return lines;
}

/** "Why your cache missed": each cause with its dollars, over all sessions. */
export function missLines(rep: Report): string[] {
  const misses = missTotals(rep.sessions);
  if (!misses.length) return [];
  const tok = (n: number): string => `${n.toLocaleString('en-US')} tok`;
  const rows = misses.map((m) => [dollars(m.dollars), m.cause, `${m.calls} call(s)`, tok(m.tokens)]);
  return [MISSES_LEAD, ...alignRows(rows, new Set([1])).map((l) => `  ${l}`)];
}

/** `--by`: one line per period (totals and each strategy's saving against none). */
export function periodLines(rep: Report): string[] {
  if (!rep.periods) return [];
  const p = rep.periods;
  const spread = `a strategy's cost is spread over its session's ${p.by}s by their recorded input-side cost`;
  const note = `Per ${p.by} in ${p.timezone} (${spread}):`;
  return [note, ...alignRows(periodCells(p, rep.strategies)).map((l) => `  ${l}`)];
}

/** The report as terminal text; `exists` tells a missing searched path from an empty one. */
export function formatReport(rep: Report, exists?: (path: string) => boolean, o: TextOptions = {}): string {
  if (!rep.sessions.length) {
    const skipped = skippedSummary(rep.skipped);
    const extra = [skipped.counted, ...skipped.listed.map((s) => `  ${oneLine(s.file)}: ${oneLine(s.reason)}`)].filter(
      (x): x is string => !!x,
    );
    return [...nothingFoundLines(rep, exists), ...(extra.length ? ['', ...extra] : [])].join('\n');
  }
  const tz = o.timezone ?? rep.periods?.timezone ?? localTimeZone();
  const lines: string[] = [];
  const t = rep.totals;
  lines.push(`trimline report: ${t.sessions} session(s), ${t.calls} billed call(s); dates in ${tz}`);
  // The glossary first: the note and every section after it use its terms.
  lines.push(...wrap(GLOSSARY), ...wrap(rep.note));
  lines.push('');
  lines.push(...sessionTableLines(rep, tz));
  lines.push(
    `Recorded spend: ${dollars(t.recorded.inputCost + t.recorded.outputCost)} (input side ` +
      `${dollars(t.recorded.inputCost)}, output ${dollars(t.recorded.outputCost)}; ` +
      `${t.recorded.cacheWrite1hTokens.toLocaleString('en-US')} of ` +
      `${t.recorded.cacheWriteTokens.toLocaleString('en-US')} cache-write tokens were 1-hour writes).`,
  );
  const periods = periodLines(rep);
  if (periods.length) lines.push('', ...periods);
  const misses = missLines(rep);
  if (misses.length) lines.push('', ...misses);

  const names = shortNames(rep.sessions, sessionName);
  const offenderSession = (file: string): string => {
    const r = rep.sessions.find((x) => x.file === file && !x.sidechain);
    if (r) return names.get(r) ?? sessionName(r);
    return basename(file) === CLINE_HISTORY ? `cline ${parentName(file)}` : basename(file);
  };
  if (t.offenders.length) {
    lines.push('', 'Top offenders (tool results that cost the most over all the calls that re-sent them, in `none`):');
    for (const o of t.offenders) {
      lines.push(
        `  ${pad(dollars(o.dollars), 9, true)}  ${pad(o.tool, 10)} ${pad(oneLine(o.target) || '—', 60)} ` +
          `${o.tokens.toLocaleString('en-US')} tok × ${o.timesResent} re-sent  (${offenderSession(o.file)})`,
      );
    }
  }
  const noted = rep.sessions.filter((r) => r.fit.notes.length);
  if (noted.length) {
    lines.push('', 'Fit notes (what the bill model followed, and what it could not):');
    for (const r of noted)
      for (const n of r.fit.notes.slice(0, NOTES_SHOWN)) lines.push(`  ${sessionName(r)}: ${oneLine(n)}`);
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
