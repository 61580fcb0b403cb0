/**
 * The report view: totals, recorded spend against each strategy per session
 * and per week, the sessions with their date and project (click one to open it
 * in the inspector), the cache misses by cause and the top offenders. Content is
 * set through the DOM only (no markup), charts are SVG elements; the one message in is a typed `report` snapshot. A
 * session
 * opens in the inspector with the selector's strategy (its name) or with the
 * strategy whose cost cell was clicked.
 */
import { parseReportHostMessage, type ReportWebviewMessage } from '../../src/protocol/report';
import type { Report, SessionReport } from '../../src/protocol/report-types';
import { chartGroups, shortName, type ChartGroup } from '../../src/views/report-html';
import { byCost, dollars, fitCell, percent, sessionName } from '../../src/views/report-text';
import { headlineLines, nextStepLines, oneLine, skippedSummary } from '../../src/views/report-summary';
import { dateFormat, localTimeZone } from '../../src/views/report-periods';
import { GLOSSARY, MISSES_LEAD, missTotals, projectOf, rowDate } from '../../src/views/report-rows';
import { h, replaceChildren, svg } from '../shared/dom';

interface VsCodeApi {
  postMessage(message: ReportWebviewMessage): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const BAR = 9;
const GAP = 8;
const LABEL = 200;
const WIDTH = 760;
/** Series classes: recorded first, then strategies in order (colors in media/report.css). */
const SERIES_CLASSES = 5;

const vscode = acquireVsCodeApi();
const app = document.getElementById('app');
if (!app) throw new Error('report: #app missing');
let strategy = 'default';

function chart(title: string, series: readonly string[], groups: readonly ChartGroup[]): HTMLElement {
  const max = Math.max(1e-9, ...groups.flatMap((g) => g.values));
  const groupH = series.length * BAR + GAP;
  const height = 24 + groups.length * groupH + 8;
  const scale = (WIDTH - LABEL - 80) / max;
  const root = svg('svg', {
    width: WIDTH,
    height,
    viewBox: `0 0 ${WIDTH} ${height}`,
    role: 'img',
    'aria-label': title,
  });
  series.forEach((s, i) => {
    root.append(
      svg('rect', { x: LABEL + i * 120, y: 6, width: 10, height: 10, class: `s${i % SERIES_CLASSES}` }),
      svg('text', { x: LABEL + i * 120 + 14, y: 15 }, s),
    );
  });
  groups.forEach((g, gi) => {
    const y0 = 24 + gi * groupH;
    root.append(svg('text', { x: LABEL - 6, y: y0 + (series.length * BAR) / 2 + 4, 'text-anchor': 'end' }, g.label));
    g.values.forEach((v, i) => {
      const w = Math.max(0.5, v * scale);
      const y = y0 + i * BAR;
      root.append(
        svg(
          'rect',
          { x: LABEL, y, width: w.toFixed(1), height: BAR - 1, class: `s${i % SERIES_CLASSES}` },
          svg('title', {}, `${g.label} · ${series[i]}: ${dollars(v)}`),
        ),
      );
      root.append(svg('text', { x: (LABEL + w + 4).toFixed(1), y: y + BAR - 1, class: 'v' }, dollars(v)));
    });
  });
  return h('figure', {}, h('figcaption', {}, title), root);
}

function openSession(r: SessionReport, with_: string): void {
  vscode.postMessage({ type: 'openSession', file: r.file, strategy: with_ });
}

/** A strategy's cost in a session's row: a button that opens the session with that strategy (keyboard: Tab, Enter). */
function strategyCell(r: SessionReport, s: string): HTMLElement {
  const v = r.strategies[s];
  if (!v) return h('td', {}, '—');
  const open = h(
    'button',
    {
      class: 'link strategy',
      'data-strategy': s,
      title: `Open ${sessionName(r)} in the inspector with ${s}`,
      'aria-label': `${dollars(v.inputCost)}: open ${sessionName(r)} in the inspector with ${s}`,
    },
    dollars(v.inputCost),
  );
  open.addEventListener('click', () => openSession(r, s));
  return h('td', {}, open);
}

function sessionsTable(rep: Report): HTMLElement {
  const others = rep.strategies.filter((s) => s !== 'none');
  const fmt = dateFormat(localTimeZone());
  const named = [h('th', { class: 'l' }, 'date'), h('th', { class: 'l' }, 'project')];
  const head = h(
    'tr',
    {},
    ...named,
    h('th', {}, 'session'),
    h('th', { class: 'l' }, 'model'),
    h('th', {}, 'calls'),
    h('th', {}, 'recorded input'),
    h('th', {}, 'output'),
    h('th', {}, 'none'),
    h('th', {}, 'fit'),
    ...others.flatMap((s) => [h('th', {}, s), h('th', {}, 'saving')]),
  );
  const rows = byCost(rep.sessions).map((r) => {
    const none = r.strategies.none;
    const open = h(
      'button',
      { class: 'link', title: `Open ${r.file} in the inspector with the strategy chosen above` },
      sessionName(r),
    );
    open.addEventListener('click', () => openSession(r, strategy));
    return h(
      'tr',
      {},
      h('td', { class: 'l' }, rowDate(r, fmt)),
      h('td', { class: 'l' }, projectOf(r)),
      h('td', { class: 'l' }, open),
      h('td', { class: 'l' }, r.model),
      h('td', {}, String(r.calls)),
      h('td', {}, dollars(r.recorded.inputCost)),
      h('td', {}, dollars(r.recorded.outputCost)),
      strategyCell(r, 'none'),
      h('td', { title: r.fit.notes.join('\n') }, fitCell(r)),
      ...others.flatMap((s) => {
        const v = r.strategies[s];
        return [
          strategyCell(r, s),
          h('td', {}, v && none && none.inputCost ? percent(1 - v.inputCost / none.inputCost, false) : '—'),
        ];
      }),
    );
  });
  return h('table', { class: 'sessions' }, head, ...rows);
}

/** "Why your cache missed": each cause with its dollars, over all sessions. */
function missesTable(rep: Report): HTMLElement | undefined {
  const misses = missTotals(rep.sessions);
  if (!misses.length) return undefined;
  const head = h(
    'tr',
    {},
    h('th', {}, 'dollars'),
    h('th', { class: 'l' }, 'cause'),
    h('th', {}, 'calls'),
    h('th', {}, 'tokens'),
  );
  const row = (m: (typeof misses)[number]): HTMLElement => {
    const counts = [h('td', {}, String(m.calls)), h('td', {}, m.tokens.toLocaleString('en-US'))];
    return h('tr', {}, h('td', {}, dollars(m.dollars)), h('td', { class: 'l' }, m.cause), ...counts);
  };
  const lead = MISSES_LEAD.replace(/^Why your cache missed \(a (.*)\):$/, 'A $1.');
  const table = h('table', { class: 'misses' }, head, ...misses.map(row));
  return h('section', {}, h('h2', {}, 'Why your cache missed'), h('p', { class: 'note' }, lead), table);
}

function offendersTable(rep: Report): HTMLElement | undefined {
  if (!rep.totals.offenders.length) return undefined;
  const head = h(
    'tr',
    {},
    h('th', {}, 'dollars'),
    h('th', { class: 'l' }, 'tool'),
    h('th', { class: 'l' }, 'path or command'),
    h('th', {}, 'tokens'),
    h('th', {}, 'times re-sent'),
    h('th', { class: 'l' }, 'session'),
  );
  const rows = rep.totals.offenders.map((o) =>
    h(
      'tr',
      {},
      h('td', {}, dollars(o.dollars)),
      h('td', { class: 'l' }, o.tool),
      h('td', { class: 'l' }, oneLine(o.target)),
      h('td', {}, o.tokens.toLocaleString('en-US')),
      h('td', {}, String(o.timesResent)),
      h('td', { class: 'l' }, shortName({ file: o.file, sidechain: false } as SessionReport)),
    ),
  );
  return h('section', {}, h('h2', {}, 'Top offenders'), h('table', {}, head, ...rows));
}

function render(rep: Report): void {
  const t = rep.totals;
  const g = chartGroups(rep, localTimeZone());
  if (!rep.strategies.includes(strategy))
    strategy = rep.strategies.find((s) => s !== 'none') ?? rep.strategies[0] ?? 'none';
  const pick = h(
    'select',
    { id: 'strategy', 'aria-label': 'Strategy to open sessions with' },
    ...rep.strategies.map((s) => h('option', { value: s, selected: s === strategy }, s)),
  );
  pick.addEventListener('change', () => (strategy = (pick as HTMLSelectElement).value));
  const skipped = skippedSummary(rep.skipped);
  replaceChildren(
    app!,
    h('h1', {}, 'What would trimming have saved?'),
    h(
      'p',
      { class: 'summary' },
      `${t.sessions} session(s), ${t.calls} billed call(s); recorded spend ` +
        `${dollars(t.recorded.inputCost + t.recorded.outputCost)} (input side ${dollars(t.recorded.inputCost)}).`,
    ),
    h('p', { class: 'note' }, GLOSSARY),
    ...headlineLines(rep).map((l) => h('p', { class: 'summary' }, l.trim())),
    h('p', {}, h('strong', {}, nextStepLines(rep).join(' '))),
    h('p', { class: 'note' }, rep.note),
    chart('Input-side cost per session: recorded vs each strategy', g.series, g.sessions),
    chart('Input-side cost per week', g.series, g.weeks),
    h('h2', {}, 'Sessions'),
    h(
      'p',
      { class: 'note' },
      'Click a session to open it in the inspector with ',
      h('label', { for: 'strategy' }, 'strategy'),
      ' ',
      pick,
      ", or click a strategy's cost to open the session with that strategy.",
    ),
    sessionsTable(rep),
    missesTable(rep),
    offendersTable(rep),
    skipped.counted || skipped.listed.length
      ? h(
          'section',
          {},
          h('h2', {}, 'Skipped'),
          skipped.counted ? h('p', { class: 'note' }, skipped.counted) : undefined,
          h('ul', {}, ...skipped.listed.map((s) => h('li', {}, `${oneLine(s.file)}: ${oneLine(s.reason)}`))),
        )
      : undefined,
  );
}

replaceChildren(app, h('p', { class: 'note' }, 'Reading recorded sessions…'));
window.addEventListener('message', (e: MessageEvent) => {
  const msg = parseReportHostMessage(e.data);
  if (msg) render(msg.report);
});
vscode.postMessage({ type: 'ready' });
