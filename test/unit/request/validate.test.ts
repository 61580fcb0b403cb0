import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { MAX_MESSAGES, RULE, validateRequest } from '../../../src/core/request/validate';
import type { RequestBody } from '../../../src/core/api/wire';
import { bodyOf, result, text, thinking, use } from './helpers';

type Messages = RequestBody['messages'];
const msgs = (v: ReturnType<typeof validateRequest>): string[] => v.map((x) => x.message);

describe('validateRequest', () => {
  it('accepts a valid tool conversation', () => {
    const body = bodyOf([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [text('reading'), use('toolu_1'), use('toolu_2')] },
      { role: 'user', content: [result('toolu_1'), result('toolu_2'), text('go on')] },
      { role: 'assistant', content: 'done' },
      { role: 'user', content: 'thanks' },
    ]);
    expect(validateRequest(body)).toEqual([]);
  });

  it('first message must be user', () => {
    const v = validateRequest(
      bodyOf([
        { role: 'assistant', content: 'x' },
        { role: 'user', content: 'y' },
      ]),
    );
    expect(v[0]).toMatchObject({
      rule: RULE.firstUser,
      message: 'messages: first message must use the "user" role',
      messageIndex: 0,
    });
  });

  it('tool_use without result in the next message (exact API wording)', () => {
    const v = validateRequest(
      bodyOf([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [use('toolu_A'), use('toolu_B')] },
        { role: 'user', content: [result('toolu_A')] },
      ]),
    );
    expect(msgs(v)).toEqual([
      'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_B. Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
    ]);
    expect(v[0].rule).toBe(RULE.toolUseWithoutResult);
  });

  it('a result two messages later does not count', () => {
    const v = validateRequest(
      bodyOf([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [use('toolu_A')] },
        { role: 'user', content: 'wait' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: [result('toolu_A')] },
      ]),
    );
    expect(v.map((x) => x.rule).sort()).toEqual([RULE.toolUseWithoutResult, RULE.unexpectedToolResult].sort());
    expect(msgs(v)).toContain(
      'messages.4.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_A. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
    );
  });

  it('tool_results first, then text', () => {
    const v = validateRequest(
      bodyOf([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [use('toolu_1')] },
        { role: 'user', content: [text('here'), result('toolu_1')] },
      ]),
    );
    expect(v).toHaveLength(1);
    expect(v[0]).toMatchObject({
      rule: RULE.toolResultsFirst,
      message:
        'messages.2: Did not find 1 `tool_result` block(s) at the beginning of this message. Messages following `tool_use` blocks must begin with a matching number of `tool_result` blocks.',
    });
  });

  it('duplicate tool_use ids', () => {
    const v = validateRequest(
      bodyOf([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [use('toolu_1'), use('toolu_1')] },
        { role: 'user', content: [result('toolu_1')] },
      ]),
    );
    expect(v.find((x) => x.rule === RULE.duplicateToolUse)?.message).toBe(
      'messages.1.content.1: `tool_use` ids must be unique',
    );
  });

  it('duplicate tool_result for one call', () => {
    const v = validateRequest(
      bodyOf([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [use('toolu_1')] },
        { role: 'user', content: [result('toolu_1'), result('toolu_1')] },
      ]),
    );
    expect(v.map((x) => x.rule)).toEqual([RULE.duplicateToolResult]);
  });

  it('tool blocks in the wrong role', () => {
    const v = validateRequest(
      bodyOf([
        { role: 'user', content: [text('a'), use('toolu_1')] },
        { role: 'assistant', content: [result('toolu_1')] },
        { role: 'user', content: 'b' },
      ]),
    );
    expect(v.filter((x) => x.rule === RULE.toolBlockRole)).toHaveLength(2);
  });

  it('empty content, except an optional final assistant message', () => {
    const v = validateRequest(
      bodyOf([
        { role: 'user', content: [] },
        { role: 'assistant', content: 'a' },
        { role: 'user', content: 'b' },
      ]),
    );
    expect(msgs(v)).toEqual([
      'messages.0: all messages must have non-empty content except for the optional final assistant message',
    ]);
    const ok = validateRequest(
      bodyOf([
        { role: 'user', content: 'a' },
        { role: 'assistant', content: [] },
      ]),
    );
    expect(ok).toEqual([]);
  });

  it('empty and whitespace-only text blocks (also nested in tool results)', () => {
    const v = validateRequest(
      bodyOf([
        { role: 'user', content: [text(''), text('ok')] },
        { role: 'assistant', content: [text(' \n\t'), use('toolu_1')] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [text('  ')] }] },
      ]),
    );
    expect(v.map((x) => [x.rule, x.message, x.messageIndex, x.blockIndex])).toEqual([
      [RULE.emptyText, 'messages: text content blocks must be non-empty', 0, 0],
      [RULE.whitespaceText, 'messages: text content blocks must contain non-whitespace text', 1, 0],
      [RULE.whitespaceText, 'messages: text content blocks must contain non-whitespace text', 2, 0],
    ]);
  });

  it('final assistant content cannot end with trailing whitespace', () => {
    const v = validateRequest(
      bodyOf([
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'prefill ' },
      ]),
    );
    expect(msgs(v)).toEqual(['messages: final assistant content cannot end with trailing whitespace']);
  });

  it('at most 4 cache_control blocks, counted over tools, system, messages, nested and top-level', () => {
    const cc = { type: 'ephemeral' as const };
    const body = bodyOf(
      [
        { role: 'user', content: [{ ...text('a'), cache_control: cc }] },
        { role: 'assistant', content: [{ ...use('toolu_1'), cache_control: cc }] },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ ...text('r'), cache_control: cc }] }],
        },
      ],
      {
        system: [{ type: 'text', text: 'sys', cache_control: cc }],
        tools: [{ name: 't', input_schema: { type: 'object' }, cache_control: cc }],
      },
    );
    expect(msgs(validateRequest(body))).toEqual(['A maximum of 4 blocks with cache_control may be provided. Found 5.']);
    expect(msgs(validateRequest({ ...body, cache_control: cc }))).toEqual([
      'A maximum of 4 blocks with cache_control may be provided. Found 6.',
    ]);
  });

  it('cache_control not on thinking or empty text', () => {
    const cc = { type: 'ephemeral' as const };
    const cachedThinking = { ...thinking('t'), cache_control: cc };
    const v = validateRequest(
      bodyOf([
        { role: 'user', content: 'a' },
        { role: 'assistant', content: [cachedThinking, text('b')] },
        { role: 'user', content: [{ ...text(''), cache_control: cc }, text('x')] },
      ]),
    );
    expect(msgs(v)).toContain('messages.1.content.0.thinking.cache_control: Extra inputs are not permitted');
    expect(msgs(v)).toContain('cache_control cannot be set for empty text blocks');
  });

  it("a ttl='1h' breakpoint may not come after a 5m one (tools → system → messages; bare = 5m)", () => {
    const body = bodyOf(
      [{ role: 'user', content: [{ ...text('a'), cache_control: { type: 'ephemeral', ttl: '1h' } }] }],
      {
        system: [{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } }],
      },
    );
    expect(msgs(validateRequest(body))).toEqual([
      "messages.0.content.0.cache_control.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. Note that blocks are processed in the following order: `tools`, `system`, `messages`.",
    ]);
    const ok = bodyOf([{ role: 'user', content: [{ ...text('a'), cache_control: { type: 'ephemeral' } }] }], {
      system: [{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral', ttl: '1h' } }],
    });
    expect(validateRequest(ok)).toEqual([]);
  });

  it('Claude 4.6+ (incl. the 5 family) must end with a user message; older models may prefill', () => {
    const body = (model: string): RequestBody =>
      bodyOf(
        [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: 'b' },
        ],
        { model },
      );
    const prefill =
      'This model does not support assistant message prefill. The conversation must end with a user message.';
    for (const m of [
      'claude-opus-4-6',
      'claude-sonnet-4-6',
      'claude-opus-4-8',
      'claude-sonnet-5',
      'claude-opus-5',
      'claude-haiku-5-5',
    ]) {
      expect(msgs(validateRequest(body(m)))).toEqual([prefill]);
    }
    for (const m of ['claude-sonnet-4-5-20250929', 'claude-opus-4-1', 'claude-3-5-haiku-20241022'])
      expect(validateRequest(body(m))).toEqual([]);
    expect(msgs(validateRequest(body('claude-sonnet-4-5'), { model: 'claude-opus-4-7' }))).toEqual([prefill]);
  });

  it('consecutive same-role messages', () => {
    const v = validateRequest(
      bodyOf([
        { role: 'user', content: 'a' },
        { role: 'user', content: 'b' },
      ]),
    );
    expect(msgs(v)).toEqual([
      'messages: roles must alternate between "user" and "assistant", but found multiple "user" roles in a row',
    ]);
    expect(v[0].messageIndex).toBe(1);
  });

  it('at most 100,000 messages', () => {
    const many: Messages = [];
    for (let i = 0; i <= MAX_MESSAGES; i++) many.push({ role: i % 2 ? 'assistant' : 'user', content: 'x' });
    const v = validateRequest(bodyOf(many));
    expect(v.map((x) => x.rule)).toEqual([RULE.tooManyMessages]);
  });

  it('no messages', () => {
    expect(msgs(validateRequest(bodyOf([])))).toEqual(['messages: at least one message is required']);
  });

  it('thinking first in an assistant message that has thinking', () => {
    const v = validateRequest(
      bodyOf([
        { role: 'user', content: 'a' },
        { role: 'assistant', content: [text('x'), thinking('t'), text('y')] },
        { role: 'user', content: 'b' },
      ]),
    );
    expect(msgs(v)).toEqual([
      'messages.1.content.0: If an assistant message contains any thinking blocks, the first block must be thinking or redacted_thinking. Found text.',
    ]);
  });

  it('thinking rules from the API: loop head starts with thinking, no thinking tail, no prefill with thinking', () => {
    const loop = (head: Messages[number]['content']): RequestBody =>
      bodyOf([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: head },
        { role: 'user', content: [result('toolu_1')] },
      ]);
    const on = { thinking: true };
    expect(validateRequest(loop([thinking('t'), use('toolu_1')]), on)).toEqual([]);
    expect(validateRequest(loop([use('toolu_1')]))).toEqual([]);
    const v = validateRequest(loop([text('x'), use('toolu_1')]), on);
    expect(v.map((x) => x.rule)).toEqual([RULE.thinkingLoopStart]);
    expect(v[0].message).toBe(
      'messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`. When `thinking` is enabled, a final `assistant` message must start with a thinking block ' +
        '(preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`.',
    );
    // The body's own thinking param turns the rule on too.
    const withParam = { ...loop([use('toolu_1')]), thinking: { type: 'enabled' as const, budget_tokens: 1024 } };
    expect(validateRequest(withParam).map((x) => x.rule)).toEqual([RULE.thinkingLoopStart]);
    // A thinking-only response earlier in the history is accepted (Claude Code sent one: ff59cfd2, call 24)...
    expect(
      validateRequest(
        bodyOf([
          { role: 'user', content: 'a' },
          { role: 'assistant', content: [thinking('only')] },
          { role: 'user', content: 'b' },
        ]),
      ),
    ).toEqual([]);
    // ...a final assistant message ending with thinking is not.
    const tail = validateRequest(
      bodyOf([
        { role: 'user', content: 'a' },
        { role: 'assistant', content: [thinking('only')] },
      ]),
      { model: 'claude-sonnet-4-5', thinking: false },
    );
    expect(msgs(tail)).toContain('messages.1: The final block in an assistant message cannot be `thinking`.');
    const prefill = bodyOf([
      { role: 'user', content: 'a' },
      { role: 'assistant', content: [thinking('t'), text('so')] },
    ]);
    expect(validateRequest(prefill, { model: 'claude-sonnet-4-5', thinking: true }).map((x) => x.rule)).toEqual([
      RULE.thinkingPrefill,
    ]);
    expect(validateRequest(prefill, { model: 'claude-sonnet-4-5', thinking: false }).map((x) => x.rule)).toEqual([
      RULE.thinkingDisabledFinal,
    ]);
  });

  it('thinking of the latest assistant message kept intact', () => {
    const original = [thinking('plan'), { type: 'redacted_thinking' as const, data: 'xyz' }];
    const body = (content: Messages[number]['content']): RequestBody =>
      bodyOf([
        { role: 'user', content: 'a' },
        { role: 'assistant', content },
        { role: 'user', content: 'b' },
      ]);
    expect(validateRequest(body([...original, text('x')]), { latestAssistantThinking: original })).toEqual([]);
    const modified = validateRequest(body([thinking('plan!', 'sig-plan'), original[1], text('x')]), {
      latestAssistantThinking: original,
    });
    expect(msgs(modified)).toEqual([
      'messages.1.content.0: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.',
    ]);
    const dropped = validateRequest(body([original[0], text('x')]), { latestAssistantThinking: original });
    expect(dropped.map((x) => x.rule)).toEqual([RULE.thinkingModified]);
  });

  it('tolerates unknown block types', () => {
    const odd = { type: 'future_block', payload: 1 } as unknown as Anthropic.ContentBlockParam;
    const v = validateRequest(
      bodyOf([
        { role: 'user', content: 'a' },
        { role: 'assistant', content: [odd, text('b')] },
        { role: 'user', content: 'c' },
      ]),
    );
    expect(v).toEqual([]);
  });
});
