import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CostLedger, replayAll } from '../../../src/core/engine';
import { importTranscript, parseTranscript } from '../../../src/core/import';
import type { ImportedSession, LogMessage } from '../../../src/core/session/types';
import { userTextRequired } from '../../../src/core/request/user-text-carried';
import { validateRequest } from '../../../src/core/request/validate';
import { pairing, refusedRequests, TRANSCRIPTS } from './helpers';

const MIT = path.join(TRANSCRIPTS, 'mit-samples');
const SWE_AGENT = path.join(MIT, 'sweagent_demo_function_calling_marshmallow-1867.traj');
const SWE_AGENT_0X = path.join(MIT, 'sweagent_gpt4_pydicom-1458.traj');
const MINI_SWE_AGENT = path.join(MIT, 'mini-swe-agent_github_issue.traj.json');
const OPENHANDS = path.join(MIT, 'openhands_basic_gui_mode.json');

const parse = (v: unknown, file = 'chat.json'): ImportedSession => parseTranscript(JSON.stringify(v), file);
const kinds = (m: LogMessage): string[] => m.blocks.map((b) => b.kind);
const call = (id: string, name: string, args: string): Record<string, unknown> => ({
  id,
  type: 'function',
  function: { name, arguments: args },
});

describe('OpenAI chat: the MIT samples', () => {
  it('SWE-agent .traj: system prompt, one call per assistant message, every tool call paired', () => {
    const s = importTranscript(SWE_AGENT);
    expect(s.format).toBe('openai-chat');
    expect(s.model).toBe('gpt-4o');
    expect(typeof s.system === 'string' && s.system.startsWith('SETTING: You are an autonomous programmer')).toBe(true);
    // 24 history entries: the system prompt, then 23 messages (user, 11 × assistant + tool).
    expect(s.messages).toHaveLength(23);
    expect(s.calls).toHaveLength(11);
    expect(s.calls.every((c) => c.usage === undefined && c.epochStart === 0)).toBe(true);
    expect(s.calls.map((c) => c.at)).toEqual([1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21]);
    // Function calling: the results are tool messages (tool_result blocks), so nothing is marked as an observation.
    expect(s.messages.some((m) => m.meta.observation || m.blocks.some((b) => b.observation))).toBe(false);
    expect(pairing(s)).toEqual({ uses: 11, answered: 11, orphans: 0 });
    expect(kinds(s.messages[1])).toEqual(['text', 'tool_use']);
    expect(s.messages[1].blocks[1].param).toEqual({
      type: 'tool_use',
      id: 'call_cyI71DYnRdoLHWwtZgIaW2wr',
      name: 'create',
      input: { filename: 'reproduce.py' },
    });
    expect(s.messages[2].blocks[0].toolName).toBe('create');
    expect(s.messages[1].meta.source).toBe('sweagent_demo_function_calling_marshmallow-1867.traj:history[2]');
    // The demonstration reuses call ids; the API needs them unique, so repeats get a suffix and are reported.
    const ids = s.messages.flatMap((m) => m.blocks.filter((b) => b.kind === 'tool_use').map((b) => b.toolUseId));
    expect(new Set(ids).size).toBe(11);
    expect(s.issues.map((i) => i.message)).toEqual([
      'history[8]: tool_calls[0]: call id call_5iDdbOYybq7L19vqXmR0DPaU already used by an earlier call: recorded as call_5iDdbOYybq7L19vqXmR0DPaU_2',
      'history[12]: tool_calls[0]: call id call_ahToD2vM0aQWJPkRmy5cumru already used by an earlier call: recorded as call_ahToD2vM0aQWJPkRmy5cumru_2',
      'history[14]: tool_calls[0]: call id call_q3VsBszvsntfyPkxeHq4i5N1 already used by an earlier call: recorded as call_q3VsBszvsntfyPkxeHq4i5N1_2',
      'history[18]: tool_calls[0]: call id call_5iDdbOYybq7L19vqXmR0DPaU already used by an earlier call: recorded as call_5iDdbOYybq7L19vqXmR0DPaU_3',
      'history[20]: tool_calls[0]: call id call_5iDdbOYybq7L19vqXmR0DPaU already used by an earlier call: recorded as call_5iDdbOYybq7L19vqXmR0DPaU_4',
    ]);
  });

  it('SWE-agent 0.x thought-action .traj: the demonstration and the task open the session, observations are marked', () => {
    const s = importTranscript(SWE_AGENT_0X);
    expect(s.format).toBe('openai-chat');
    expect(typeof s.system === 'string' && s.system.startsWith('SETTING: You are an autonomous programmer')).toBe(true);
    // history: system, the is_demo demonstration (role user), the task, then 12 assistant actions, the first 11
    // answered by an observation (role user).
    expect(s.calls).toHaveLength(12);
    expect(s.messages.map((m) => m.role)).toEqual(s.messages.map((_, i) => (i % 2 ? 'assistant' : 'user')));
    // The demonstration and the task are two consecutive user entries: one first message, two text blocks, in order.
    expect(kinds(s.messages[0])).toEqual(['text', 'text']);
    const first = s.messages[0].blocks.map((b) => (b.param as { text: string }).text);
    expect(first[0].startsWith('Here is a demonstration')).toBe(true);
    expect(first[1].startsWith("We're currently solving the following issue")).toBe(true);
    // No tool calls in this format: every observation is a user text block, marked as the environment's answer.
    expect(s.messages.every((m) => m.blocks.every((b) => b.kind === 'text'))).toBe(true);
    expect(s.messages[0].meta.observation).toBeUndefined();
    expect(s.messages[0].blocks.some((b) => b.observation)).toBe(false);
    const users = s.messages.filter((m) => m.role === 'user').slice(1);
    expect(users).toHaveLength(11);
    expect(users.every((m) => m.meta.observation === true && m.blocks.every((b) => b.observation === true))).toBe(true);
    expect(
      s.messages
        .filter((m) => m.role === 'assistant')
        .every((m) => !m.meta.observation && m.blocks.every((b) => !b.observation)),
    ).toBe(true);
    expect(s.issues).toEqual([]);
  });

  it('SWE-agent 0.x under default: every request valid, the first user message verbatim on every call, fewer tokens than none', () => {
    const s = importTranscript(SWE_AGENT_0X);
    const firstUser = s.messages[0].blocks.map((b) => b.param);
    const sent = (strategy: string): number => {
      let total = 0;
      replayAll(s, { strategy }, ({ call: c, prepared, engine }) => {
        const userText = userTextRequired(engine.session, c.epochStart, c.at);
        // The protected blocks of the history are the first user message's, nothing else.
        expect(userText.map((r) => r.param)).toEqual(firstUser);
        expect(validateRequest(prepared.body, { model: prepared.body.model, userText })).toEqual([]);
        const head = prepared.body.messages[0];
        expect(head.role).toBe('user');
        const headBlocks = typeof head.content === 'string' ? [{ type: 'text', text: head.content }] : head.content;
        expect(headBlocks.map((b) => (b.type === 'text' ? b.text : b.type))).toEqual(
          firstUser.map((b) => (b.type === 'text' ? b.text : b.type)),
        );
        total += engine.tokens.text(JSON.stringify(prepared.body.messages)).tokens;
      });
      return total;
    };
    expect(sent('default')).toBeLessThan(sent('none'));
  }, 60_000); // two replays of a long trajectory: seconds on a quiet machine, more on a shared one

  it('mini-swe-agent: plain text actions, alternating user and assistant, no issues', () => {
    const s = importTranscript(MINI_SWE_AGENT);
    expect(s.format).toBe('openai-chat');
    expect(s.model).toBeUndefined();
    expect(typeof s.system === 'string' && s.system.startsWith('You are a helpful assistant')).toBe(true);
    expect(s.messages).toHaveLength(21);
    expect(s.calls).toHaveLength(10);
    expect(s.messages.map((m) => m.role)).toEqual(s.messages.map((_, i) => (i % 2 ? 'assistant' : 'user')));
    expect(s.messages.every((m) => kinds(m).join() === 'text')).toBe(true);
    expect(s.messages[0].meta.source).toBe('mini-swe-agent_github_issue.traj.json:[1]');
    // The task is not marked; every later user message answers the action block before it.
    expect(s.messages[0].meta.observation).toBeUndefined();
    expect(
      s.messages
        .slice(1)
        .filter((m) => m.role === 'user')
        .every((m) => m.meta.observation === true && m.blocks.every((b) => b.observation)),
    ).toBe(true);
    expect(s.issues).toEqual([]);
  });

  it.each([
    ['SWE-agent', SWE_AGENT],
    ['SWE-agent 0.x', SWE_AGENT_0X],
    ['mini-swe-agent', MINI_SWE_AGENT],
    ['OpenHands', OPENHANDS],
  ])('%s replays through default and none with every request valid', (_name, file) => {
    const s = importTranscript(file);
    for (const strategy of ['default', 'none']) {
      const { requests, refused } = refusedRequests(s, strategy);
      expect(requests).toBe(s.calls.length);
      expect(refused).toEqual([]);
    }
  });
});

describe('OpenAI chat: shapes and edge cases', () => {
  it('content parts, null content with tool_calls, consecutive tool messages merged into one user message', () => {
    const s = parse([
      {
        role: 'system',
        content: [
          { type: 'text', text: 'Be brief.' },
          { type: 'text', text: 'Use tools.' },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Read ' },
          { type: 'text', text: 'both files.' },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [call('c1', 'read', '{"path":"a"}'), call('c2', 'read', '{"path":"b"}')],
      },
      {
        role: 'tool',
        tool_call_id: 'c2',
        content: [
          { type: 'text', text: 'B1' },
          { type: 'text', text: 'B2' },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'A' },
      { role: 'user', content: 'Summarise.' },
      { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
    ]);
    expect(s.format).toBe('openai-chat');
    expect(s.system).toBe('Be brief.\nUse tools.');
    expect(s.messages.map(kinds)).toEqual([
      ['text', 'text'],
      ['tool_use', 'tool_use'],
      ['tool_result', 'tool_result', 'text'],
      ['text'],
    ]);
    expect(s.messages[2].blocks.map((b) => b.param)).toEqual([
      { type: 'tool_result', tool_use_id: 'c2', content: 'B1\nB2' },
      { type: 'tool_result', tool_use_id: 'c1', content: 'A' },
      { type: 'text', text: 'Summarise.' },
    ]);
    expect(s.messages[2].meta.source).toBe('chat.json:[3]');
    expect(s.calls.map((c) => c.at)).toEqual([1, 3]);
    expect(s.issues).toEqual([]);
    expect(refusedRequests(s, 'default').refused).toEqual([]);
  });

  it('unparseable arguments are kept as {raw} and reported', () => {
    const s = parse({
      history: [
        { role: 'system', content: 's' },
        { role: 'user', content: 'go' },
        { role: 'assistant', content: 'Running.', tool_calls: [call('c1', 'bash', '{"command": "ls')] },
        { role: 'tool', tool_call_ids: ['c1'], content: 'a b' },
      ],
    });
    expect(s.messages[1].blocks[1].param).toEqual({
      type: 'tool_use',
      id: 'c1',
      name: 'bash',
      input: { raw: '{"command": "ls' },
    });
    expect(s.issues).toHaveLength(1);
    expect(s.issues[0].message).toMatch(
      /^history\[2\]: tool_calls\[0\] \(bash\): arguments are not valid JSON .*kept as \{"raw": …\}$/,
    );
    expect(refusedRequests(s, 'default').refused).toEqual([]);
  });

  it('a missing tool result is reported by the history check; the replayed requests are still valid', () => {
    const s = parse([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [call('c1', 'bash', '{}')] },
      { role: 'user', content: 'never mind' },
      { role: 'assistant', content: 'OK.' },
    ]);
    expect(s.messages.map(kinds)).toEqual([['text'], ['tool_use'], ['text'], ['text']]);
    expect(s.issues.map((i) => i.message)).toEqual([
      'messages.1 (m1): `tool_use` ids were found without `tool_result` blocks immediately after: c1 (the next message does not contain them)',
    ]);
    expect(refusedRequests(s, 'default').refused).toEqual([]);
  });

  it('a tool message without a preceding call is kept as user text and reported', () => {
    const s = parse([
      { role: 'system', content: 's' },
      { role: 'user', content: 'go' },
      { role: 'tool', tool_call_id: 'ghost', content: 'output' },
      { role: 'assistant', content: 'Hm.' },
    ]);
    expect(s.messages.map((m) => m.blocks.map((b) => b.param))).toEqual([
      [
        { type: 'text', text: 'go' },
        { type: 'text', text: '[tool result ghost]\noutput' },
      ],
      [{ type: 'text', text: 'Hm.' }],
    ]);
    expect(s.issues.map((i) => i.message)).toEqual([
      '[2]: tool message for ghost has no preceding tool call to answer: kept as user text',
    ]);
  });

  it('a result naming a call the previous message did not make is paired with its unanswered call, reported', () => {
    const s = parse([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [call('c1', 'bash', '{}')] },
      { role: 'tool', tool_call_id: 'c9', content: 'out' },
    ]);
    expect(s.messages[2].blocks[0].param).toEqual({ type: 'tool_result', tool_use_id: 'c1', content: 'out' });
    expect(s.issues.map((i) => i.message)).toEqual([
      '[2]: answers tool call c9, which the preceding assistant message did not make (or was answered already): paired with its unanswered call c1',
    ]);
  });

  it('invalid or missing call ids become valid unique tool_use ids', () => {
    const s = parse([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [call('fc.1:x', 'a', '{}'), { type: 'function', function: { name: 'b', arguments: '' } }],
      },
      { role: 'tool', tool_call_id: 'fc.1:x', content: '1' },
      { role: 'tool', content: '2' },
    ]);
    expect(s.messages[1].blocks.map((b) => b.toolUseId)).toEqual(['fc_1_x', 'call_1_1']);
    expect(s.messages[2].blocks.map((b) => b.toolUseId)).toEqual(['fc_1_x', 'call_1_1']);
    expect((s.messages[1].blocks[1].param as { input: unknown }).input).toEqual({});
    expect(refusedRequests(s, 'default').refused).toEqual([]);
  });

  it('mini-swe-agent {messages} with its config, and an OpenAI request body, name their model', () => {
    const traj = {
      info: { config: { model: { model_name: 'claude-sonnet-4-5' } } },
      messages: [
        { role: 'system', content: 's' },
        { role: 'user', content: 'u' },
        { role: 'assistant', content: 'a' },
      ],
    };
    expect(parse(traj).model).toBe('claude-sonnet-4-5');
    expect(parse({ model: 'gpt-4.1', messages: traj.messages }).model).toBe('gpt-4.1');
    expect(
      parse({ replay_config: JSON.stringify({ agent: { model: { name: 'gpt-4o' } } }), history: traj.messages }).model,
    ).toBe('gpt-4o');
  });

  it('does not take Anthropic JSON or Cline: only user/assistant roles and Anthropic blocks stay theirs', () => {
    const anthropic = [
      { role: 'user', content: 'List.' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'ls', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a' }] },
    ];
    expect(parse(anthropic).format).toBe('anthropic-json');
    expect(parse({ system: 'S', messages: anthropic }).format).toBe('anthropic-json');
    expect(
      parse([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
      ]).format,
    ).toBe('anthropic-json');
    expect(parse(anthropic, 'api_conversation_history.json').format).toBe('cline');
  });
});

describe('OpenAI chat: LiteLLM thinking blocks', () => {
  it('signed thinking_blocks come first in the assistant message; unsigned ones are left out and reported', () => {
    const s = parse([
      { role: 'system', content: 's' },
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: 'Listing.',
        thinking_blocks: [
          { type: 'thinking', thinking: 'Look first.', signature: 'sig' },
          { type: 'thinking', thinking: 'unsigned' },
        ],
        tool_calls: [call('c1', 'bash', '{"command":"ls"}')],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'a' },
    ]);
    expect(s.messages[1].blocks.map((b) => b.param)).toEqual([
      { type: 'thinking', thinking: 'Look first.', signature: 'sig' },
      { type: 'text', text: 'Listing.' },
      { type: 'tool_use', id: 'c1', name: 'bash', input: { command: 'ls' } },
    ]);
    expect(s.issues.map((i) => i.message)).toEqual([
      '[2]: thinking_blocks[1] is not a signed thinking block: left out',
    ]);
  });
});

describe('OpenAI chat: default against none on the SWE-agent sample', () => {
  /**
   * Tokens sent (uncached + cache writes + reads) and simulated input cost over every call, as `trimline replay` prices
   * them.
   */
  function priced(strategy: string): { tokens: number; cost: number } {
    let ledger: CostLedger | undefined;
    let tokens = 0;
    let cost = 0;
    replayAll(importTranscript(SWE_AGENT), { strategy }, (step) => {
      ledger ??= new CostLedger(step.prepared.body.model, step.engine.tokens);
      const sim = ledger.step(step.prepared.body, step.now);
      tokens += sim.usage.input_tokens + sim.usage.cache_creation_input_tokens + sim.usage.cache_read_input_tokens;
      cost += sim.cost.total;
    });
    return { tokens, cost };
  }

  it('default sends under 80% of the tokens and costs no more (cache rewrites eat most of the saving on 11 calls)', () => {
    const none = priced('none');
    const def = priced('default');
    expect(def.tokens / none.tokens).toBeLessThan(0.8);
    expect(def.cost).toBeLessThanOrEqual(none.cost);
  });
});
