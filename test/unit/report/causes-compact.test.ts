/**
 * Claude Code's partial compaction (preservedSegment) and microcompact-cleared attachments, on the
 * self-made sessions of test/fixtures/report-causes (usage from generate.mjs's own model of the API).
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

const DIR = resolve('test/fixtures/report-causes');

interface Line {
  type: string;
  uuid?: string;
  subtype?: string;
  isCompactSummary?: boolean;
  compactMetadata?: { preservedSegment?: { headUuid: string; tailUuid: string } };
  microcompactMetadata?: { clearedAttachmentUUIDs?: string[] };
  message?: { id?: string; content: unknown; usage?: { input_tokens: number; output_tokens: number } };
}

function load(file: string, model: string) {
  const text = readFileSync(`${DIR}/${file}`, 'utf8');
  const lines = text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);
  const imp = parseTranscript(text, file);
  const rec = readRecorded(text, new Set());
  const byId = new Map<string, RecordedCall>(rec.conversations[0].calls.map((c) => [c.key.split('|')[0], c]));
  const fit = fitNone(imp, model, byId, undefined, rec.conversations[0].events);
  const row = reportFile(file, text, new Set(), { strategies: ['default'], config: {} }).rows[0];
  return { text, lines, imp, fit, row };
}

/** The text of a line's first content block (or its string content). */
const textOf = (l: Line): string => {
  const c = l.message?.content;
  if (typeof c === 'string') return c;
  const b = (c as { type: string; text?: string; content?: string; id?: string }[])[0];
  return b.text ?? b.content ?? b.id ?? '';
};

describe('partial compaction (compactMetadata.preservedSegment)', () => {
  const { lines, imp, fit, row } = load('partial-compaction.jsonl', 'claude-opus-4-6');
  const boundary = lines.findIndex((l) => l.subtype === 'compact_boundary');
  const seg = lines[boundary].compactMetadata!.preservedSegment!;
  const head = lines.findIndex((l) => l.uuid === seg.headUuid);
  const tail = lines.findIndex((l) => l.uuid === seg.tailUuid);
  const kept = lines.slice(head, tail + 1).filter((l) => l.message);
  const first = imp.calls.findIndex((c) => c.epochStart > 0);

  it('sends summary, then the kept messages, then the new ones after the boundary', () => {
    expect(head).toBeGreaterThan(0);
    expect(tail).toBeLessThan(boundary);
    const sent = requestMessages(imp.messages, imp.calls[first]);
    const texts = sent.flatMap((m) => m.blocks.map((b) => JSON.stringify(b.param)));
    expect(sent[0].meta.compactBoundary).toBe(true);
    expect(
      sent[0].blocks[0].param.type === 'text' &&
        sent[0].blocks[0].param.text.startsWith('This session is being continued'),
    ).toBe(true);
    // Every kept line's content is in the request, in file order, before the first new prompt.
    let at = 0;
    for (const l of kept) {
      const i = texts.findIndex((t, k) => k >= at && t.includes(JSON.stringify(textOf(l)).slice(1, -1).slice(0, 60)));
      expect(i).toBeGreaterThanOrEqual(at);
      at = i;
    }
    const prompt = texts.findIndex((t) => t.includes('and the docs'));
    expect(prompt).toBeGreaterThan(at);
    expect(imp.issues).toEqual([]);
  });

  it('counts each response once: the copies are no calls and carry no usage', () => {
    expectCopiesCountedOnce(lines, imp, row.calls);
  });

  it('sizes the summary as a summary, not as summary + kept messages, and none stays within ±5% of the bill', () => {
    const summary = fit.messages[imp.calls[first].epochStart];
    const summaryTokens = summary.blocks
      .filter(
        (b) =>
          !imp.messages[imp.calls[first].epochStart].blocks.find(
            (l) => l.id === b.logId && l.param.type === 'text' && l.param.text.includes('now update the callers'),
          ),
      )
      .reduce((a, b) => a + b.tokens, 0);
    const keptTokens = requestMessages(fit.messages, imp.calls[first])
      .slice(1)
      .reduce((a, m) => a + m.blocks.reduce((x, b) => x + b.tokens, 0), 0);
    expect(summaryTokens).toBeLessThan(keptTokens / 4);
    expect(Math.abs(fit.costError!)).toBeLessThanOrEqual(ANCHOR_TOLERANCE);
    expect(row.fit.status).toBe('anchored');
  });
});

describe('microcompact that clears attachments (clearedAttachmentUUIDs)', () => {
  const { lines, imp, fit, row } = load('microcompact-attachments.jsonl', 'claude-opus-4-5-20251101');
  const cleared = lines.find((l) => l.subtype === 'microcompact_boundary')!.microcompactMetadata!
    .clearedAttachmentUUIDs!;

  it('holds the cleared attachments as blocks and clears them from the call after the boundary', () => {
    expect(cleared.length).toBe(2);
    for (const u of cleared) expect(imp.attachmentBlocks?.get(u)).toBeDefined();
    expect(fit.microcompacts).toHaveLength(1);
    const m = fit.microcompacts[0];
    expect(m.attachments).toBe(2);
    expect(m.attachmentsFollowed).toBe(2);
    for (const u of cleared) {
      expect(fit.contexts[m.call].cleared?.has(imp.attachmentBlocks!.get(u)!)).toBe(true);
      expect(fit.contexts[m.call - 1].cleared).toBeUndefined();
    }
    expect(row.fit.notes.some((n) => n.includes('2 attachment(s)'))).toBe(true);
  });

  it('follows the recording without a rescaled history and is within ±5% of the bill', () => {
    expect(fit.rewrites).toEqual([]);
    expect(Math.abs(fit.costError!)).toBeLessThanOrEqual(ANCHOR_TOLERANCE);
    expect(row.fit.status).toBe('anchored');
  });

  it('imports no other attachment record', () => {
    const other = lines.filter((l) => l.type === 'attachment' && !cleared.includes(l.uuid!)).length;
    const attachmentBlocks = imp.messages
      .flatMap((m) => m.blocks)
      .filter((b) => b.param.type === 'text' && b.param.text.startsWith('<system-reminder>')).length;
    expect(attachmentBlocks).toBe(cleared.length);
    expect(other + cleared.length).toBe(lines.filter((l) => l.type === 'attachment').length);
  });
});
