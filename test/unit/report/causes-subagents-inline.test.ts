/**
 * Claude Code 1.0.x wrote its subagents inline, without `agentId`: each Task's lines are a `parentUuid` chain of
 * their own, and parallel Tasks interleave (test/fixtures/report-causes/parallel-subagents-1.0.jsonl, NOTICE.md).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRecorded, sidechainText } from '../../../src/core/import/claude-code-usage';
import { reportFile } from '../../../src/core/report/session-report';
import { ANCHOR_TOLERANCE } from '../../../src/protocol/report-types';

const FILE = 'parallel-subagents-1.0.jsonl';
const text = readFileSync(resolve('test/fixtures/report-causes', FILE), 'utf8');

describe('subagents written inline without agentId (Claude Code 1.0.x), two Tasks in parallel', () => {
  const rec = readRecorded(text, new Set());
  const subagents = rec.conversations.filter((c) => c.sidechain);

  it('are a row each, named by the first line of their chain, every call billed once', () => {
    expect(subagents).toHaveLength(2);
    expect(new Set(subagents.map((c) => c.agentId)).size).toBe(2);
    for (const c of subagents) expect(c.calls).toHaveLength(9);
    const roots = text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { isSidechain?: boolean; parentUuid?: string | null; uuid: string })
      .filter((r) => r.isSidechain && r.parentUuid === null)
      .map((r) => r.uuid);
    expect(subagents.map((c) => c.agentId).sort()).toEqual(roots.sort());
    const keys = rec.conversations.flatMap((c) => c.calls.map((k) => k.key));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("each row replays its own chain's lines only", () => {
    for (const c of subagents) {
      const lines = sidechainText(text, c.agentId).split('\n');
      expect(lines).toHaveLength(text.split('\n').filter((l) => l.includes('"isSidechain":true')).length / 2);
    }
  });

  it('fits each subagent within ±5% of its bill (merged, they read as one history that shrinks)', () => {
    const rows = reportFile(FILE, text, new Set(), { strategies: [], config: {} }).rows.filter((r) => r.sidechain);
    expect(rows).toHaveLength(2);
    for (const r of rows) {
      expect(r.fit.status).toBe('anchored');
      expect(Math.abs(r.fit.error!)).toBeLessThanOrEqual(ANCHOR_TOLERANCE);
    }
  });
});
