/**
 * `report --by day|week|month`: recorded usage grouped by the local date of each response in a time zone, as
 * ccusage's `daily` groups it (each message.id + requestId once, placed by its first line's timestamp).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { runReportCli } from '../../../src/cli/report';
import { inRange, localDay, parseTimeZone } from '../../../src/cli/report-range';
import { buildReport } from '../../../src/core/report';
import type { PeriodReport, PeriodTotals } from '../../../src/protocol/report-types';
import { periodOf, periodTotals } from '../../../src/views/report-periods';

const SESSION = '0f6c2a8e-1111-4222-8333-944445555666';
const MODEL = 'claude-sonnet-4-5-20250929';

interface Call {
  readonly at: string;
  readonly input: number;
  readonly write: number;
  readonly read: number;
  readonly output: number;
  /** A second line of the same response (a later content block), written this much later. */
  readonly repeatAfterMs?: number;
}

/** Calls around midnight in New York (UTC−5 in February) and in Kolkata (UTC+5:30). */
const CALLS: readonly Call[] = [
  { at: '2026-02-10T18:20:00.000Z', input: 10, write: 1000, read: 0, output: 50 }, // 23:50 Kolkata
  { at: '2026-02-10T18:40:00.000Z', input: 20, write: 200, read: 1000, output: 60 }, // 00:10 Kolkata, next day
  // 23:59:50 in New York, its second line after midnight.
  { at: '2026-02-11T04:59:50.000Z', input: 30, write: 300, read: 1200, output: 70, repeatAfterMs: 20_000 },
  { at: '2026-02-11T05:00:30.000Z', input: 40, write: 400, read: 1500, output: 80 }, // 00:00:30 New York, next day
  // Sunday 23:30 in New York, Monday in UTC.
  { at: '2026-02-16T04:30:00.000Z', input: 50, write: 500, read: 1900, output: 90 },
];

function lines(): string {
  const out: string[] = [];
  let parent: string | null = null;
  CALLS.forEach((c, i) => {
    const base = { sessionId: SESSION, cwd: '/home/ada/work/trimline', version: '2.1.6', isSidechain: false };
    const userAt = new Date(Date.parse(c.at) - 2000).toISOString();
    const asked = { role: 'user', content: `question ${i}` };
    const user = { ...base, type: 'user', uuid: `u${i}`, parentUuid: parent, timestamp: userAt, message: asked };
    out.push(JSON.stringify(user));
    const usage = {
      input_tokens: c.input,
      cache_creation_input_tokens: c.write,
      cache_read_input_tokens: c.read,
      output_tokens: c.output,
    };
    const content = [{ type: 'text', text: `answer ${i}` }];
    const message = { id: `msg_${i}`, model: MODEL, type: 'message', role: 'assistant', content, usage };
    const response = { ...base, type: 'assistant', requestId: `req_${i}`, message };
    out.push(JSON.stringify({ ...response, uuid: `a${i}`, parentUuid: `u${i}`, timestamp: c.at }));
    parent = `a${i}`;
    if (c.repeatAfterMs) {
      const at = new Date(Date.parse(c.at) + c.repeatAfterMs).toISOString();
      out.push(JSON.stringify({ ...response, uuid: `a${i}b`, parentUuid: `a${i}`, timestamp: at }));
      parent = `a${i}b`;
    }
  });
  return out.join('\n') + '\n';
}

/** ccusage's grouping, written out: each response once, by the local date (en-CA) of its first line. */
function referenceDaily(tz: string): Record<string, { input: number; output: number; write: number; read: number }> {
  const fmt = new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' });
  const out: Record<string, { input: number; output: number; write: number; read: number }> = {};
  for (const c of CALLS) {
    const d = fmt.format(new Date(c.at));
    const t = (out[d] ??= { input: 0, output: 0, write: 0, read: 0 });
    t.input += c.input;
    t.output += c.output;
    t.write += c.write;
    t.read += c.read;
  }
  return out;
}

describe('per-period totals', () => {
  const dir = mkdtempSync(join(tmpdir(), 'trimline-periods-'));
  writeFileSync(join(dir, `${SESSION}.jsonl`), lines());
  const rep = buildReport({ paths: [dir], strategies: ['none', 'default'], config: {} });

  it.each(['America/New_York', 'Asia/Kolkata', 'UTC'])('per day in %s equals the reference grouping', (tz) => {
    const p = inRange(rep, { by: 'day', timezone: tz }).periods;
    const tokens = (r: PeriodTotals) => ({
      input: r.inputTokens,
      output: r.outputTokens,
      write: r.cacheCreationTokens,
      read: r.cacheReadTokens,
    });
    const got = Object.fromEntries((p?.rows ?? []).map((r) => [r.period, tokens(r)]));
    expect(got).toEqual(referenceDaily(tz));
    expect(p?.timezone).toBe(tz);
  });

  it('splits the calls around midnight by the zone', () => {
    const days = (tz: string) =>
      inRange(rep, { by: 'day', timezone: tz }).periods?.rows.map((r) => [r.period, r.calls]);
    expect(days('America/New_York')).toEqual([
      ['2026-02-10', 3],
      ['2026-02-11', 1],
      ['2026-02-15', 1],
    ]);
    expect(days('Asia/Kolkata')).toEqual([
      ['2026-02-10', 1],
      ['2026-02-11', 3],
      ['2026-02-16', 1],
    ]);
  });

  it('weeks start on Monday in the zone, months by the local date', () => {
    expect(periodOf('2026-02-15', 'week')).toBe('2026-02-09');
    expect(periodOf('2026-02-16', 'week')).toBe('2026-02-16');
    expect(periodOf('2026-02-16', 'month')).toBe('2026-02');
    const weeks = periodTotals(rep.sessions, rep.strategies, { by: 'week', timezone: 'America/New_York' }).rows;
    expect(weeks.map((w) => [w.period, w.calls])).toEqual([['2026-02-09', 5]]);
    const utcWeeks = periodTotals(rep.sessions, rep.strategies, { by: 'week', timezone: 'UTC' }).rows;
    expect(utcWeeks.map((w) => [w.period, w.calls])).toEqual([
      ['2026-02-09', 4],
      ['2026-02-16', 1],
    ]);
  });

  it('sums to the recorded totals, and spreads each strategy over the periods by recorded input-side cost', () => {
    const p = inRange(rep, { by: 'day', timezone: 'Asia/Kolkata' }).periods;
    const rows = p?.rows ?? [];
    const sum = (f: (r: (typeof rows)[number]) => number) => rows.reduce((a, r) => a + f(r), 0);
    expect(sum((r) => r.calls)).toBe(rep.totals.calls);
    expect(sum((r) => r.totalCost)).toBeCloseTo(rep.totals.recorded.inputCost + rep.totals.recorded.outputCost, 9);
    expect(sum((r) => r.strategies.none ?? 0)).toBeCloseTo(rep.totals.strategies.none.inputCost, 9);
    expect(sum((r) => r.strategies.default ?? 0)).toBeCloseTo(rep.totals.strategies.default.inputCost, 9);
  });

  it('--since and --until keep the local dates between them, inclusive', () => {
    const day = '2026-02-11';
    const p = inRange(rep, { by: 'day', timezone: 'America/New_York', since: day, until: day }).periods;
    expect(p?.rows.map((r) => [r.period, r.calls])).toEqual([['2026-02-11', 1]]);
    expect(inRange(rep, { timezone: 'UTC', until: '2026-02-09' }).sessions).toHaveLength(0);
  });

  it('reads dates and zones as ccusage and Intl do, and refuses others', () => {
    expect(localDay('since', '20260131')).toBe('2026-01-31');
    expect(localDay('until', '2026-01-31')).toBe('2026-01-31');
    expect(() => localDay('until', 'yesterday')).toThrow(/--until must be a date/);
    expect(parseTimeZone('Asia/Kolkata')).toBe('Asia/Kolkata');
    expect(() => parseTimeZone('Mars/Olympus')).toThrow(/IANA time zone/);
  });

  it('`report --by day --json --timezone` carries the periods in its output', async () => {
    const chunks: string[] = [];
    const out = new Writable({ write: (c, _e, cb) => (chunks.push(String(c)), cb()) });
    const args = [dir, '--no-cache', '--by', 'day', '--json', '--timezone', 'Asia/Kolkata', '--workers', '0'];
    const code = await runReportCli(args, out);
    expect(code).toBe(0);
    const json = JSON.parse(chunks.join('')) as { periods: PeriodReport };
    expect([json.periods.by, json.periods.timezone]).toEqual(['day', 'Asia/Kolkata']);
    const days = json.periods.rows.map((r) => [r.period, r.calls]);
    expect(days).toEqual([
      ['2026-02-10', 1],
      ['2026-02-11', 3],
      ['2026-02-16', 1],
    ]);
  });
});
