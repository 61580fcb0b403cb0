import { describe, expect, it } from 'vitest';
import { Session } from '../../../src/core/session';
import { checkUserText } from '../../../src/core/request/user-text-check';
import { RequestBuilder } from '../../../src/core/request/build';
import { createPipeline } from '../../../src/core/trimming';
import { Harness, round } from '../trimming/helpers';

const REMINDERS = Array.from(
  { length: 8 },
  (_, i) => `<system-reminder>\nReminder ${i}: CLAUDE.md says run the tests before committing.\n</system-reminder>`,
);

function ccSession(): Session {
  const s = new Session();
  s.append('user', [
    ...REMINDERS.map((text) => ({ type: 'text' as const, text })),
    { type: 'text', text: 'Refactor the parser.' },
  ]);
  return s;
}

describe("the user's words are protected from automatic strategies", () => {
  it('marks every user text block and the first user message whole as protected, tool results not', () => {
    const s = ccSession();
    round(s, [{ name: 'Read', input: { file_path: 'a.ts' }, result: 'x'.repeat(500) }]);
    s.append('user', [{ type: 'text', text: 'hook: formatted 3 files' }]);
    for (const b of s.messages[0].blocks) expect(s.userText.reasonOf(b.id)).toMatch(/first user message/);
    expect(s.userText.reasonOf(s.messages[2].blocks[0].id)).toBeUndefined();
    expect(s.userText.reasonOf(s.messages[3].blocks[0].id)).toMatch(/user text/);
  });

  it('ignores a strategy prune or trim on user text, and a strategy summary over it is inactive', () => {
    const s = ccSession();
    round(s, [{ name: 'Read', input: { file_path: 'a.ts' }, result: 'x'.repeat(500) }]);
    const task = s.messages[0].blocks[8];
    s.addOverlay({
      kind: 'prune',
      messageId: s.messages[0].id,
      author: 'strategy:tool-pruning',
      reason: 'test',
      callIndex: 0,
      tokensBefore: 10,
      tokensAfter: 0,
    });
    s.addOverlay({
      kind: 'trim',
      blockId: task.id,
      text: 'short',
      author: 'strategy:summarize-tool-results',
      reason: 'test',
      callIndex: 0,
      tokensBefore: 10,
      tokensAfter: 1,
    });
    s.addOverlay({
      kind: 'summary',
      fromMessageId: s.messages[0].id,
      toMessageId: s.messages[2].id,
      text: 'gone',
      author: 'strategy:atomic-window',
      reason: 'test',
      callIndex: 0,
      tokensBefore: 10,
      tokensAfter: 1,
    });
    const r = s.resolveMessage(0);
    expect(r.summaryStart).toBeUndefined();
    expect(r.blocks.map((b) => b.state)).toEqual(Array(9).fill('verbatim'));
    expect(r.blocks[8].protectedReason).toBeDefined();
  });

  it('the user may trim their own words, and compression they started may summarize them', () => {
    const s = ccSession();
    round(s, [{ name: 'Read', input: { file_path: 'a.ts' }, result: 'x'.repeat(500) }]);
    s.addOverlay({
      kind: 'trim',
      blockId: s.messages[0].blocks[0].id,
      text: 'short',
      author: 'user',
      reason: 'test',
      callIndex: 0,
      tokensBefore: 10,
      tokensAfter: 1,
    });
    expect(s.resolveMessage(0).blocks[0].state).toBe('trimmed');
    s.addOverlay({
      kind: 'summary',
      fromMessageId: s.messages[0].id,
      toMessageId: s.messages[1].id,
      text: 'summary',
      author: 'strategy:whole-history',
      reason: 'test',
      callIndex: 0,
      tokensBefore: 10,
      tokensAfter: 1,
    });
    expect(s.resolveMessage(0).summaryStart?.text).toBe('summary');
  });

  it('default keeps every user text block verbatim in a long single-prompt loop with reminders on the results', () => {
    const s = ccSession();
    const h = new Harness(s, createPipeline('default'), 20_000);
    const builder = new RequestBuilder();
    for (let i = 0; i < 40; i++) {
      round(s, [{ name: 'Read', input: { file_path: `src/m${i}.ts` }, result: `line of src/m${i}.ts\n`.repeat(300) }]);
      if (i % 5 === 0)
        s.append('user', [{ type: 'text', text: `<system-reminder>\nTodo list changed (${i}).\n</system-reminder>` }]);
      h.run(i % 7 === 6 ? 10 * 60_000 : 2000);
      const body = builder.build(s, { model: 'claude-sonnet-4-5', maxTokens: 1000 }).body;
      const check = checkUserText(s.messages, 0, s.messages.length, body.messages);
      expect(check.missing).toEqual([]);
      expect(check.kept).toBe(check.needed);
    }
    // It did trim: the window (a small context here) and the summaries removed most of the reads.
    expect(h.states()).toContain('pruned');
  });
});
