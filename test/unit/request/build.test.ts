import { describe, expect, it, vi } from 'vitest';
import { RequestBuilder, RequestRefusedError } from '../../../src/core/request/build';
import { RESULT_NOT_RECORDED, UNANSWERED_RESULT_TEXT } from '../../../src/core/request/assemble';
import { INTERRUPTED_NOTE } from '../../../src/core/request/render';
import { validateRequest } from '../../../src/core/request/validate';
import { applyTrim, type Session } from '../../../src/core/session/session';
import { charsAccountant, result, sessionOf, text, thinking, use, type Spec } from './helpers';

const MODEL = 'claude-sonnet-4-5';
const build = (s: Session, extra: Partial<Parameters<RequestBuilder['build']>[1]> = {}) =>
  new RequestBuilder().build(s, { model: MODEL, maxTokens: 1000, ...extra });
const common = { author: 'strategy:test' as const, reason: 'test', callIndex: 0, tokensBefore: 10, tokensAfter: 1 };
const rules = (r: { repairs: readonly { rule: string }[] }): string[] => r.repairs.map((x) => x.rule);

/** u0 a1(use t1) u2(result t1) a3(use t2,t3) u4(results) a5 u6 */
function toolSession(): Session {
  return sessionOf([
    ['user', 'Fix the bug in a.ts'],
    ['assistant', [text('Reading.'), use('toolu_1')]],
    ['user', [result('toolu_1', 'contents of a.ts')]],
    ['assistant', [use('toolu_2', 'grep', { q: 'x', flags: ['-n'] }), use('toolu_3')]],
    ['user', [result('toolu_2', 'grep output'), result('toolu_3', 'b.ts contents'), text('also check c.ts')]],
    ['assistant', [text('Fixed it.')]],
    ['user', 'Thanks. Now the tests.'],
  ]);
}

describe('RequestBuilder round trip', () => {
  it('sends the log verbatim when there are no overlays (same objects, same bytes)', () => {
    const s = toolSession();
    const r = build(s);
    expect(r.repairs).toEqual([]);
    expect(r.body.messages).toHaveLength(7);
    r.body.messages.forEach((m, i) => {
      const content = m.content as object[];
      s.messages[i].blocks.forEach((b, j) => {
        expect(content[j]).toBe(b.param);
        expect(r.blockMap.idAt(i, j)).toBe(b.id);
        expect(r.blockMap.positionOf(b.id)).toEqual({ messageIndex: i, blockIndex: j });
      });
    });
    expect(JSON.stringify(r.body.messages)).toBe(
      JSON.stringify(s.messages.map((m) => ({ role: m.role, content: m.blocks.map((b) => b.param) }))),
    );
    expect(validateRequest(r.body)).toEqual([]);
  });

  it('applies trim, prune, summary and pin overlays; verbatim blocks keep their bytes', () => {
    const s = sessionOf([
      ['user', 'task'],
      ['assistant', [text('step 1'), use('toolu_1')]],
      ['user', [result('toolu_1', 'long output '.repeat(50))]],
      ['assistant', [text('step 2'), use('toolu_2')]],
      ['user', [result('toolu_2', 'more output')]],
      ['assistant', [text('step 3'), use('toolu_3')]],
      ['user', [result('toolu_3', 'pinned output')]],
      ['assistant', 'done'],
      ['user', 'next'],
    ]);
    s.addOverlay({ ...common, kind: 'trim', blockId: 'm2.0', text: '[trimmed]' });
    s.addOverlay({ ...common, kind: 'prune', messageId: 'm3', blockId: 'm3.0' });
    s.addOverlay({ ...common, kind: 'pin', blockId: 'm6.0', author: 'user' });
    s.addOverlay({ ...common, kind: 'summary', fromMessageId: 'm5', toMessageId: 'm6', text: 'ignored: a pin wins' });
    const r = build(s);
    expect(validateRequest(r.body)).toEqual([]);
    expect(r.body.messages[2].content).toEqual([applyTrim(s.block('m2.0')!.param, '[trimmed]')]);
    expect(r.body.messages[3].content).toEqual([s.block('m3.1')!.param]);
    expect(r.blockMap.positionOf('m3.0')).toBeUndefined();
    expect(r.blockMap.positionOf('m6.0')).toEqual({ messageIndex: 6, blockIndex: 0 });
    for (const id of ['m0.0', 'm1.0', 'm1.1', 'm3.1', 'm4.0', 'm5.0', 'm5.1', 'm6.0', 'm7.0', 'm8.0']) {
      const at = r.blockMap.positionOf(id)!;
      expect(JSON.stringify((r.body.messages[at.messageIndex].content as object[])[at.blockIndex])).toBe(
        JSON.stringify(s.block(id)!.param),
      );
    }

    s.addOverlay({ ...common, kind: 'summary', fromMessageId: 'm1', toMessageId: 'm4', text: 'Read a.ts and b.ts.' });
    const r2 = build(s);
    expect(validateRequest(r2.body)).toEqual([]);
    expect(r2.body.messages[0].content).toEqual([text('task'), text('<summary>\nRead a.ts and b.ts.\n</summary>')]);
    expect(r2.blockMap.idAt(0, 1)).toMatch(/^summary:/);
    expect(rules(r2)).toContain('merge-same-role');
    expect(r2.body.messages[1].content).toEqual(s.messages[5].blocks.map((b) => b.param));
  });

  it('emits the summary when the window starts inside its range', () => {
    const s = sessionOf([
      ['user', 'a'],
      ['assistant', 'b'],
      ['user', 'c'],
      ['assistant', 'd'],
      ['user', 'e'],
    ]);
    // By the user: a strategy's summary over the user's words would be inactive (session/user-text.ts).
    s.addOverlay({ ...common, author: 'user', kind: 'summary', fromMessageId: 'm0', toMessageId: 'm2', text: 'S' });
    const r = build(s, { from: 1 });
    expect(r.body.messages.map((m) => m.content)).toEqual([
      [text('<summary>\nS\n</summary>')],
      [text('d')],
      [text('e')],
    ]);
  });

  it('starts at the last compact boundary by default', () => {
    const s = sessionOf([
      ['user', 'old'],
      ['assistant', 'old reply'],
      ['user', 'Summary of before', { compactBoundary: true }],
      ['assistant', 'ok'],
      ['user', 'go'],
    ]);
    const r = build(s);
    expect(r.from).toBe(2);
    expect(r.body.messages).toHaveLength(3);
    expect(build(s, { upTo: 2 }).from).toBe(0);
  });
});

describe('RequestBuilder repairs', () => {
  it('drops a tool_use whose result was pruned, together with the result', () => {
    const s = toolSession();
    s.addOverlay({ ...common, kind: 'prune', messageId: 'm2', blockId: 'm2.0' });
    const r = build(s);
    expect(r.repairs).toContainEqual({
      rule: 'tool-use-without-result',
      description: expect.any(String),
      blockIds: ['m1.1', 'm2.0'],
    });
    // m2 became empty: m1 (text only) and m3 are merged.
    expect(rules(r)).toContain('merge-same-role');
    expect(r.body.messages[1].content).toEqual([text('Reading.'), ...s.messages[3].blocks.map((b) => b.param)]);
  });

  it('drops an orphaned result with its (pruned) call', () => {
    const s = toolSession();
    s.addOverlay({ ...common, kind: 'prune', messageId: 'm3', blockId: 'm3.1' });
    const r = build(s);
    expect(r.repairs).toContainEqual({
      rule: 'orphan-tool-result',
      description: expect.any(String),
      blockIds: ['m4.1', 'm3.1'],
    });
    expect(r.blockMap.positionOf('m4.0')).toBeDefined();
  });

  it('a pruned assistant message: its results go, the two user messages merge', () => {
    const s = toolSession();
    s.addOverlay({ ...common, kind: 'prune', messageId: 'm3' });
    const r = build(s);
    expect(rules(r)).toEqual(['merge-same-role', 'orphan-tool-result', 'orphan-tool-result']);
    expect(r.body.messages[2].content).toEqual([result('toolu_1', 'contents of a.ts'), text('also check c.ts')]);
  });

  it('interrupted assistant: tool uses and thinking dropped, text marked', () => {
    const s = sessionOf([
      ['user', 'go'],
      ['assistant', [thinking('hmm'), text('Let me'), use('toolu_9')], { interrupted: true }],
      ['user', [result('toolu_9', 'cancelled'), text('stop, do X instead')]],
    ]);
    const r = build(s);
    expect(r.body.messages[1].content).toEqual([text('Let me'), text(INTERRUPTED_NOTE)]);
    expect(r.body.messages[2].content).toEqual([text('stop, do X instead')]);
    expect(r.repairs.find((x) => x.rule === 'interrupted-assistant')?.blockIds).toEqual(['m1.0', 'm1.2', 'm1.1']);
    expect(rules(r)).toContain('orphan-tool-result');
  });

  it("Cline-style answers in text: the output becomes the call's tool_result (as Cline sends it), other calls get a synthesized one", () => {
    const s = sessionOf([
      ['user', 'go'],
      ['assistant', [text('reading'), use('toolu_c1'), use('toolu_c2')]],
      [
        'user',
        [text('[read_file] Result:'), text('file body'), text('<feedback>\nsmaller steps\n</feedback>')],
        { unansweredToolUses: true },
      ],
    ]);
    const r = build(s);
    expect(r.body.messages[2].content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_c1', content: [text('[read_file] Result:'), text('file body')] },
      { type: 'tool_result', tool_use_id: 'toolu_c2', content: UNANSWERED_RESULT_TEXT },
      text('<feedback>\nsmaller steps\n</feedback>'),
    ]);
    expect(r.blockMap.idAt(2, 0)).toBe('m2.0');
    expect(r.blockMap.idAt(2, 1)).toBe('synthetic-result:toolu_c2');
    expect(rules(r)).toEqual(['text-result-as-tool-result', 'unanswered-tool-use']);
  });

  it('a call answered by one text block (Cline 3.3x) gets it as its tool_result, by the tool it names', () => {
    const s = sessionOf([
      ['user', 'go'],
      ['assistant', [text('reading'), { type: 'tool_use', id: 'toolu_r', name: 'read_file', input: { path: 'a.ts' } }]],
      [
        'user',
        [
          text("[read_file for 'a.ts'] Result:\nconst a = 1;"),
          text('<environment_details>\nx\n</environment_details>'),
        ],
      ],
    ]);
    const r = build(s);
    expect(r.body.messages[2].content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_r', content: "[read_file for 'a.ts'] Result:\nconst a = 1;" },
      text('<environment_details>\nx\n</environment_details>'),
    ]);
  });

  it('a result the transcript never recorded: the call and its thinking stay, a synthetic is_error result answers it', () => {
    // c76e5be5's shape: the result line is unparseable, the next response follows directly.
    const s = sessionOf([
      ['user', 'go'],
      ['assistant', [thinking('a'), use('toolu_lost')]],
      ['assistant', [thinking('b'), text('moving on'), use('toolu_2')]],
      ['user', [result('toolu_2')]],
    ]);
    const lost = { type: 'tool_result', tool_use_id: 'toolu_lost', content: RESULT_NOT_RECORDED, is_error: true };
    const upToSecond = build(s, { upTo: 2 });
    expect(upToSecond.body.messages).toEqual([
      { role: 'user', content: [text('go')] },
      { role: 'assistant', content: [thinking('a'), use('toolu_lost')] },
      { role: 'user', content: [lost] },
    ]);
    expect(rules(upToSecond)).toEqual(['lost-tool-result']);
    const r = build(s);
    expect(r.body.messages.map((m) => m.content)).toEqual([
      [text('go')],
      [thinking('a'), use('toolu_lost')],
      [lost],
      [thinking('b'), text('moving on'), use('toolu_2')],
      [result('toolu_2')],
    ]);
    expect(r.blockMap.idAt(2, 0)).toBe('synthetic-result:toolu_lost');
  });

  it('a result whose call was never recorded becomes text in its user message', () => {
    const s = sessionOf([
      ['user', 'go'],
      ['assistant', 'ok'],
      ['user', [{ ...result('toolu_ghost', 'the output'), is_error: true }, text('and then?')]],
    ]);
    const r = build(s);
    expect(r.body.messages[2].content).toEqual([
      text(`[Result of tool call toolu_ghost (error), whose call is not in this conversation]\nthe output`),
      text('and then?'),
    ]);
    expect(rules(r)).toEqual(['orphan-result-as-text']);
  });

  it('a response recorded twice is sent once; two different responses never share thinking', () => {
    const twice = sessionOf([
      ['user', 'go'],
      ['assistant', [thinking('t'), text('hi')]],
      ['assistant', [thinking('t'), text('hi')]],
      ['user', 'next'],
    ]);
    const r = build(twice);
    expect(r.body.messages.map((m) => m.content)).toEqual([[text('go')], [thinking('t'), text('hi')], [text('next')]]);
    expect(rules(r)).toEqual(['duplicate-response']);
    const two = sessionOf([
      ['user', 'go'],
      ['assistant', [thinking('t1'), text('one')]],
      ['assistant', [thinking('t2'), text('two')]],
      ['user', 'next'],
    ]);
    const m = build(two);
    expect(m.body.messages[1].content).toEqual([thinking('t2'), text('one'), text('two')]);
    expect(rules(m)).toContain('merged-thinking-dropped');
  });

  it('a thinking-only response in the history is sent as recorded (the API accepts it there)', () => {
    // ff59cfd2: the model thought and ended its turn without text; Claude Code sent that message back.
    const s = sessionOf([
      ['user', 'go'],
      ['assistant', [thinking('all done')]],
      ['user', 'next'],
    ]);
    const r = build(s);
    expect(r.body.messages[1].content).toEqual([thinking('all done')]);
    expect(rules(r)).toEqual([]);
    // As the last message it would be a prefill: dropped, the request ends with the user.
    expect(build(s, { upTo: 2 }).body.messages).toEqual([{ role: 'user', content: [text('go')] }]);
  });

  it('moves tool_results before text', () => {
    const s = sessionOf([
      ['user', 'go'],
      ['assistant', [use('toolu_1')]],
      ['user', [text('note'), result('toolu_1')]],
    ]);
    const r = build(s);
    expect(r.body.messages[2].content).toEqual([result('toolu_1'), text('note')]);
    expect(r.repairs).toContainEqual({
      rule: 'tool-results-first',
      description: expect.any(String),
      blockIds: ['m2.1'],
    });
  });

  it('drops a leading assistant message and the results of its calls', () => {
    const s = toolSession();
    const r = build(s, { from: 1 });
    expect(rules(r).slice(0, 2)).toEqual(['leading-assistant', 'orphan-tool-result']);
    expect(r.body.messages[0].role).toBe('user');
    expect(r.body.messages[0].content).toEqual(
      s.messages[4].blocks.map((b) => b.param).filter((b) => b.type === 'text'),
    );
  });

  it('drops a trailing assistant message on every model: the request ends with a user message (no prefill)', () => {
    const s = sessionOf([
      ['user', 'go'],
      ['assistant', 'partial answer \n'],
    ]);
    for (const model of ['claude-opus-4-6', 'claude-sonnet-4-5']) {
      const r = build(s, { model });
      expect(r.body.messages).toEqual([{ role: 'user', content: [text('go')] }]);
      expect(rules(r)).toEqual(['trailing-assistant']);
    }
  });

  it('drops empty and whitespace-only text, and blank text nested in tool results', () => {
    const s = sessionOf([
      ['user', [text('  '), text('real')]],
      ['assistant', [text(''), use('toolu_1')]],
      ['user', [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [text(' '), text('out')] }]],
    ]);
    const r = build(s);
    expect(r.body.messages.map((m) => m.content)).toEqual([
      [text('real')],
      [use('toolu_1')],
      [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [text('out')] }],
    ]);
    expect(rules(r)).toEqual(['empty-text', 'empty-text', 'empty-text']);
  });

  it('drops a repeated tool_use id (and the result that would pair with it)', () => {
    const s = sessionOf([
      ['user', 'go'],
      ['assistant', [use('toolu_1')]],
      ['user', [result('toolu_1')]],
      ['assistant', [text('again'), use('toolu_1')]],
      ['user', [result('toolu_1'), text('hm')]],
    ]);
    const r = build(s);
    expect(rules(r)).toEqual(['duplicate-tool-use', 'orphan-tool-result']);
    expect(validateRequest(r.body)).toEqual([]);
  });

  it('drops tool blocks in the wrong role', () => {
    const s = sessionOf([
      ['user', [text('a'), use('toolu_x')]],
      ['assistant', [text('b'), result('toolu_y')]],
      ['user', 'c'],
    ]);
    expect(rules(build(s))).toEqual(['misplaced-tool-block', 'misplaced-tool-block']);
  });

  it('strategies never touch the assistant message a tool loop continues; older pruned thinking stays out', () => {
    const s = sessionOf([
      ['user', 'go'],
      ['assistant', [thinking('old'), text('first')]],
      ['user', 'more'],
      ['assistant', [thinking('new'), text('reading'), use('toolu_1')]],
      ['user', [result('toolu_1')]],
    ]);
    s.addOverlay({ ...common, kind: 'prune', messageId: 'm1', blockId: 'm1.0' });
    s.addOverlay({ ...common, kind: 'prune', messageId: 'm3', blockId: 'm3.0' });
    s.addOverlay({ ...common, kind: 'prune', messageId: 'm3', blockId: 'm3.1' });
    s.addOverlay({ ...common, kind: 'trim', blockId: 'm3.2', text: '{"path":"…"}' });
    const r = build(s, { extra: { thinking: { type: 'enabled', budget_tokens: 2000 } } });
    expect(r.body.messages[1].content).toEqual([text('first')]);
    expect(r.body.messages[3].content).toEqual(s.messages[3].blocks.map((b) => b.param));
    expect((r.body.messages[3].content as object[])[0]).toBe(s.block('m3.0')!.param);
    expect(r.body.thinking).toEqual({ type: 'enabled', budget_tokens: 2000 });
    // The session's view agrees (inspector rows, token counts): no strategy state on it.
    expect(s.loopHeadPosition).toBe(3);
    expect(s.resolveMessage(3).blocks.map((b) => b.state)).toEqual(['verbatim', 'verbatim', 'verbatim']);
    // The user's own trim still applies there (only strategies are kept out).
    s.addOverlay({ ...common, author: 'user', kind: 'trim', blockId: 'm3.1', text: 'read it' });
    expect(build(s).body.messages[3].content).toEqual([thinking('new'), text('read it'), use('toolu_1')]);
    // Once the loop moves on, the message is an older turn: the strategy's overlays apply again.
    s.append('assistant', [text('done')], {}, 'm5');
    s.append('user', 'next', {}, 'm6');
    expect(s.loopHeadPosition).toBe(-1);
    expect(build(s).body.messages[3].content).toEqual([
      use('toolu_1', 'read', JSON.parse('{"path":"…"}') as Record<string, unknown>),
    ]);
  });

  it('the latest assistant message keeps its thinking verbatim even when a strategy pruned it (a new prompt follows)', () => {
    const s = sessionOf([
      ['user', 'go'],
      ['assistant', [thinking('plan'), text('done')]],
      ['user', 'next'],
    ]);
    s.addOverlay({ ...common, kind: 'prune', messageId: 'm1', blockId: 'm1.0' });
    const r = build(s);
    expect(r.body.messages[1].content).toEqual([thinking('plan'), text('done')]);
    expect(r.repairs).toContainEqual({
      rule: 'latest-thinking-kept',
      description: expect.any(String),
      blockIds: ['m1.0'],
    });
  });

  it('thinking stays first when a merge puts other blocks in front of the latest turn', () => {
    const s = sessionOf([
      ['user', 'go'],
      ['assistant', 'one'],
      ['user', 'pruned'],
      ['assistant', [thinking('t'), text('two')]],
      ['user', 'ok'],
    ]);
    // Pruned by the user: a strategy may not prune the user's words.
    s.addOverlay({ ...common, author: 'user', kind: 'prune', messageId: 'm2' });
    const r = build(s);
    expect(r.body.messages[1].content).toEqual([thinking('t'), text('one'), text('two')]);
    expect(rules(r)).toEqual(['merge-same-role', 'latest-thinking-first']);
    const s2 = sessionOf([
      ['user', 'go'],
      ['assistant', 'one'],
      ['user', 'pruned'],
      ['assistant', [thinking('t'), text('two')]],
      ['user', 'ok'],
      ['assistant', 'three'],
      ['user', 'end'],
    ]);
    s2.addOverlay({ ...common, author: 'user', kind: 'prune', messageId: 'm2' });
    const r2 = build(s2);
    expect(r2.body.messages[1].content).toEqual([text('one'), text('two')]);
    expect(rules(r2)).toEqual(['merge-same-role', 'older-thinking-dropped']);
  });

  it('refuses (never returns) a body it cannot make valid', () => {
    const specs: Spec[] = [];
    for (let i = 0; i < 100_002; i++) specs.push([i % 2 ? 'assistant' : 'user', `m${i}`]);
    expect(() => build(sessionOf(specs))).toThrow(RequestRefusedError);
  }, 60_000);
});

describe('RequestBuilder caching and options', () => {
  it('re-renders only messages whose revision changed', () => {
    const s = toolSession();
    const b = new RequestBuilder();
    const spy = vi.spyOn(s, 'resolveMessage');
    const opts = { model: MODEL, maxTokens: 100 };
    const first = b.build(s, opts);
    expect(spy).toHaveBeenCalledTimes(7);
    const second = b.build(s, opts);
    expect(spy).toHaveBeenCalledTimes(7);
    expect(second.body.messages[3]).toBe(first.body.messages[3]);
    s.append('assistant', 'ok', {}, 'm7');
    s.append('user', 'more', {}, 'm8');
    b.build(s, opts);
    expect(spy).toHaveBeenCalledTimes(9);
    s.addOverlay({ ...common, kind: 'trim', blockId: 'm4.0', text: 'short' });
    b.build(s, opts);
    expect(spy).toHaveBeenCalledTimes(10);
  });

  it('passes system, tools and extra params; plans breakpoints when cacheTtl is set', () => {
    const s = toolSession();
    const tools = [
      {
        name: 'read',
        description: 'Read a file. '.repeat(400),
        input_schema: { type: 'object' as const, properties: {} },
      },
    ];
    const r = new RequestBuilder().build(s, {
      model: MODEL,
      maxTokens: 100,
      system: 'You are careful.',
      tools,
      cacheTtl: '5m',
      accountant: charsAccountant,
      extra: { metadata: { user_id: 'u1' } },
    });
    expect(r.body.metadata).toEqual({ user_id: 'u1' });
    expect(r.breakpoints.map((b) => b.at)).toEqual(['system', 'm6.0']);
    expect(r.body.system).toEqual([{ type: 'text', text: 'You are careful.', cache_control: { type: 'ephemeral' } }]);
    expect(s.block('m6.0')!.param).not.toHaveProperty('cache_control');
    expect(validateRequest(r.body)).toEqual([]);
  });
});
