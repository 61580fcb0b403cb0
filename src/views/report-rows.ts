/**
 * What the session table shows per row, shared by the text and the HTML: the local date, the project, a short
 * id that stays unambiguous, and trivial sessions folded. Pure (bundled into the report webview).
 */
import type { MissCause, SessionReport } from '../protocol/report-types';

/** Sessions with fewer calls than this are folded into one line. */
export const TRIVIAL_CALLS = 3;

/** The glossary line, said once where the terms first appear (above the session table). */
export const GLOSSARY =
  'Terms: "spend" = recorded cost (input side + output); "none" = the recorded requests replayed untrimmed; ' +
  '"fit" = simulated none / recorded input side − 1: "anchored" within ±5% (its savings count in the headline), ' +
  '"loose" beyond (left out); "saving" = a strategy\'s input-side cost below none\'s; ' +
  '"kept" = tokens it sent / none\'s.';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function lastSegment(path: string): string {
  const p = path.replace(/[/\\]+$/, '');
  return p.slice(Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\')) + 1);
}

/** The project: the last segment of the recorded working directory, else the folder the file is in. */
export function projectOf(r: SessionReport): string {
  if (r.cwd) return lastSegment(r.cwd);
  const dir = r.file.slice(0, Math.max(r.file.lastIndexOf('/'), r.file.lastIndexOf('\\')));
  return lastSegment(dir) || '—';
}

/**
 * Short names for rows named by a UUID: the shortest prefix of 8 or more characters no other row's id shares;
 * `name` gives each row's full name.
 */
export function shortNames(
  rows: readonly SessionReport[],
  name: (r: SessionReport) => string,
): Map<SessionReport, string> {
  const ids = [...new Set(rows.map(name).filter((n) => UUID.test(n)))].sort();
  const len = new Map<string, number>();
  ids.forEach((id, i) => {
    let n = 8;
    for (const other of [ids[i - 1], ids[i + 1]]) {
      if (!other) continue;
      let k = 0;
      while (k < id.length && id[k] === other[k]) k++;
      n = Math.max(n, k + 1);
    }
    len.set(id, Math.min(n, id.length));
  });
  return new Map(
    rows.map((r) => {
      const full = name(r);
      const n = len.get(full);
      return [r, n ? full.slice(0, n) : full];
    }),
  );
}

/** `YYYY-MM-DD` of a row's first call in a time zone. */
export function rowDate(r: SessionReport, fmt: Intl.DateTimeFormat): string {
  const t = r.firstTimestamp ? Date.parse(r.firstTimestamp) : NaN;
  return Number.isFinite(t) ? fmt.format(new Date(t)) : 'undated';
}

export interface Folded {
  readonly shown: SessionReport[];
  readonly folded: { sessions: number; calls: number; spend: number };
}

/** Rows worth a line, and the folded rest (fewer than {@link TRIVIAL_CALLS} calls): their count, calls and spend. */
export function foldTrivial(rows: readonly SessionReport[]): Folded {
  const shown: SessionReport[] = [];
  const folded = { sessions: 0, calls: 0, spend: 0 };
  for (const r of rows) {
    if (r.calls >= TRIVIAL_CALLS) {
      shown.push(r);
      continue;
    }
    folded.sessions++;
    folded.calls += r.calls;
    folded.spend += spendOf(r);
  }
  return { shown, folded };
}

/** Recorded spend of a row: input side and output. */
export function spendOf(r: SessionReport): number {
  return r.recorded.inputCost + r.recorded.outputCost;
}

/** Misses by cause over all rows, costliest first. */
export function missTotals(rows: readonly SessionReport[]): MissCause[] {
  const out = new Map<string, { calls: number; tokens: number; dollars: number }>();
  for (const r of rows) {
    for (const m of r.misses ?? []) {
      const t = out.get(m.cause) ?? { calls: 0, tokens: 0, dollars: 0 };
      t.calls += m.calls;
      t.tokens += m.tokens;
      t.dollars += m.dollars;
      out.set(m.cause, t);
    }
  }
  return [...out].map(([cause, t]) => ({ cause, ...t })).sort((a, b) => b.dollars - a.dollars);
}

/** The section's lead sentence: what a miss is and what it is priced at. */
export const MISSES_LEAD =
  'Why your cache missed (a miss: a call re-wrote what the call before it had cached; ' +
  'priced as billed over the cache-read price):';
