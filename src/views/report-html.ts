/**
 * The report as one self-contained HTML file: inline CSS and SVG charts, no
 * script, no external request (the CSP meta tag forbids any).
 * Charts: recorded input-side spend against each strategy, per session and per week.
 */
import { bidiVisible } from '../protocol/safe-text';
import { byCost, sessionName, dollars, percent, fitCell } from './report-text';
import { dearerLines, headlineLines, nextStepLines, oneLine, skippedSummary } from './report-summary';
import { dateFormat, localDate, localTimeZone, periodCells, periodOf } from './report-periods';
import {
  foldTrivial,
  GLOSSARY,
  MISSES_LEAD,
  missTotals,
  projectOf,
  rowDate,
  spendOf,
  TRIVIAL_CALLS,
} from './report-rows';
import type { Report, SessionReport } from '../protocol/report-types';

/** Sessions charted (the costliest); the table lists them all. */
const CHART_SESSIONS = 20;
const BAR_HEIGHT = 9;
const GROUP_GAP = 8;
const LABEL_WIDTH = 220;
const CHART_WIDTH = 760;
/** Series colors: recorded first, then strategies in order (colorblind-safe Okabe–Ito palette). */
const COLORS: readonly string[] = ['#555555', '#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00'];

/**
 * Text for the page: markup escaped, and bidi controls shown as `\u{202e}` rather than obeyed (protocol/safe-text.ts).
 */
export function escapeHtml(s: string): string {
  return bidiVisible(s).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

/** Monday of the week of a timestamp in a time zone (UTC when none is named), as YYYY-MM-DD. */
export function weekOf(ts: string | undefined, tz = 'UTC'): string {
  const t = ts ? Date.parse(ts) : NaN;
  return Number.isFinite(t) ? periodOf(localDate(t, dateFormat(tz)), 'week') : 'undated';
}

/** A UUID-named session by its first 8 characters (as Claude Code's resume list shows them); other names up to 30. */
export function shortName(r: SessionReport): string {
  const n = sessionName(r);
  return /^[0-9a-f]{8}-[0-9a-f-]{27}$/i.test(n) ? n.slice(0, 8) : n.slice(0, 30);
}

export interface ChartGroup {
  readonly label: string;
  /** Recorded input-side cost, then each strategy's. */
  readonly values: readonly number[];
}

/** Groups of horizontal bars as SVG. */
export function barChart(title: string, series: readonly string[], groups: readonly ChartGroup[]): string {
  const max = Math.max(1e-9, ...groups.flatMap((g) => g.values));
  const groupH = series.length * BAR_HEIGHT + GROUP_GAP;
  const legendH = 24;
  const height = legendH + groups.length * groupH + 10;
  const scale = (CHART_WIDTH - LABEL_WIDTH - 80) / max;
  const parts: string[] = [];
  series.forEach((s, i) => {
    parts.push(
      `<rect x="${LABEL_WIDTH + i * 120}" y="6" width="10" height="10" ` +
        `fill="${COLORS[i % COLORS.length]}"/><text x="${LABEL_WIDTH + i * 120 + 14}" y="15">${escapeHtml(s)}</text>`,
    );
  });
  groups.forEach((g, gi) => {
    const y0 = legendH + gi * groupH;
    parts.push(
      `<text x="${LABEL_WIDTH - 6}" y="${y0 + (series.length * BAR_HEIGHT) / 2 + 4}" ` +
        `text-anchor="end">${escapeHtml(g.label)}</text>`,
    );
    g.values.forEach((v, i) => {
      const w = Math.max(0.5, v * scale);
      const y = y0 + i * BAR_HEIGHT;
      const title = escapeHtml(`${g.label} · ${series[i]}: ${dollars(v)}`);
      parts.push(
        `<rect x="${LABEL_WIDTH}" y="${y}" width="${w.toFixed(1)}" height="${BAR_HEIGHT - 1}" ` +
          `fill="${COLORS[i % COLORS.length]}"><title>${title}</title></rect>`,
      );
      parts.push(
        `<text x="${(LABEL_WIDTH + w + 4).toFixed(1)}" y="${y + BAR_HEIGHT - 1}" class="v">${dollars(v)}</text>`,
      );
    });
  });
  return (
    `<figure><figcaption>${escapeHtml(title)}</figcaption><svg role="img" aria-label="${escapeHtml(title)}" ` +
    `width="${CHART_WIDTH}" height="${height}" viewBox="0 0 ${CHART_WIDTH} ${height}">${parts.join('')}</svg></figure>`
  );
}

/** Chart groups per session (costliest first) and per week. */
export function chartGroups(
  rep: Report,
  tz?: string,
): { sessions: ChartGroup[]; weeks: ChartGroup[]; series: string[] } {
  const strategies = rep.strategies;
  const series = ['recorded', ...strategies];
  const valuesOf = (r: SessionReport): number[] => [
    r.recorded.inputCost,
    ...strategies.map((s) => r.strategies[s]?.inputCost ?? 0),
  ];
  const anchored = rep.sessions.filter((r) => r.fit.status === 'anchored');
  const sessions = [...anchored]
    .sort((a, b) => b.recorded.inputCost - a.recorded.inputCost)
    .slice(0, CHART_SESSIONS)
    .map((r) => ({ label: shortName(r), values: valuesOf(r) }));
  const weeks = new Map<string, number[]>();
  for (const r of anchored) {
    const w = weekOf(r.firstTimestamp, tz);
    const acc = weeks.get(w) ?? series.map(() => 0);
    valuesOf(r).forEach((v, i) => (acc[i] += v));
    weeks.set(w, acc);
  }
  return {
    sessions,
    weeks: [...weeks.entries()]
      .sort((a, b) => (a[0] < b[0] ? -1 : 1))
      .map(([label, values]) => ({ label: `week of ${label}`, values })),
    series,
  };
}

const CSS = `body{font:14px system-ui,sans-serif;margin:24px;color:#222;max-width:1300px}
table{border-collapse:collapse;margin:12px 0}td,th{padding:3px 8px;border-bottom:1px solid #ddd;text-align:right}
td:first-child,th:first-child,td.l,th.l{text-align:left}tr.total td{font-weight:600;border-top:2px solid #999}\
td.loose{color:#b00}svg text{font:11px system-ui,sans-serif;fill:#222}svg text.v{fill:#555}
table.sessions td{white-space:nowrap}span.id{display:block;color:#777;font-size:11px}
tr.folded td{color:#555;font-style:italic}details{margin:8px 0}
figure{margin:16px 0}figcaption{font-weight:600;margin-bottom:4px}.note{color:#555;max-width:900px}`;

/** Saving of a strategy against `none` (positive: cheaper). */
function savingCell(v: { inputCost: number } | undefined, none: { inputCost: number } | undefined): string {
  return v && none && none.inputCost ? percent(1 - v.inputCost / none.inputCost, false) : '—';
}

function td(html: string, cls = ''): string {
  return `<td${cls ? ` class="${cls}"` : ''}>${html}</td>`;
}

/** Header cells, the first `left` of them left-aligned. */
function ths(names: readonly string[], left: number): string {
  return `<tr>${names.map((n, i) => `<th${i < left ? ' class="l"' : ''}>${escapeHtml(n)}</th>`).join('')}</tr>`;
}

/** A strategy's cells beside `none`: its input-side cost, its saving, the tokens it kept. */
type Priced = { inputCost: number; retention: number } | undefined;

function strategyTds(v: Priced, none: { inputCost: number } | undefined): string {
  return td(v ? dollars(v.inputCost) : '—') + td(savingCell(v, none)) + td(v ? percent(v.retention, false) : '—');
}

/** One session's cells: full id and models (never cut here), local date, project, spend and each strategy. */
function sessionRow(r: SessionReport, others: readonly string[], fmt: Intl.DateTimeFormat): string {
  const none = r.strategies.none;
  const id = r.sessionId && r.sessionId !== sessionName(r) ? ` <span class="id">${escapeHtml(r.sessionId)}</span>` : '';
  const models = [r.model, ...(r.otherModels ?? [])].join(', ');
  const named = td(escapeHtml(rowDate(r, fmt)), 'l') + td(escapeHtml(projectOf(r)), 'l');
  const session = td(escapeHtml(sessionName(r)) + id, 'l') + td(escapeHtml(models), 'l');
  const priced = td(String(r.calls)) + td(dollars(spendOf(r))) + td(none ? dollars(none.inputCost) : '—');
  const fit = td(escapeHtml(fitCell(r)), r.fit.status === 'anchored' ? '' : 'loose');
  return `<tr>${named}${session}${priced}${fit}${others.map((s) => strategyTds(r.strategies[s], none)).join('')}</tr>`;
}

function sessionRows(rep: Report, tz: string): string {
  const others = rep.strategies.filter((s) => s !== 'none');
  const fmt = dateFormat(tz);
  const columns = ['date', 'project', 'session', 'model', 'calls', 'spend', 'none', 'fit'];
  const head = ths([...columns, ...others.flatMap((s) => [s, 'saving', 'kept'])], 4);
  const { shown, folded } = foldTrivial(byCost(rep.sessions));
  const rows = shown.map((r) => sessionRow(r, others, fmt));
  const t = rep.totals;
  const tn = t.strategies.none;
  const fit = tn && t.recorded.inputCost ? percent(tn.inputCost / t.recorded.inputCost - 1) : '—';
  const spend = dollars(t.recorded.inputCost + t.recorded.outputCost);
  const priced = td(String(t.calls)) + td(spend) + td(tn ? dollars(tn.inputCost) : '—') + td(fit);
  const strategies = others.map((s) => strategyTds(t.strategies[s], tn)).join('');
  const total = `<tr class="total">${td('TOTAL')}${td('')}${td('')}${td('', 'l')}${priced}${strategies}</tr>`;
  const few = `${folded.sessions} session(s) with fewer than ${TRIVIAL_CALLS} calls`;
  const foldedRow = folded.sessions
    ? `<tr class="folded"><td colspan="4" class="l">+ ${few} (listed below)</td>${td(String(folded.calls))}` +
      `${td(dollars(folded.spend))}</tr>`
    : '';
  const trivial = rep.sessions.filter((r) => r.calls < TRIVIAL_CALLS).map((r) => sessionRow(r, others, fmt));
  const list = `<table class="sessions">${head}${trivial.join('')}</table>`;
  const foldedList = trivial.length ? `<details><summary>${few}</summary>${list}</details>` : '';
  return `<table class="sessions">${head}${rows.join('')}${foldedRow}${total}</table>${foldedList}`;
}

/** `--by`: the period table. */
function periodTable(rep: Report): string {
  if (!rep.periods) return '';
  const [head, ...rows] = periodCells(rep.periods, rep.strategies);
  const last = rows.length - 1;
  const cells = (r: readonly string[]): string => r.map((c, j) => td(escapeHtml(c), j ? '' : 'l')).join('');
  const body = rows.map((r, i) => `<tr${i === last ? ' class="total"' : ''}>${cells(r)}</tr>`);
  const by = escapeHtml(rep.periods.by);
  const spread = `${by}s by their recorded input-side cost`;
  const note = `<p class="note">A strategy's cost is spread over its session's ${spread}.</p>`;
  const title = `<h2>Per ${by} (${escapeHtml(rep.periods.timezone)})</h2>`;
  return `${title}${note}<table>${ths(head, 1)}${body.join('')}</table>`;
}

/** "Why your cache missed": each cause with its dollars. */
function missTable(rep: Report): string {
  const misses = missTotals(rep.sessions);
  if (!misses.length) return '';
  const row = (m: (typeof misses)[number]): string =>
    td(dollars(m.dollars)) + td(escapeHtml(m.cause), 'l') + td(String(m.calls)) + td(m.tokens.toLocaleString('en-US'));
  const rows = misses.map((m) => `<tr>${row(m)}</tr>`);
  const lead = MISSES_LEAD.replace(/^Why your cache missed \(a (.*)\):$/, 'A $1.');
  const head = '<tr><th>dollars</th><th class="l">cause</th><th>calls</th><th>tokens</th></tr>';
  return `<h2>Why your cache missed</h2><p class="note">${escapeHtml(lead)}</p><table>${head}${rows.join('')}</table>`;
}

function offenderRows(rep: Report): string {
  if (!rep.totals.offenders.length) return '';
  const rows = rep.totals.offenders.map(
    (o) =>
      `<tr><td>${dollars(o.dollars)}</td><td class="l">${escapeHtml(o.tool)}</td>` +
      `<td class="l">${escapeHtml(oneLine(o.target))}</td>` +
      `<td>${o.tokens.toLocaleString('en-US')}</td><td>${o.timesResent}</td></tr>`,
  );
  return (
    '<h2>Top offenders</h2><table><tr><th>dollars</th><th class="l">tool</th><th class="l">path or ' +
    `command</th><th>tokens</th><th>times re-sent</th></tr>${rows.join('')}</table>`
  );
}

function fitNoteList(rep: Report): string {
  const items = rep.sessions.flatMap((r) =>
    r.fit.notes.map((n) => `<li>${escapeHtml(sessionName(r))}: ${escapeHtml(oneLine(n))}</li>`),
  );
  const dearer = dearerLines(rep, sessionName)
    .slice(1)
    .map((l) => `<li>${escapeHtml(l.trim())}</li>`);
  return (
    (items.length ? `<h2>Fit notes</h2><ul>${items.join('')}</ul>` : '') +
    (dearer.length ? `<h2>Costs more than none</h2><ul>${dearer.join('')}</ul>` : '')
  );
}

function skippedList(rep: Report): string {
  const s = skippedSummary(rep.skipped);
  if (!s.counted && !s.listed.length) return '';
  const items = s.listed.map((x) => `<li>${escapeHtml(oneLine(x.file))}: ${escapeHtml(oneLine(x.reason))}</li>`);
  const counted = s.counted ? `<p>${escapeHtml(s.counted)}</p>` : '';
  return `<h2>Skipped</h2>${counted}${items.length ? `<ul>${items.join('')}</ul>` : ''}`;
}

/** The whole report page; dates in `o.timezone` (else the periods' zone, else the system's). */
export function reportHtml(rep: Report, o: { timezone?: string } = {}): string {
  const tz = o.timezone ?? rep.periods?.timezone ?? localTimeZone();
  const g = chartGroups(rep, tz);
  const t = rep.totals;
  const summary =
    `${t.sessions} session(s), ${t.calls} billed call(s); recorded spend ` +
    `${dollars(t.recorded.inputCost + t.recorded.outputCost)} (input side ${dollars(t.recorded.inputCost)}).`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>Trimline report</title><style>${CSS}</style></head><body>
<h1>What would trimming have saved?</h1><p>${escapeHtml(summary)}</p>
<p class="note">${escapeHtml(GLOSSARY)} Dates in ${escapeHtml(tz)}.</p>
${headlineLines(rep)
  .map((l) => `<p>${escapeHtml(l.trim())}</p>`)
  .join('')}
<p><strong>${escapeHtml(nextStepLines(rep).join(' '))}</strong></p><p class="note">${escapeHtml(rep.note)}</p>
${barChart('Input-side cost per session: recorded vs each strategy', g.series, g.sessions)}
${barChart('Input-side cost per week', g.series, g.weeks)}
<h2>Sessions</h2>${sessionRows(rep, tz)}
${periodTable(rep)}${missTable(rep)}${offenderRows(rep)}${fitNoteList(rep)}${skippedList(rep)}
</body></html>\n`;
}
