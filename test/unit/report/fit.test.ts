/**
 * `none` against the bill on the real m-claude sessions (CC0, test/fixtures/transcripts).
 * The aim is ±5% on every session with ≥ 10 calls; four reach it, and
 * four long sessions stay 7–15% low because of cache misses the transcript
 * does not explain (pinned here with the note that says so, so a model change
 * that moves them shows up).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildReport, type SessionReport } from '../../../src/core/report';
import { MIN_CALLS_FOR_FIT } from '../../../src/core/report/fit';

const DIR = resolve('test/fixtures/transcripts/m-claude');
/** The aim of the issue for `none` against recorded input-side cost. */
const FIT_TOLERANCE = 0.05;
/** Sessions where the API missed the cache at human turns for reasons the transcript does not show. */
const UNEXPLAINED: Readonly<Record<string, [number, number]>> = {
  'abc757d1-3da3-42fb-bb7b-ffa293a4ba29': [-0.09, -0.05],
  'c76e5be5-ffd2-4901-a935-885527c83a61': [-0.13, -0.08],
  'ff59cfd2-09dc-4a18-8c9f-0d46c3d4e8cd': [-0.13, -0.08],
  '3cfce0ff-0725-47be-a572-f8af8122b71e': [-0.15, -0.10],
};

const report = buildReport({ paths: [DIR], strategies: ['none'], config: {} });
const long = report.sessions.filter((r) => r.calls >= MIN_CALLS_FOR_FIT);
const nameOf = (r: SessionReport): string => r.file.slice(r.file.lastIndexOf('/') + 1).replace(/\.jsonl$/, '');

describe('none reproduces the recorded bill (m-claude)', () => {
  it('covers the eight sessions with ≥ 10 billed calls (a resumed copy counts only its own calls), all anchored', () => {
    expect(long.map(nameOf).sort()).toEqual(
      ['343e3472', '3cfce0ff', '43391f62', 'abc757d1', 'agent-abc3cb6', 'c76e5be5', 'f225835b', 'ff59cfd2']
        .map((p) => readdirSync(DIR).find((f) => f.startsWith(p))!.replace(/\.jsonl$/, ''))
        .sort(),
    );
    for (const r of long) expect(r.fit.status).toBe('anchored');
  });

  it('is within ±5% of the recorded input-side cost where the documented cache rules explain the bill', () => {
    for (const r of long.filter((x) => !UNEXPLAINED[nameOf(x)])) {
      expect(Math.abs(r.fit.error!), nameOf(r)).toBeLessThanOrEqual(FIT_TOLERANCE);
      expect(r.fit.notes.filter((n) => n.includes('missed the cache')), nameOf(r)).toEqual([]);
    }
  });

  it('stays low on the four long sessions and says why (cache misses the transcript does not explain)', () => {
    for (const [name, [lo, hi]] of Object.entries(UNEXPLAINED)) {
      const r = long.find((x) => nameOf(x) === name)!;
      expect(r.fit.error!, name).toBeGreaterThanOrEqual(lo);
      expect(r.fit.error!, name).toBeLessThanOrEqual(hi);
      expect(r.fit.notes.some((n) => /\d+ call\(s\) missed the cache/.test(n)), name).toBe(true);
    }
  });

  /**
   * Without those calls the rest is within ±1%, except 3cfce0ff (≈ +2.4%): at its call 22 the
   * recording reads the previous write exactly 20 positions before the new breakpoint, which the
   * shared simulator's lookback (20 positions counting the breakpoint's own) does not reach.
   */
  const RESIDUAL: Readonly<Record<string, number>> = { '3cfce0ff-0725-47be-a572-f8af8122b71e': 0.03 };
  it('owes the gap on those four to the unexplained misses: without them, within ±1% (3cfce0ff: 3%, lookback)', () => {
    for (const name of Object.keys(UNEXPLAINED)) {
      const r = long.find((x) => nameOf(x) === name)!;
      expect(r.fit.unexplainedShare!, name).toBeGreaterThan(0.05);
      expect(Math.abs(r.fit.error! + r.fit.unexplainedShare!), name).toBeLessThan(RESIDUAL[name] ?? 0.01);
    }
  });

  it('matches each call: median per-call error under 5% for total input and for input-side cost', () => {
    for (const r of long) {
      expect(r.fit.medianCallTotalError!, nameOf(r)).toBeLessThan(FIT_TOLERANCE);
      expect(r.fit.medianCallCostError!, nameOf(r)).toBeLessThan(FIT_TOLERANCE);
    }
  });

  it('counts a resumed session\'s copied responses in the original file only', () => {
    const copy = report.sessions.find((r) => nameOf(r).startsWith('ff33b5b0'))!;
    expect(copy.duplicates).toBe(18);
    expect(copy.calls).toBe(6);
    expect(copy.fit.notes.some((n) => n.includes('less than the transcript holds'))).toBe(true);
  });

  it('recorded totals equal a direct sum over unique message ids of the files', () => {
    const ids = new Set<string>();
    for (const f of readdirSync(DIR)) {
      for (const line of readFileSync(`${DIR}/${f}`, 'utf8').split('\n')) {
        let r: { type?: string; requestId?: string; message?: { id?: string; model?: string; usage?: { output_tokens: number } } };
        try {
          r = JSON.parse(line);
        } catch {
          continue;
        }
        if (r.type !== 'assistant' || !r.message?.usage || r.message.model === '<synthetic>') continue;
        const k = `${r.message.id}|${r.requestId ?? ''}`;
        if (!ids.has(k)) ids.add(k);
      }
    }
    expect(report.totals.calls).toBe(ids.size);
  });
});
