/**
 * Each cause of a loose fit, on the self-made sessions of test/fixtures/report-causes
 * (their usage comes from generate.mjs's own model of the API, not from this code).
 * Each test asserts what the bill model must do with that shape; the fit bound is the issue's ±5%.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTranscript } from '../../../src/core/import';
import { minCacheableTokens, modelPrice } from '../../../src/core/models';
import { buildReport, formatReport } from '../../../src/core/report';
import { totalsOf } from '../../../src/core/report/report';
import { fitNone, type FitResult } from '../../../src/core/report/fit';
import { readRecorded } from '../../../src/core/import/claude-code-usage';
import type { RecordedCall } from '../../../src/core/import/recorded';
import { iterationsCost } from '../../../src/core/report/recorded';
import type { CallRecord } from '../../../src/core/session/types';
import { reportFile } from '../../../src/core/report/session-report';
import { CLEARED_RESULT_TOKENS } from '../../../src/core/report/sizing';
import { ANCHOR_TOLERANCE } from '../../../src/protocol/report-types';

const DIR = resolve('test/fixtures/report-causes');
const OPUS_41 = 'claude-opus-4-1-20250805';
const SONNET_4 = 'claude-sonnet-4-20250514';
const HAIKU = 'claude-haiku-4-5-20251001';
const OPUS_45 = 'claude-opus-4-5-20251101';

interface Fitted {
  fit: FitResult;
  calls: readonly CallRecord[];
  recorded: readonly RecordedCall[];
}

function fitted(file: string, model: string): Fitted {
  const text = readFileSync(`${DIR}/${file}`, 'utf8');
  const imp = parseTranscript(text, file);
  const rec = readRecorded(text, new Set());
  const byId = new Map<string, RecordedCall>(rec.conversations[0].calls.map((c) => [c.key.split('|')[0], c]));
  return {
    fit: fitNone(imp, model, byId, undefined, rec.conversations[0].events),
    calls: imp.calls,
    recorded: rec.conversations[0].calls,
  };
}

/** Input-side cost of a simulated step at a model's prices. */
function priced(model: string, u: FitResult['steps'][number]['usage']): number {
  const p = modelPrice(model);
  return (
    (u.input_tokens * p.input +
      u.cache_creation.ephemeral_5m_input_tokens * p.cacheWrite5m +
      u.cache_creation.ephemeral_1h_input_tokens * p.cacheWrite1h +
      u.cache_read_input_tokens * p.cacheRead) /
    1e6
  );
}

const systemOf = (f: FitResult, model: string): number => {
  const p = f.prefixes.get(model)!;
  return p.shared + p.session;
};

describe('model switch (/model from Opus 4.1 to Sonnet 4)', () => {
  const { fit, calls } = fitted('model-switch.jsonl', OPUS_41);
  const first = calls.findIndex((c) => c.model === SONNET_4);

  it('prices every call after the switch at Sonnet 4, and the first of them is a cache miss', () => {
    expect(first).toBeGreaterThan(0);
    for (let i = first; i < calls.length; i++) {
      expect(fit.contexts[i].model).toBe(SONNET_4);
      expect(fit.steps[i].cost).toBeCloseTo(priced(SONNET_4, fit.steps[i].usage), 12);
    }
    expect(fit.steps[first].usage.cache_read_input_tokens).toBe(0);
    expect(fit.steps[first + 1].usage.cache_read_input_tokens).toBeGreaterThan(0);
    expect(fit.steps[first - 1].cost).toBeCloseTo(priced(OPUS_41, fit.steps[first - 1].usage), 12);
  });

  it('is within ±5% of the bill and says which calls went to the other model', () => {
    expect(Math.abs(fit.costError!)).toBeLessThanOrEqual(ANCHOR_TOLERANCE);
    expect(fit.otherModels).toEqual([{ model: SONNET_4, calls: calls.length - first }]);
    const row = reportFile('model-switch.jsonl', readFileSync(`${DIR}/model-switch.jsonl`, 'utf8'), new Set(), {
      strategies: [],
      config: {},
    }).rows[0];
    expect(row.otherModels).toEqual([SONNET_4]);
    expect(
      formatReport({
        sessions: [row],
        totals: totalsOf([row], ['none'], 0),
        skipped: [],
        strategies: ['none'],
        note: '',
      }),
    ).toMatch(/model-switch\s+opus-4-1\S* \+1 /);
  });
});

describe('side calls on other models inside an Opus 4.5 session', () => {
  const { fit, calls } = fitted('side-calls.jsonl', OPUS_45);
  const side = calls.map((c, i) => (c.model !== OPUS_45 ? i : -1)).filter((i) => i >= 0);

  it('prices each side call at its own model, on its own cache, and leaves the Opus cache warm', () => {
    expect(side.length).toBe(3);
    for (const i of side) {
      const m = calls[i].model!;
      expect(fit.contexts[i].model).toBe(m);
      expect(fit.steps[i].cost).toBeCloseTo(priced(m, fit.steps[i].usage), 12);
      // The Opus call right after reads its history beyond the system prompt: the side call did not touch its cache.
      expect(fit.steps[i + 1].usage.cache_read_input_tokens).toBeGreaterThan(systemOf(fit, OPUS_45) + 1000);
    }
    // The first Haiku call finds no Haiku cache.
    expect(calls[side[0]].model).toBe(HAIKU);
    expect(fit.steps[side[0]].usage.cache_read_input_tokens).toBe(0);
    expect(Math.abs(fit.costError!)).toBeLessThanOrEqual(ANCHOR_TOLERANCE);
  });
});

describe('side requests of their own (another model, its own short prompt, not the history)', () => {
  const { fit, calls, recorded } = fitted('side-requests.jsonl', OPUS_45);
  const side = calls.map((c, i) => (c.model === HAIKU ? i : -1)).filter((i) => i >= 0);

  it('prices them as recorded and keeps the history the session sent without their answers', () => {
    expect(side.length).toBe(3);
    expect(fit.foreign).toEqual(side);
    for (const i of side) {
      const r = recorded.find((c) => c.key.startsWith(`${calls[i].apiMessageId}|`))!;
      expect(fit.steps[i].usage.cache_read_input_tokens).toBe(r.usage.cache_read_input_tokens);
      expect(fit.steps[i].cost).toBeCloseTo(priced(HAIKU, fit.steps[i].usage), 12);
      expect(fit.steps[i + 1].usage.cache_read_input_tokens).toBeGreaterThan(systemOf(fit, OPUS_45) + 1000);
    }
    expect(fit.rewrites).toEqual([]);
    expect(Math.abs(fit.costError!)).toBeLessThanOrEqual(ANCHOR_TOLERANCE);
  });
});

describe('1-hour cache writes (Claude Code ≥ 2.1.29)', () => {
  it('keeps the whole prefix warm over 10–45 minute gaps when every breakpoint is 1h', () => {
    const { fit, calls } = fitted('one-hour.jsonl', 'claude-opus-4-6');
    const afterGap = fit.timings
      .map((t, i) => (i > 0 && t.now - fit.timings[i - 1].now > 10 * 60_000 ? i : -1))
      .filter((i) => i > 0);
    expect(afterGap.length).toBeGreaterThanOrEqual(3);
    for (const i of afterGap) {
      expect(fit.timings[i].ttl).toBe('1h');
      expect(fit.steps[i].usage.cache_read_input_tokens).toBe(calls[i].usage!.cache_read_input_tokens);
    }
    expect(Math.abs(fit.costError!)).toBeLessThanOrEqual(ANCHOR_TOLERANCE);
  });

  it('reads only the 1h system prompt after a 15-minute gap when the message breakpoint is 5m', () => {
    const { fit } = fitted('one-hour-mixed.jsonl', 'claude-opus-4-6');
    const afterGap = fit.timings
      .map((t, i) => (i > 0 && t.now - fit.timings[i - 1].now > 10 * 60_000 ? i : -1))
      .filter((i) => i > 0);
    expect(afterGap.length).toBeGreaterThanOrEqual(2);
    for (const i of afterGap) {
      expect(fit.timings[i].systemTtl).toBe('1h');
      expect(fit.timings[i].ttl).toBe('5m');
      expect(fit.steps[i].usage.cache_read_input_tokens).toBe(systemOf(fit, 'claude-opus-4-6'));
      expect(fit.steps[i].usage.cache_creation.ephemeral_5m_input_tokens).toBeGreaterThan(0);
    }
    expect(Math.abs(fit.costError!)).toBeLessThanOrEqual(ANCHOR_TOLERANCE);
  });
});

describe("resumed session (the file starts with its parent's lines)", () => {
  const PARENT = '5a1c0e05-0000-4000-8000-00000000000a';
  const CHILD = '5a1c0e06-0000-4000-8000-00000000000b';
  const report = buildReport({
    paths: [`${DIR}/${CHILD}.jsonl`, `${DIR}/${PARENT}.jsonl`],
    strategies: ['none'],
    config: {},
  });

  it('labels the resumed file with its own session id and counts the copied responses once, in the parent', () => {
    const child = report.sessions.find((r) => r.file.endsWith(`${CHILD}.jsonl`))!;
    const parent = report.sessions.find((r) => r.file.endsWith(`${PARENT}.jsonl`))!;
    expect(child.sessionId).toBe(CHILD);
    expect(parent.sessionId).toBe(PARENT);
    expect(child.duplicates).toBe(parent.calls);
    expect(report.totals.calls).toBe(child.calls + parent.calls);
    for (const r of [child, parent]) expect(r.fit.status).toBe('anchored');
  });

  it('keeps its own id even when the resumed file is read alone (the copied responses are then billed in it)', () => {
    const r = reportFile(`${DIR}/${CHILD}.jsonl`, readFileSync(`${DIR}/${CHILD}.jsonl`, 'utf8'), new Set(), {
      strategies: [],
      config: {},
    });
    expect(r.rows[0].sessionId).toBe(CHILD);
  });
});

describe('compaction billed in usage.iterations', () => {
  const text = readFileSync(`${DIR}/compaction.jsonl`, 'utf8');
  const row = reportFile('compaction.jsonl', text, new Set(), { strategies: ['default'], config: {} }).rows[0];

  it('adds the summarizing step to the bill but not to the token totals (those stay top-level usage, as ccusage counts)', () => {
    let topInput = 0;
    const seen = new Set<string>();
    for (const line of text.split('\n').filter(Boolean)) {
      const r = JSON.parse(line) as { type: string; message?: { id: string; usage?: { input_tokens: number } } };
      if (r.type !== 'assistant' || seen.has(r.message!.id)) continue;
      seen.add(r.message!.id);
      topInput += r.message!.usage!.input_tokens;
    }
    expect(row.recorded.inputTokens).toBe(topInput);
    expect(row.recorded.iterationCost).toBeGreaterThan(0);
    expect(row.fit.notes.some((n) => n.includes('billed apart for summarizing'))).toBe(true);
  });

  const { fit, calls, recorded } = fitted('compaction.jsonl', 'claude-opus-4-6');
  const apart = recorded.reduce((a, c) => a + iterationsCost(c.model, c.usage).input, 0);

  it('carries the summarizing step into none as recorded, and none stays within ±5% of the bill', () => {
    expect(apart).toBeGreaterThan(0);
    expect(row.strategies.none.inputCost - fit.simulatedCost).toBeCloseTo(apart, 12);
    expect(row.fit.status).toBe('anchored');
    expect(Math.abs(row.strategies.none.inputCost / row.recorded.inputCost - 1)).toBeLessThanOrEqual(ANCHOR_TOLERANCE);
  });

  it('restarts the history at the summary: the first call after the boundary reads only the system prompt', () => {
    const i = calls.findIndex((c) => c.epochStart > 0);
    expect(i).toBeGreaterThan(0);
    expect(fit.steps[i].usage.cache_read_input_tokens).toBe(systemOf(fit, 'claude-opus-4-6'));
  });
});

describe('microcompact (the client cleared old tool results itself)', () => {
  const { fit, calls } = fitted('microcompact.jsonl', OPUS_45);

  it('sends placeholders for the cleared results from the call after the boundary, and the cache breaks there', () => {
    expect(fit.microcompacts).toHaveLength(1);
    const at = fit.microcompacts[0].call;
    expect(fit.contexts[at].cleared?.size).toBe(6);
    expect(fit.contexts[at - 1].cleared).toBeUndefined();
    // The cache holds nothing past the first cleared result, so the read is the system prompt.
    expect(fit.steps[at].usage.cache_read_input_tokens).toBe(systemOf(fit, OPUS_45));
    expect(
      Math.abs(fit.steps[at].usage.cache_read_input_tokens / calls[at].usage!.cache_read_input_tokens! - 1),
    ).toBeLessThan(0.01);
    expect(fit.steps[at].totalInput).toBeLessThan(
      fit.steps[at - 1].totalInput - 6 * (4000 - CLEARED_RESULT_TOKENS) + 2000,
    );
  });

  it('needs no rescaling of the history and is within ±5% of the bill', () => {
    expect(fit.rewrites).toEqual([]);
    expect(Math.abs(fit.costError!)).toBeLessThanOrEqual(ANCHOR_TOLERANCE);
  });
});

describe('client upgrade mid-session (the first system block carries cc_version)', () => {
  it('rewrites the whole prefix at the first call of the new version', () => {
    const { fit } = fitted('version-upgrade.jsonl', 'claude-opus-4-6');
    expect(fit.versionChanges).toHaveLength(1);
    const at = fit.versionChanges[0].call;
    expect(fit.steps[at].usage.cache_read_input_tokens).toBe(0);
    expect(fit.steps[at + 1].usage.cache_read_input_tokens).toBeGreaterThan(minCacheableTokens('claude-opus-4-6'));
    expect(Math.abs(fit.costError!)).toBeLessThanOrEqual(ANCHOR_TOLERANCE);
  });
});

describe('client upgrade of an older client (no version in its system prompt)', () => {
  it('does not break the cache where the recording shows none broke', () => {
    const { fit, calls } = fitted('version-not-in-prefix.jsonl', SONNET_4);
    expect(fit.versionChanges).toEqual([]);
    const bumped = calls.findIndex((c, i) => i > 0 && fit.timings[i].now - fit.timings[i - 1].now > 2 * 60_000);
    expect(fit.steps[bumped].usage.cache_read_input_tokens).toBeGreaterThan(systemOf(fit, SONNET_4) + 1000);
    expect(Math.abs(fit.costError!)).toBeLessThanOrEqual(ANCHOR_TOLERANCE);
  });
});
