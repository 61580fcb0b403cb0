/**
 * Claude Code's "Summarize from here" (a compact boundary with `messagesSummarized` / `userContext`, no
 * preservedSegment): the messages up to its logicalParentUuid stay, before the summary. Self-made session of
 * test/fixtures/report-causes (usage from generate.mjs's own model of the API).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTranscript } from '../../../src/core/import';
import { fitNone } from '../../../src/core/report/fit';
import { readRecorded } from '../../../src/core/import/claude-code-usage';
import type { RecordedCall } from '../../../src/core/import/recorded';
import { reportFile } from '../../../src/core/report/session-report';
import { requestMessages } from '../../../src/core/report/sizing';
import { ANCHOR_TOLERANCE } from '../../../src/protocol/report-types';
import { expectCopiesCountedOnce } from './copies-counted-once';

const FILE = 'summarize-from-here.jsonl';
const TEXT = readFileSync(resolve('test/fixtures/report-causes', FILE), 'utf8');

interface Line {
  type: string;
  uuid?: string;
  subtype?: string;
  logicalParentUuid?: string;
  isCompactSummary?: boolean;
  compactMetadata?: { messagesSummarized?: number; userContext?: string; preservedSegment?: unknown };
  message?: { id?: string; content: unknown; usage?: { input_tokens: number } };
}

const lines = TEXT.split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Line);
const boundary = lines.findIndex((l) => l.subtype === 'compact_boundary');
const lastKept = lines.findIndex((l) => l.uuid === lines[boundary].logicalParentUuid);

/** The text of a line's first content block (or its string content), its first 60 characters. */
function snippet(l: Line): string {
  const c = l.message?.content;
  const b =
    typeof c === 'string'
      ? c
      : ((c as { text?: string; content?: string; id?: string }[])[0].text ??
        (c as { content?: string }[])[0].content ??
        (c as { id?: string }[])[0].id ??
        '');
  return JSON.stringify(b).slice(1, 61);
}

describe('"Summarize from here" (messagesSummarized, userContext, logicalParentUuid = last kept message)', () => {
  const imp = parseTranscript(TEXT, FILE);
  const rec = readRecorded(TEXT, new Set());
  const byId = new Map<string, RecordedCall>(rec.conversations[0].calls.map((c) => [c.key.split('|')[0], c]));
  const fit = fitNone(imp, 'claude-opus-4-6', byId, undefined, rec.conversations[0].events);
  const row = reportFile(FILE, TEXT, new Set(), { strategies: ['default'], config: {} }).rows[0];
  const first = imp.calls.findIndex((c) => c.epochStart > 0);

  it('is the fixture it claims to be', () => {
    const meta = lines[boundary].compactMetadata!;
    expect(typeof meta.messagesSummarized).toBe('number');
    expect(typeof meta.userContext).toBe('string');
    expect(meta.preservedSegment).toBeUndefined();
    expect(lastKept).toBeGreaterThan(0);
    expect(lines[boundary + 1].isCompactSummary).toBe(true);
  });

  it('sends the kept messages, then the summary, then the new prompt after the boundary', () => {
    const sent = requestMessages(imp.messages, imp.calls[first]);
    const texts = sent.flatMap((m) => m.blocks.map((b) => JSON.stringify(b.param)));
    expect(sent[0].meta.compactBoundary).toBe(true);
    expect(sent.filter((m) => m.meta.compactBoundary)).toHaveLength(1);
    let at = -1;
    for (const l of lines.slice(0, lastKept + 1).filter((x) => x.message)) {
      const i = texts.findIndex((t, k) => k > at && t.includes(snippet(l)));
      expect(i).toBeGreaterThan(at);
      at = i;
    }
    // Nothing that was summarized is sent.
    for (const l of lines.slice(lastKept + 1, boundary).filter((x) => x.message))
      expect(texts.some((t) => t.includes(snippet(l)))).toBe(false);
    const summary = texts.findIndex((t) => t.includes('Summary of the later part'));
    expect(summary).toBe(at + 1);
    expect(texts.findIndex((t) => t.includes('and the error messages'))).toBeGreaterThan(summary);
    expect(imp.issues).toEqual([]);
  });

  it('counts each response once: the copies are no calls and carry no usage', () => {
    expectCopiesCountedOnce(lines, imp, row.calls);
  });

  it('sizes the summary as a summary, not as summary + kept messages, and stays within ±5% of the bill', () => {
    const sent = requestMessages(fit.messages, imp.calls[first]);
    const log = requestMessages(imp.messages, imp.calls[first]);
    const s = log.findIndex((m) =>
      m.blocks.some((b) => b.param.type === 'text' && b.param.text.includes('Summary of the later part')),
    );
    const summaryTokens = sent[s].blocks
      .filter((b) =>
        log[s].blocks.find(
          (l) => l.id === b.logId && l.param.type === 'text' && l.param.text.includes('Summary of the later part'),
        ),
      )
      .reduce((a, b) => a + b.tokens, 0);
    const keptTokens = sent.slice(0, s).reduce((a, m) => a + m.blocks.reduce((x, b) => x + b.tokens, 0), 0);
    expect(summaryTokens).toBeGreaterThan(1000);
    expect(summaryTokens).toBeLessThan(keptTokens / 4);
    expect(Math.abs(fit.costError!)).toBeLessThanOrEqual(ANCHOR_TOLERANCE);
    expect(row.fit.status).toBe('anchored');
  });
});

describe('"Summarize from here" whose kept messages cannot be followed', () => {
  it.each([
    ['a missing link', '"logicalParentUuid":"nowhere"'],
    ['no logicalParentUuid', '"logicalParentUuidGone":"x"'],
  ])('falls back to restarting at the summary and says so (%s)', (_, replacement) => {
    const broken = TEXT.replace(/"logicalParentUuid":"[^"]+"/, replacement);
    const imp = parseTranscript(broken, FILE);
    expect(imp.issues.filter((i) => i.message.includes('summarize from here'))).toHaveLength(1);
    expect(imp.messages.some((m) => m.meta.flags?.includes('preserved'))).toBe(false);
    const first = imp.calls.find((c) => c.epochStart > 0)!;
    const sent = requestMessages(imp.messages, first);
    expect(
      sent[0].blocks[0].param.type === 'text' && sent[0].blocks[0].param.text.includes('Summary of the later part'),
    ).toBe(true);
  });
});
