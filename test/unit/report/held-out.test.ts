/**
 * A real session nobody here tuned on: the first part of a public Claude Code
 * 1.0.98 transcript (claude-sonnet-4, 5-minute cache, a subagent's lines inline
 * with `isSidechain` and no `agentId`; MIT, test/fixtures/transcripts/NOTICE.md).
 * Invariants only: every row with recorded usage is within ±5% of its bill or is
 * flagged loose with a note, and the recorded token totals are the plain sum of
 * the usage, once per (message id, request id), as ccusage counts.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, it } from 'vitest';
import { buildReport } from '../../../src/core/report';
import { ANCHOR_TOLERANCE } from '../../../src/protocol/report-types';

const FILE = resolve('test/fixtures/transcripts/public/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl');
const report = buildReport({ paths: [FILE], strategies: ['none', 'default'], config: {} });

it('fits the bill of every conversation, main thread and subagent, or says it does not', () => {
  const rows = report.sessions.filter((r) => r.calls > 0);
  expect(rows.some((r) => r.sidechain)).toBe(true);
  expect(rows.some((r) => !r.sidechain)).toBe(true);
  for (const r of rows) {
    if (r.fit.status === 'anchored') expect(Math.abs(r.fit.error ?? Infinity)).toBeLessThanOrEqual(ANCHOR_TOLERANCE);
    else expect(r.fit.notes.length).toBeGreaterThan(0);
  }
});

it('counts each response once: token totals equal the usage summed per (message id, request id)', () => {
  const seen = new Map<
    string,
    {
      input_tokens: number;
      cache_creation_input_tokens?: number;
      cache_read_input_tokens?: number;
      output_tokens: number;
    }
  >();
  for (const line of readFileSync(FILE, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as {
      type?: string;
      requestId?: string;
      message?: { id?: string; usage?: { input_tokens: number; output_tokens: number } };
    };
    if (r.type !== 'assistant' || !r.message?.usage || !r.message.id) continue;
    const key = `${r.message.id}|${r.requestId ?? ''}`;
    const prev = seen.get(key);
    if (!prev || r.message.usage.output_tokens >= prev.output_tokens) seen.set(key, r.message.usage);
  }
  const sum = (
    k: 'input_tokens' | 'cache_creation_input_tokens' | 'cache_read_input_tokens' | 'output_tokens',
  ): number => [...seen.values()].reduce((a, u) => a + (u[k] ?? 0), 0);
  const t = report.totals.recorded;
  expect(report.totals.calls).toBe(seen.size);
  expect(t.inputTokens).toBe(sum('input_tokens'));
  expect(t.cacheWriteTokens).toBe(sum('cache_creation_input_tokens'));
  expect(t.cacheReadTokens).toBe(sum('cache_read_input_tokens'));
  expect(t.outputTokens).toBe(sum('output_tokens'));
});
