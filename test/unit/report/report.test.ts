/** The whole report on a fixture projects directory, its outputs and the CLI. */
import { cpSync, mkdtempSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runReportCli } from '../../../src/cli/report';
import { importTranscript } from '../../../src/core/import';
import {
  buildReport,
  completeLines,
  defaultProjectsDir,
  formatReport,
  ReportCache,
  reportHtml,
} from '../../../src/core/report';
import { fitNone } from '../../../src/core/report/fit';
import { readRecorded } from '../../../src/core/import/claude-code-usage';
import type { RecordedCall } from '../../../src/core/import/recorded';
import { priceStrategy } from '../../../src/core/report/strategies';

const FIXTURES = resolve('test/fixtures/report');
const M_CLAUDE = resolve('test/fixtures/transcripts/m-claude');

function sink(): { out: Writable; text: () => string } {
  const chunks: string[] = [];
  return {
    out: new Writable({
      write(c, _e, cb) {
        chunks.push(String(c));
        cb();
      },
    }),
    text: () => chunks.join(''),
  };
}

describe('buildReport', () => {
  const rep = buildReport({ paths: [FIXTURES], strategies: ['none', 'default'], config: {} });

  it('lists the main conversation, the subagent in its file and the subagent file as rows', () => {
    expect(rep.sessions.map((r) => [r.sidechain, r.agentId ?? null, r.calls])).toEqual([
      [false, null, 2],
      [true, 'a1', 1],
      [true, 'b2', 1],
    ]);
    expect(rep.totals.calls).toBe(4);
  });

  it('names unknown formats and corrupt lines instead of aborting', () => {
    expect(rep.skipped.some((s) => s.file.endsWith('notes.jsonl') && /not a Claude Code JSONL/.test(s.reason))).toBe(
      true,
    );
    expect(
      rep.skipped.some((s) => s.file.endsWith('111111111111.jsonl') && s.reason === '1 corrupt line(s) skipped'),
    ).toBe(true);
    expect(rep.totals.badLines).toBe(2);
  });

  it('says what the counterfactual is in every output', () => {
    expect(formatReport(rep)).toContain('same recorded responses');
    expect(JSON.parse(JSON.stringify(rep)).note).toContain('same recorded responses');
    expect(reportHtml(rep)).toContain('same recorded responses');
  });

  it('writes one self-contained HTML page: no script, no external request, a chart', () => {
    const html = reportHtml(rep);
    expect(html).not.toMatch(/<script|https?:\/\/|<link/i);
    expect(html).toContain("default-src 'none'");
    expect(html.match(/<svg/g)?.length).toBe(2);
  });

  it('reads a file still being written up to its last complete line', () => {
    expect(completeLines('{"a":1}\n{"b":')).toBe('{"a":1}\n');
    expect(completeLines('{"a":1}\n{"b":2}')).toBe('{"a":1}\n{"b":2}');
  });

  it('defaults to $CLAUDE_CONFIG_DIR/projects', () => {
    expect(defaultProjectsDir({ CLAUDE_CONFIG_DIR: '/x/cfg' })).toBe('/x/cfg/projects');
    expect(defaultProjectsDir({})).toMatch(/\.claude[/\\]projects$/);
  });
});

describe('strategies', () => {
  it('the replay engine with strategy none costs what the fitted none costs (same requests, same model)', () => {
    const file = `${M_CLAUDE}/343e3472-b9b6-4561-ade0-21d1a4730c11.jsonl`;
    const imp = importTranscript(file);
    const rec = readRecorded(readFileSync(file, 'utf8'), new Set());
    const byId = new Map<string, RecordedCall>(rec.conversations[0].calls.map((c) => [c.key.split('|')[0], c]));
    const fit = fitNone(imp, 'claude-opus-4-5', byId);
    const none = priceStrategy(imp, 'claude-opus-4-5', fit, 'none', {});
    expect(none.inputCost / fit.simulatedCost).toBeGreaterThan(0.99);
    expect(none.inputCost / fit.simulatedCost).toBeLessThan(1.01);
    const def = priceStrategy(imp, 'claude-opus-4-5', fit, 'default', {});
    expect(def.tokensSent).toBeLessThan(none.tokensSent);
  });
});

describe('trimline report (CLI)', () => {
  it('--json follows the output contract; --html writes the page', async () => {
    const o = sink();
    const html = join(mkdtempSync(join(tmpdir(), 'trimline-report-')), 'r.html');
    expect(await runReportCli([FIXTURES, '--json', '--html', html, '--no-cache'], o.out, sink().out)).toBe(0);
    const j = JSON.parse(o.text()) as { sessions: Record<string, unknown>[]; totals: object; skipped: object[] };
    for (const k of ['file', 'sessionId', 'sidechain', 'model', 'calls', 'fit', 'recorded', 'strategies', 'offenders'])
      expect(j.sessions[0]).toHaveProperty(k);
    expect(Object.keys(j.sessions[0].strategies as object)).toEqual(['none', 'default']);
    expect(readFileSync(html, 'utf8')).toContain('<svg');
  });

  it('rejects a --since that is not a date, or --workers that is not a count, in one line', async () => {
    await expect(
      runReportCli([FIXTURES, '--since', 'yesterday', '--no-cache'], sink().out, sink().out),
    ).rejects.toThrow(/--since must be a date/);
    await expect(runReportCli([FIXTURES, '--workers', 'two', '--no-cache'], sink().out, sink().out)).rejects.toThrow(
      /--workers must be a whole number/,
    );
  });
});

describe('per-file cache', () => {
  it('a second run reads only the files that changed, with the same result', () => {
    const dir = mkdtempSync(join(tmpdir(), 'trimline-cache-'));
    cpSync(FIXTURES, join(dir, 'in'), { recursive: true });
    const cacheFile = join(dir, 'cache.json');
    const run = () => {
      const cache = new ReportCache(cacheFile);
      return {
        rep: buildReport({ paths: [join(dir, 'in')], strategies: ['none'], config: {}, cache }),
        hits: cache.hits,
      };
    };
    const first = run();
    expect(first.hits).toBe(0);
    const second = run();
    expect(second.hits).toBe(3);
    expect(second.rep).toEqual(first.rep);
    const sub = join(dir, 'in/projects/-home-u-proj/11111111-1111-4111-8111-111111111111/subagents/agent-b2.jsonl');
    utimesSync(sub, statSync(sub).atime, new Date(statSync(sub).mtimeMs + 60_000));
    const third = run();
    expect(third.hits).toBe(2);
    expect(third.rep.totals).toEqual(first.rep.totals);
  });
});
