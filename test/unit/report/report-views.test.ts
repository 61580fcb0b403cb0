/** The report's text and HTML: dates, projects, short ids, folded trivial sessions, the glossary and the misses. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatReport, reportHtml } from '../../../src/core/report';
import { totalsOf } from '../../../src/core/report/report';
import { reportFile } from '../../../src/core/report/session-report';
import { CAUSE_LABELS } from '../../../src/core/report/miss-causes';
import { COUNTERFACTUAL_NOTE } from '../../../src/protocol/report-types';
import type { MissCause, Report, SessionReport } from '../../../src/protocol/report-types';
import { withPeriods } from '../../../src/views/report-periods';
import { GLOSSARY, missTotals, shortNames } from '../../../src/views/report-rows';
import { sessionName } from '../../../src/views/report-text';

const CAUSES = resolve('test/fixtures/report-causes');
/** The terms the glossary explains: none may come before it. */
const TERMS = /anchored|\bfit\b|loose|kept|saving|\bnone\b/;

interface RowOptions {
  readonly at?: string;
  readonly cwd?: string;
  readonly model?: string;
  readonly misses?: MissCause[];
}

function row(id: string, calls: number, o: RowOptions = {}): SessionReport {
  const cost = calls * 0.1;
  const tokens = {
    inputTokens: 10 * calls,
    cacheWriteTokens: 100 * calls,
    cacheReadTokens: 1000 * calls,
    outputTokens: 5 * calls,
  };
  const recorded = { inputCost: cost, outputCost: cost / 10, ...tokens, cacheWrite1hTokens: 0, iterationCost: 0 };
  const at = o.at ?? '2026-02-10T12:00:00.000Z';
  return {
    file: `/home/ada/.claude/projects/-home-ada-work-${o.cwd ?? 'x'}/${id}.jsonl`,
    sessionId: id,
    ...(o.cwd ? { cwd: `/home/ada/work/${o.cwd}` } : {}),
    sidechain: false,
    model: o.model ?? 'claude-sonnet-4-5-20250929',
    calls,
    firstTimestamp: at,
    slots: [{ start: at, calls, ...tokens, inputCost: cost, outputCost: cost / 10 }],
    misses: o.misses ?? [],
    fit: {
      status: 'anchored',
      error: 0.01,
      medianCallTotalError: 0,
      medianCallCostError: 0,
      unexplainedShare: 0,
      unanchoredError: 0.01,
      notes: [],
    },
    recorded,
    strategies: {
      none: { inputCost: cost * 1.01, tokensSent: 1000, retention: 1 },
      default: { inputCost: cost * 0.7, tokensSent: 600, retention: 0.6 },
    },
    offenders: [],
    duplicates: 0,
  };
}

function report(sessions: SessionReport[]): Report {
  const strategies = ['none', 'default'];
  return { sessions, totals: totalsOf(sessions, strategies, 0), skipped: [], strategies, note: COUNTERFACTUAL_NOTE };
}

const A = '7c1e52aa-0000-4000-8000-000000000001';
const B = '7c1e52aa-9000-4000-8000-000000000002';
const C = '2b9f0c11-0000-4000-8000-000000000003';
const TTL = { cause: CAUSE_LABELS.ttl, calls: 2, tokens: 30_000, dollars: 0.5 };
const SWITCH = { cause: CAUSE_LABELS['model-switch'], calls: 1, tokens: 10_000, dollars: 0.2 };
const rows = [
  row(A, 12, { cwd: 'trimline', misses: [TTL] }),
  row(B, 8, {
    cwd: 'ledger',
    at: '2026-02-11T04:59:00.000Z',
    model: 'claude-opus-4-5-20251101',
    misses: [{ ...TTL, dollars: 0.25 }, SWITCH],
  }),
  row(C, 1, { cwd: 'trimline' }),
  row('4d0e1a22-0000-4000-8000-000000000004', 2),
];

describe('short session ids', () => {
  it('are the shortest prefix of 8 or more that no other id shares', () => {
    const names = shortNames(rows, sessionName);
    expect(names.get(rows[0])).toBe('7c1e52aa-0');
    expect(names.get(rows[1])).toBe('7c1e52aa-9');
    expect(names.get(rows[2])).toBe('2b9f0c11');
  });
});

describe('the text report', () => {
  const text = formatReport(report(rows), undefined, { timezone: 'America/New_York' });
  const table = text.split('\n');

  it('gives each session its local date, project, short id, full model, calls and spend', () => {
    const line = table.find((l) => l.includes('7c1e52aa-9'));
    // 04:59 UTC on the 11th is the evening of the 10th in New York.
    expect(line).toMatch(/^2026-02-10\s+ledger\s+7c1e52aa-9\s+opus-4-5-20251101\s+8\s+\$0\.880\s/);
  });

  it('folds the sessions with fewer than 3 calls into one line', () => {
    expect(text).toContain('+ 2 session(s) with fewer than 3 calls: 3 call(s), $0.330 spend');
    expect(text).not.toContain('2b9f0c11');
  });

  it('explains its terms once, before the table that uses them', () => {
    const flat = text.replace(/\n/g, ' ');
    expect(flat.split(GLOSSARY)).toHaveLength(2);
    expect(flat.slice(0, flat.indexOf(GLOSSARY))).not.toMatch(TERMS);
    expect(table.every((l) => !l.startsWith('Terms') || l.length <= 118)).toBe(true);
    for (const term of ['anchored', 'fit', 'loose', 'kept', 'saving', 'none']) expect(GLOSSARY).toContain(`"${term}"`);
  });

  it('says why the cache missed, each cause with its dollars over all sessions, costliest first', () => {
    const start = table.findIndex((l) => l.startsWith('Why your cache missed'));
    expect(start).toBeGreaterThan(0);
    expect(table[start + 1]).toMatch(/^\s+\$0\.750\s+TTL expiry after a gap\s+4 call\(s\)\s+60,000 tok$/);
    expect(table[start + 2]).toMatch(/^\s+\$0\.200\s+model switch/);
    expect(missTotals(rows).map((m) => m.dollars)).toEqual([0.75, 0.2]);
  });

  it('prints the per-period table when asked, in the zone it names', () => {
    const byDay = formatReport(withPeriods(report(rows), { by: 'day', timezone: 'America/New_York' }));
    expect(byDay).toContain('Per day in America/New_York');
    expect(byDay).toMatch(/\n\s+2026-02-10\s+4\s+23\s/);
  });
});

describe('the HTML report', () => {
  const html = reportHtml(withPeriods(report(rows), { by: 'week', timezone: 'UTC' }), { timezone: 'UTC' });

  it('keeps full ids and model names, and lists the folded sessions in full', () => {
    for (const id of [A, B, C]) expect(html).toContain(id);
    expect(html).toContain('claude-opus-4-5-20251101');
    expect(html).toContain('2 session(s) with fewer than 3 calls');
  });

  it('has the glossary, the misses and the periods, and stays self-contained', () => {
    expect(html).toContain('Why your cache missed');
    expect(html).toContain('<h2>Per week (UTC)</h2>');
    expect(html).toContain('&quot;anchored&quot; within ±5%');
    const glossary = html.indexOf('Terms: ');
    expect(glossary).toBeGreaterThan(0);
    expect(html.slice(html.indexOf('<body>'), glossary)).not.toMatch(TERMS);
    expect(html).not.toMatch(/<script|https?:\/\/|<link|<img/i);
  });
});

describe('misses by cause, from the rules --explain names', () => {
  const misses = (name: string) => {
    const text = readFileSync(`${CAUSES}/${name}`, 'utf8');
    return reportFile(name, text, new Set(), { strategies: [], config: {} }).rows[0].misses;
  };

  it.each([
    ['model-switch.jsonl', CAUSE_LABELS['model-switch']],
    ['one-hour-mixed.jsonl', CAUSE_LABELS.ttl],
    ['version-upgrade.jsonl', CAUSE_LABELS.version],
    ['microcompact.jsonl', CAUSE_LABELS.microcompact],
    ['session-part-rewritten.jsonl', CAUSE_LABELS['session-prompt']],
    ['unrecorded-clearing.jsonl', CAUSE_LABELS.rewrite],
  ])('%s: %s', (file, cause) => {
    const m = misses(file);
    expect(m?.map((x) => x.cause)).toEqual([cause]);
    expect(m?.[0].dollars).toBeGreaterThan(0);
  });

  it('a session that kept its cache has none', () => {
    expect(misses('one-hour.jsonl')).toEqual([]);
  });
});
