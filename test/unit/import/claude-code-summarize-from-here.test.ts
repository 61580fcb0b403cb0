/**
 * "Summarize from here" on hand-built Claude Code lines: which messages are kept, in which order, where the epoch
 * starts.
 */
import { describe, expect, it } from 'vitest';
import { parseTranscript } from '../../../src/core/import';
import { requestMessages } from '../../../src/core/report/sizing';
import type { ImportedSession } from '../../../src/core/session/types';

type Rec = Record<string, unknown>;
const usage = { input_tokens: 10, output_tokens: 5 };
const u = (uuid: string, parentUuid: string | null, text: string, extra: Rec = {}): Rec => ({
  type: 'user',
  uuid,
  parentUuid,
  sessionId: 's',
  message: { role: 'user', content: text },
  ...extra,
});
const a = (uuid: string, parentUuid: string | null, text: string): Rec => ({
  type: 'assistant',
  uuid,
  parentUuid,
  sessionId: 's',
  message: { id: `msg_${uuid}`, role: 'assistant', model: 'claude-opus-4-6', content: [{ type: 'text', text }], usage },
});
const boundary = (uuid: string, logicalParentUuid: string, compactMetadata: Rec): Rec => ({
  type: 'system',
  subtype: 'compact_boundary',
  uuid,
  parentUuid: null,
  logicalParentUuid,
  sessionId: 's',
  compactMetadata: { trigger: 'manual', preTokens: 1000, ...compactMetadata },
});
const summary = (uuid: string, parentUuid: string, text: string): Rec =>
  u(uuid, parentUuid, text, { isCompactSummary: true });
const fromHere = { messagesSummarized: 2, userContext: 'keep it short' };

const texts = (imp: ImportedSession, call: number): string[] =>
  requestMessages(imp.messages, imp.calls[call]).map((m) =>
    m.blocks.map((b) => (b.param.type === 'text' ? b.param.text : b.param.type)).join('+'),
  );
const parse = (recs: Rec[]): ImportedSession =>
  parseTranscript(recs.map((r) => JSON.stringify(r)).join('\n') + '\n', 't.jsonl');

describe('"Summarize from here" (Claude Code importer)', () => {
  it('keeps the messages up to logicalParentUuid before the summary; a kept part ending on a user message is followed by the summary', () => {
    const imp = parse([
      u('u1', null, 'P1'),
      a('a1', 'u1', 'A1'),
      u('u2', 'a1', 'P2'),
      a('a2', 'u2', 'A2'),
      u('u3', 'a2', 'P3'),
      boundary('b', 'u2', fromHere),
      summary('s', 'b', 'S'),
      u('u4', 's', 'P4'),
      a('a4', 'u4', 'A4'),
    ]);
    expect(imp.issues).toEqual([]);
    expect(imp.calls.map((c) => c.apiMessageId)).toEqual(['msg_a1', 'msg_a2', 'msg_a4']);
    expect(texts(imp, 2)).toEqual(['P1', 'A1', 'P2', 'S+P4']);
    expect(requestMessages(imp.messages, imp.calls[2]).filter((m) => m.meta.compactBoundary)).toHaveLength(1);
  });

  it('after a partial compaction with a preserved segment, keeps summary → kept segment → new messages, in that order', () => {
    const imp = parse([
      u('u1', null, 'P1'),
      a('a1', 'u1', 'A1'),
      u('u2', 'a1', 'P2'),
      a('a2', 'u2', 'A2'),
      boundary('b1', 'a2', { preservedSegment: { headUuid: 'u2', anchorUuid: 's1', tailUuid: 'a2' } }),
      summary('s1', 'b1', 'S1'),
      u('u3', 'a2', 'P3'),
      a('a3', 'u3', 'A3'),
      u('u4', 'a3', 'P4'),
      a('a4', 'u4', 'A4'),
      boundary('b2', 'a3', fromHere),
      summary('s2', 'b2', 'S2'),
      u('u5', 's2', 'P5'),
      a('a5', 'u5', 'A5'),
    ]);
    expect(imp.issues).toEqual([]);
    expect(imp.calls.map((c) => c.apiMessageId)).toEqual(['msg_a1', 'msg_a2', 'msg_a3', 'msg_a4', 'msg_a5']);
    expect(texts(imp, 4)).toEqual(['S1+P2', 'A2', 'P3', 'A3', 'S2+P5']);
  });

  it('falls back on a loop in the kept chain', () => {
    const imp = parse([
      u('u1', 'a1', 'P1'),
      a('a1', 'u1', 'A1'),
      boundary('b', 'a1', fromHere),
      summary('s', 'b', 'S'),
      u('u2', 's', 'P2'),
      a('a2', 'u2', 'A2'),
    ]);
    expect(imp.issues.map((i) => i.message).filter((m) => m.includes('summarize from here'))).toHaveLength(1);
    expect(texts(imp, 1)).toEqual(['S+P2']);
  });
});
