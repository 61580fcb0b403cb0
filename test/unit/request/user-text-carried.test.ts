/**
 * The validator's user-text rule (request/user-text-carried.ts): every protected block of
 * the history a request covers is carried verbatim in a user message, except where the
 * user changed their own words (their trim or prune, compression they started).
 */
import { describe, expect, it } from 'vitest';
import { RequestBuilder, RequestRefusedError } from '../../../src/core/request/build';
import { missingUserText, userTextRequired } from '../../../src/core/request/user-text-carried';
import { RULE, validateRequest } from '../../../src/core/request/validate';
import type { MessageParam } from '../../../src/core/session/types';
import { result, sessionOf, text, use } from './helpers';

const MODEL = 'claude-sonnet-4-5';
const base = { reason: 'test', callIndex: 0, tokensBefore: 10, tokensAfter: 1 };

/** u0 (reminder + task) a1(use) u2(result + typed note) a3 u4(prompt) */
function session() {
  return sessionOf([
    ['user', [text('<system-reminder>CLAUDE.md: use tabs</system-reminder>'), text('Fix the bug in a.ts')]],
    ['assistant', [text('Reading.'), use('toolu_1')]],
    ['user', [result('toolu_1', 'contents of a.ts'), text('also check c.ts')]],
    ['assistant', [text('Done.')]],
    ['user', 'Thanks. Now the tests.'],
  ]);
}

describe('userTextRequired', () => {
  it('is every text block of a user message in the range, not tool results', () => {
    const s = session();
    const required = userTextRequired(s, 0, s.messages.length).map((r) =>
      r.param.type === 'text' ? r.param.text : r.param.type,
    );
    expect(required).toEqual([
      '<system-reminder>CLAUDE.md: use tabs</system-reminder>',
      'Fix the bug in a.ts',
      'also check c.ts',
      'Thanks. Now the tests.',
    ]);
    expect(userTextRequired(s, 2, 4).map((r) => r.position)).toEqual([2]);
  });

  it("leaves out the user's own trims and prunes, but not a strategy's or the agent's (those are ignored on user text)", () => {
    const s = session();
    s.addOverlay({ ...base, author: 'user', kind: 'trim', blockId: 'm2.1', text: 'c.ts' });
    s.addOverlay({
      ...base,
      author: 'strategy:summarize-tool-results',
      kind: 'trim',
      blockId: 'm0.0',
      text: '[reminder]',
    });
    s.addOverlay({ ...base, author: 'agent', kind: 'prune', messageId: 'm4', blockId: 'm4.0' });
    const ids = userTextRequired(s, 0, s.messages.length).map((r) => r.param);
    expect(ids).toContain(s.block('m0.0')!.param);
    expect(ids).toContain(s.block('m4.0')!.param);
    expect(ids).not.toContain(s.block('m2.1')!.param);
  });
});

describe('validateRequest: user-text-lost', () => {
  it('passes a request built from the log (the builder checks it on every build)', () => {
    const s = session();
    s.addOverlay({
      ...base,
      author: 'strategy:summarize-tool-results',
      kind: 'prune',
      messageId: 'm0',
      blockId: 'm0.0',
    });
    const r = new RequestBuilder().build(s, { model: MODEL, maxTokens: 100, cacheTtl: '5m' });
    expect(r.body.messages[0].content).toHaveLength(2);
  });

  it('refuses a request that lost a block, naming where it came from', () => {
    const s = session();
    const required = userTextRequired(s, 0, s.messages.length);
    const body = new RequestBuilder().build(s, { model: MODEL, maxTokens: 100 }).body;
    const lost: MessageParam[] = body.messages.map((m, i) =>
      i === 2 ? ({ role: 'user', content: (m.content as object[]).slice(0, 1) } as MessageParam) : m,
    );
    const v = validateRequest({ ...body, messages: lost }, { userText: required });
    expect(v.map((x) => x.rule)).toEqual([RULE.userTextLost]);
    expect(v[0].message).toContain('history message 2');
    expect(v[0].message).toContain('also check c.ts');
  });

  it('finds a block by content when the request carries a copy (a breakpoint on it) or string content', () => {
    const s = session();
    const required = userTextRequired(s, 0, s.messages.length);
    const copies: MessageParam[] = s.messages.map((m) => ({
      role: m.role,
      content:
        m.role === 'user' && m.blocks.length === 1 && m.blocks[0].param.type === 'text'
          ? m.blocks[0].param.text
          : m.blocks.map((b) => ({ ...b.param, cache_control: { type: 'ephemeral' } })),
    })) as MessageParam[];
    expect(missingUserText(copies, required)).toEqual([]);
  });

  it('an image of the first message is carried by content too', () => {
    const image = {
      type: 'image' as const,
      source: { type: 'base64' as const, media_type: 'image/png' as const, data: 'iVBOR' },
    };
    const s = sessionOf([
      ['user', [image, text('what is this?')]],
      ['assistant', [text('A cat.')]],
      ['user', 'thanks'],
    ]);
    const required = userTextRequired(s, 0, 3);
    expect(required.map((r) => r.param.type)).toEqual(['image', 'text', 'text']);
    const copy: MessageParam[] = [
      { role: 'user', content: [{ ...image }, text('what is this?')] },
      { role: 'assistant', content: [text('A cat.')] },
      { role: 'user', content: 'thanks' },
    ];
    expect(missingUserText(copy, required)).toEqual([]);
    expect(missingUserText([copy[1], copy[2]], required).map((r) => r.param.type)).toEqual(['image', 'text']);
  });

  it('the builder refuses rather than send a request without the user text (fail closed)', () => {
    const s = session();
    // A summary by an automatic strategy over the user's words is inactive: the text goes out, no refusal.
    s.addOverlay({
      ...base,
      author: 'strategy:test',
      kind: 'summary',
      fromMessageId: 'm0',
      toMessageId: 'm2',
      text: 'summary',
    });
    expect(() => new RequestBuilder().build(s, { model: MODEL, maxTokens: 100 })).not.toThrow();
    // The same check on a body that lost them refuses, with the builder's error type.
    const err = new RequestRefusedError(
      validateRequest(
        { model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'Thanks. Now the tests.' }] },
        { userText: userTextRequired(s, 0, s.messages.length) },
      ),
      [],
    );
    expect(err.violations.map((x) => x.rule)).toEqual([RULE.userTextLost]);
    expect(err.violations[0].message).toContain('(and 2 more)');
  });
});
