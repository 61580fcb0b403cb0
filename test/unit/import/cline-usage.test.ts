/**
 * Cline tasks in the report: recorded spend and a fit from the task's ui_messages.json
 * (test/fixtures/cline-task), or a precise reason when it cannot be read.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildReport, discover, formatReport, ReportCache } from '../../../src/core/report';
import { pairRequests, parseClineUiMessages } from '../../../src/core/import/cline-usage';
import type { CallRecord } from '../../../src/core/session/types';

const TASK = resolve('test/fixtures/cline-task/1768409712031');
const NO_UI = resolve('test/fixtures/cline');

interface UiMessage {
  say?: string;
  text?: string;
}

/** The fixture's own per-request totals (Cline's `cost` and token counts). */
function fixtureRequests(): {
  tokensIn: number;
  tokensOut: number;
  cacheWrites: number;
  cacheReads: number;
  cost: number;
}[] {
  const ui = JSON.parse(readFileSync(join(TASK, 'ui_messages.json'), 'utf8')) as UiMessage[];
  return ui
    .filter((m) => m.say === 'api_req_started')
    .map(
      (m) =>
        JSON.parse(m.text ?? '{}') as {
          tokensIn: number;
          tokensOut: number;
          cacheWrites: number;
          cacheReads: number;
          cost: number;
        },
    )
    .filter((r) => r.tokensIn !== undefined);
}

describe('Cline usage (ui_messages.json)', () => {
  it('gives a Cline task its recorded spend, an anchored fit and every strategy', () => {
    const rep = buildReport({ paths: [TASK], strategies: ['none', 'default'], config: {} });
    expect(rep.skipped).toEqual([]);
    expect(rep.sessions).toHaveLength(1);
    const r = rep.sessions[0];
    const reqs = fixtureRequests();
    expect(r.calls).toBe(4);
    expect(r.model).toBe('claude-sonnet-4-5-20250929');
    expect(r.sessionId).toBe('1768409712031');
    expect(r.recorded.inputTokens).toBe(reqs.reduce((a, q) => a + q.tokensIn, 0));
    expect(r.recorded.cacheWriteTokens).toBe(reqs.reduce((a, q) => a + q.cacheWrites, 0));
    expect(r.recorded.cacheReadTokens).toBe(reqs.reduce((a, q) => a + q.cacheReads, 0));
    // Priced from the model catalog, it agrees with what Cline recorded as the cost.
    expect(r.recorded.inputCost + r.recorded.outputCost).toBeCloseTo(
      reqs.reduce((a, q) => a + q.cost, 0),
      6,
    );
    expect(r.fit.status).toBe('anchored');
    expect(r.fit.error).not.toBeNull();
    expect(Math.abs(r.fit.error ?? 1)).toBeLessThan(0.05);
    expect(Object.keys(r.strategies).sort()).toEqual(['default', 'none']);
    expect(r.fit.notes).toContain('1 request(s) in ui_messages.json recorded no token counts (never finished)');
    expect(formatReport(rep)).toContain('cline 1768409712031');
  });

  it('says precisely why a task folder has no usage: ui_messages.json missing', () => {
    const rep = buildReport({ paths: [NO_UI], strategies: ['none', 'default'], config: {} });
    expect(rep.sessions).toHaveLength(1);
    const r = rep.sessions[0];
    expect(r.fit.status).toBe('no-usage');
    expect(r.fit.notes).toEqual(['no usage recorded: ui_messages.json missing']);
    expect(r.recorded.inputCost).toBe(0);
    expect(r.strategies).toEqual({});
  });

  it('names unreadable or empty usage instead of guessing', () => {
    expect(parseClineUiMessages('{not json')).toEqual({ ok: false, reason: 'ui_messages.json is not valid JSON' });
    expect(parseClineUiMessages('{}')).toEqual({ ok: false, reason: 'ui_messages.json is not a message array' });
    expect(parseClineUiMessages('[{"type":"say","say":"text","text":"hi"}]')).toEqual({
      ok: false,
      reason: 'ui_messages.json records no API request',
    });
    expect(parseClineUiMessages('[{"type":"say","say":"api_req_started","text":"{\\"request\\":\\"x\\"}"}]')).toEqual({
      ok: false,
      reason: 'ui_messages.json has 1 request(s) but no token counts',
    });
    const ok = parseClineUiMessages(
      '[{"ts":5,"type":"say","say":"deleted_api_reqs","text":"{\\"tokensIn\\":10,\\"tokensOut\\":2,\\"cacheWrites\\":0,\\"cacheReads\\":0,\\"cost\\":0.1}"}]',
    );
    expect(ok.ok && ok.requests[0].deleted).toBe(true);
  });

  it('pairs each response with the latest request started before it; without timestamps only when the counts agree', () => {
    const req = (ts: number, deleted = false) => ({
      ts,
      deleted,
      usage: {
        input_tokens: 1,
        output_tokens: 1,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
      },
    });
    const call = (i: number, ts?: number): CallRecord => ({
      index: i,
      at: i,
      epochStart: 0,
      timestamp: ts === undefined ? undefined : new Date(ts).toISOString(),
    });
    // Request 1 failed and was retried as request 2; request 0 is a deleted total.
    expect(pairRequests([call(0, 100), call(1, 300)], [req(50, true), req(90), req(200), req(250)])).toEqual([1, 3]);
    expect(pairRequests([call(0), call(1)], [req(1), req(2)])).toEqual([0, 1]);
    expect(pairRequests([call(0), call(1)], [req(1), req(2), req(3)])).toEqual([undefined, undefined]);
    // Requests without `ts` cannot be placed in time: in order, when the counts agree.
    expect(pairRequests([call(0, 100), call(1, 300)], [req(0), req(0)])).toEqual([0, 1]);
    expect(pairRequests([call(0, 100), call(1, 300)], [req(0), req(0), req(0)])).toEqual([undefined, undefined]);
  });

  it('a task whose requests cannot be paired keeps its recorded spend and says why there is no fit', () => {
    const dir = mkdtempSync(join(tmpdir(), 'trimline-cline-'));
    try {
      mkdirSync(join(dir, 'task'));
      // An older Cline history (no `ts`) and one request more than it has responses.
      const history = (
        JSON.parse(readFileSync(join(TASK, 'api_conversation_history.json'), 'utf8')) as Record<string, unknown>[]
      ).map(({ ts: _ts, ...m }) => m);
      writeFileSync(join(dir, 'task', 'api_conversation_history.json'), JSON.stringify(history));
      const ui = JSON.parse(readFileSync(join(TASK, 'ui_messages.json'), 'utf8')) as UiMessage[];
      const extra = ui.find((m) => m.say === 'api_req_started' && m.text?.includes('tokensIn'));
      writeFileSync(join(dir, 'task', 'ui_messages.json'), JSON.stringify([...ui, extra]));
      const r = buildReport({ paths: [dir], strategies: ['none'], config: {} }).sessions[0];
      expect(r.calls).toBe(5);
      expect(r.recorded.inputCost).toBeGreaterThan(0);
      expect(r.fit.status).toBe('not-replayable');
      expect(r.fit.notes).toContain(
        'no response could be paired with a request: 5 request(s) in ui_messages.json for 4 response(s), without timestamps to place them; recorded spend only',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the per-file cache re-reads a task whose ui_messages.json changed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'trimline-cline-'));
    try {
      cpSync(TASK, join(dir, 'task'), { recursive: true });
      const cacheFile = join(dir, 'cache.json');
      const run = () => {
        const cache = new ReportCache(cacheFile);
        return { rep: buildReport({ paths: [dir], strategies: ['none'], config: {}, cache }), hits: cache.hits };
      };
      expect(run().hits).toBe(0);
      expect(run().hits).toBe(1);
      const ui = join(dir, 'task', 'ui_messages.json');
      const before = discover([dir]).files[0];
      writeFileSync(ui, '[]');
      utimesSync(ui, statSync(ui).atime, new Date(statSync(ui).mtimeMs + 60_000));
      expect(discover([dir]).files[0].mtimeMs).toBeGreaterThan(before.mtimeMs);
      const third = run();
      expect(third.hits).toBe(0);
      expect(third.rep.sessions[0].fit.notes).toEqual(['no usage recorded: ui_messages.json records no API request']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
