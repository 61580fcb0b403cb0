/** The agent loop through the real SDK client against the local server: streaming, history, tools, cancel. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { INTERRUPTED_NOTE } from '../../../src/core/request';
import { faults } from '../../../src/dev/server';
import { eventsOf, expectAllValid, expectPaired, harness, textOf, type Harness } from './helpers';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const LONG_TEXT = 'The quick brown fox jumps over the lazy dog. '.repeat(40);

describe('streaming a turn', () => {
  it('streams text deltas and records the complete message with its meta', async () => {
    h = await harness();
    h.server.script({ content: [{ type: 'text', text: LONG_TEXT }] });
    const result = await h.loop.run('Say something long.');
    expect(result).toEqual({ reason: 'end_turn', calls: 1 });
    const deltas = eventsOf(h.events, 'text-delta');
    expect(deltas.length).toBeGreaterThan(5);
    expect(deltas.map((d) => d.text).join('')).toBe(LONG_TEXT);
    const [user, assistant] = h.session.messages;
    expect(user.role).toBe('user');
    expect(assistant.blocks.map((b) => b.param)).toEqual([{ type: 'text', text: LONG_TEXT }]);
    expect(assistant.meta.apiMessageId).toMatch(/^msg_/);
    expect(assistant.meta.model).toBe('claude-sonnet-4-6');
    expect(assistant.meta.usage?.output_tokens).toBeGreaterThan(0);
    expect(Date.parse(assistant.meta.timestamp ?? '')).not.toBeNaN();
    expect(h.session.calls).toHaveLength(1);
    expect(h.session.calls[0]).toMatchObject({ at: 1, apiMessageId: assistant.meta.apiMessageId });
    const order = h.events.map((e) => e.type).filter((t) => t !== 'text-delta' && t !== 'decision');
    expect(order).toEqual(['turn-start', 'message', 'call-start', 'message', 'usage', 'turn-end']);
    const usage = eventsOf(h.events, 'usage')[0];
    expect(usage.cost.total).toBeGreaterThan(0);
    expect(h.loop.ledger.run.cost).toBeCloseTo(usage.cost.total, 12);
  });

  it('sends the prior conversation from turn 2 on (regression guard)', async () => {
    h = await harness();
    h.server.script(
      { content: [{ type: 'text', text: 'First answer.' }] },
      { content: [{ type: 'text', text: 'Second answer.' }] },
    );
    await h.loop.run('First question?');
    await h.loop.run('Second question?');
    const [first, second] = h.messagesRequests();
    const sent = (second.body as { messages: { role: string; content: unknown }[] }).messages;
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(textOf(sent[0].content)).toBe('First question?');
    expect(textOf(sent[1].content)).toBe('First answer.');
    expect(textOf(sent[2].content)).toBe('Second question?');
    expect((first.body as { messages: unknown[] }).messages).toHaveLength(1);
    expect((second.body as { system?: unknown }).system).toBeDefined();
    expect((second.body as { tools?: unknown[] }).tools?.length).toBe(7);
    expectAllValid(h.server);
  });
});

describe('tools', () => {
  it('answers parallel calls in one user message, results first and in order, and streams tool input', async () => {
    h = await harness({ files: { 'a.txt': 'alpha\n', 'b.txt': 'beta\n' } });
    h.server.script(
      {
        content: [
          { type: 'text', text: 'Reading both.' },
          { type: 'tool_use', name: 'read_file', input: { path: 'a.txt' } },
          { type: 'tool_use', name: 'read_file', input: { path: 'b.txt' } },
          { type: 'tool_use', name: 'list_files', input: {} },
        ],
      },
      { content: [{ type: 'text', text: 'Done.' }] },
    );
    const result = await h.loop.run('Read a and b.');
    expect(result).toEqual({ reason: 'end_turn', calls: 2 });
    expectPaired(h.session);
    const resultsMsg = h.session.messages[2];
    expect(resultsMsg.blocks.map((b) => b.kind)).toEqual(['tool_result', 'tool_result', 'tool_result']);
    expect(textOf([resultsMsg.blocks[0].param])).toContain('alpha');
    expect(textOf([resultsMsg.blocks[1].param])).toContain('beta');
    const inputs = eventsOf(h.events, 'tool-input-delta');
    const ids = new Set(inputs.map((e) => e.toolUseId));
    expect(ids.size).toBe(3);
    const firstId = inputs[0].toolUseId;
    expect(
      JSON.parse(
        inputs
          .filter((e) => e.toolUseId === firstId)
          .map((e) => e.partialJson)
          .join(''),
      ),
    ).toEqual({ path: 'a.txt' });
    expect(eventsOf(h.events, 'tool-start')).toHaveLength(3);
    expect(eventsOf(h.events, 'tool-result').every((e) => !e.result.is_error)).toBe(true);
    // The second request carries the tool round.
    const sent = (h.messagesRequests()[1].body as { messages: { role: string; content: { type: string }[] }[] })
      .messages;
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(sent[2].content.map((b) => b.type)).toEqual(['tool_result', 'tool_result', 'tool_result']);
    expectAllValid(h.server);
  });

  it('keeps the model order for a write followed by a read in the same batch', async () => {
    h = await harness();
    h.server.script(
      {
        content: [
          { type: 'tool_use', name: 'write_file', input: { path: 'new/file.txt', content: 'fresh content\n' } },
          { type: 'tool_use', name: 'read_file', input: { path: 'new/file.txt' } },
        ],
      },
      { content: [{ type: 'text', text: 'Written and read.' }] },
    );
    await h.loop.run('Write then read.');
    const results = h.session.messages[2].blocks;
    expect(results[1].param.type === 'tool_result' && !results[1].param.is_error).toBe(true);
    expect(textOf([results[1].param])).toContain('fresh content');
    expect(fs.readFileSync(path.join(h.dir, 'new/file.txt'), 'utf8')).toBe('fresh content\n');
  });

  it('turns tool failures and denied commands into is_error results, and the loop goes on', async () => {
    h = await harness();
    h.server.script(
      {
        content: [
          { type: 'tool_use', name: 'read_file', input: { path: '../outside.txt' } },
          { type: 'tool_use', name: 'run_command', input: { command: 'echo hi' } },
          { type: 'tool_use', name: 'no_such_tool', input: {} },
        ],
      },
      { content: [{ type: 'text', text: 'Noted.' }] },
    );
    const result = await h.loop.run('Try things.');
    expect(result.reason).toBe('end_turn');
    const res = eventsOf(h.events, 'tool-result');
    expect(res.map((r) => r.result.is_error)).toEqual([true, true, true]);
    expect(res[1].result.content).toMatch(/denied/);
    expectPaired(h.session);
    expectAllValid(h.server);
  });

  it('closes tool calls cut at max_tokens with error results instead of running them', async () => {
    h = await harness();
    h.server.script({
      content: [{ type: 'tool_use', name: 'write_file', input: { path: 'x.txt', content: 'partial' } }],
      stop_reason: 'max_tokens',
    });
    const result = await h.loop.run('Write x.');
    expect(result.reason).toBe('max_tokens');
    expect(fs.existsSync(path.join(h.dir, 'x.txt'))).toBe(false);
    expectPaired(h.session);
    expect(textOf([h.session.messages[2].blocks[0].param])).toMatch(/max_tokens/);
  });
});

describe('cancel', () => {
  it('mid-stream: the partial text is recorded as interrupted and the next request stays valid', async () => {
    h = await harness();
    h.server.fault(faults.slow(20));
    h.server.script(
      { content: [{ type: 'text', text: LONG_TEXT }] },
      { content: [{ type: 'text', text: 'Continuing.' }] },
    );
    let deltas = 0;
    h.loop.on('text-delta', () => {
      if (++deltas === 5) h!.loop.cancel();
    });
    const result = await h.loop.run('Talk slowly.');
    expect(result.reason).toBe('cancelled');
    const partial = h.session.messages[1];
    expect(partial.meta.interrupted).toBe(true);
    expect(LONG_TEXT.startsWith(textOf([partial.blocks[0].param]))).toBe(true);
    expect(textOf([partial.blocks[0].param]).length).toBeLessThan(LONG_TEXT.length);
    expect(h.session.calls).toHaveLength(1);
    await h.loop.run('Go on.');
    const sent = (h.messagesRequests().at(-1)!.body as { messages: { role: string; content: unknown }[] }).messages;
    expect(sent).toHaveLength(3);
    expect(textOf(sent[1].content)).toContain(INTERRUPTED_NOTE);
    expectAllValid(h.server);
  });

  it('mid-tool: a running command is killed and answered with an is_error result', async () => {
    h = await harness({ approve: async () => true });
    h.server.script(
      {
        content: [
          { type: 'tool_use', name: 'read_file', input: { path: 'missing.txt' } },
          { type: 'tool_use', name: 'run_command', input: { command: 'sleep 5 && echo late > late.txt' } },
          { type: 'tool_use', name: 'list_files', input: {} },
        ],
      },
      { content: [{ type: 'text', text: 'After the cancel.' }] },
    );
    h.loop.on('tool-start', (e) => {
      if (e.name === 'run_command') setTimeout(() => h!.loop.cancel(), 100);
    });
    const result = await h.loop.run('Run a slow command.');
    expect(result.reason).toBe('cancelled');
    expectPaired(h.session);
    const results = eventsOf(h.events, 'tool-result');
    expect(results.map((r) => r.name)).toEqual(['read_file', 'run_command', 'list_files']);
    expect(results[1].result.is_error).toBe(true);
    expect(results[2].result.content).toMatch(/cancelled/);
    expect(h.loop.running).toBe(false);
    await h.loop.run('Continue.');
    expectAllValid(h.server);
    expect(fs.existsSync(path.join(h.dir, 'late.txt'))).toBe(false);
  });

  it('during a retry wait: nothing is recorded', async () => {
    h = await harness({
      config: { retry: { maxRetries: 3, baseDelayMs: 5_000, maxDelayMs: 5_000, maxRetryAfterMs: 5_000, jitter: 0 } },
    });
    h.server.fault(faults.overloaded());
    h.loop.on('retry', () => h!.loop.cancel());
    const result = await h.loop.run('Hello?');
    expect(result.reason).toBe('cancelled');
    expect(h.session.messages.map((m) => m.role)).toEqual(['user']);
    expect(h.session.calls).toHaveLength(0);
  });
});

describe('resuming an unfinished turn', () => {
  it('answers tool calls that never got results as interrupted, then continues', async () => {
    h = await harness();
    h.session.append('user', 'Do it.');
    h.session.append(
      'assistant',
      [{ type: 'tool_use', id: 'toolu_left', name: 'write_file', input: { path: 'a.txt', content: 'a' } }],
      { apiMessageId: 'msg_x' },
    );
    h.server.script({ content: [{ type: 'text', text: 'Checked.' }] });
    const result = await h.loop.run();
    expect(result).toEqual({ reason: 'end_turn', calls: 1 });
    expectPaired(h.session);
    expect(textOf([h.session.messages[2].blocks[0].param])).toMatch(/^interrupted:/);
    expectAllValid(h.server);
    expect(await h.loop.run()).toEqual({ reason: 'idle', calls: 0 });
  });
});

describe('a new prompt on a session with unanswered tool calls', () => {
  it('puts the interrupted results first and the prompt after them, in one user message', async () => {
    h = await harness();
    h.session.append('user', 'Do it.');
    h.session.append('assistant', [{ type: 'tool_use', id: 'toolu_left', name: 'list_files', input: {} }], {
      apiMessageId: 'msg_y',
    });
    h.server.script({ content: [{ type: 'text', text: 'Fine.' }] });
    await h.loop.run('Something else instead.');
    const opening = h.session.messages[2];
    expect(opening.blocks.map((b) => b.kind)).toEqual(['tool_result', 'text']);
    expect(h.session.messages).toHaveLength(4);
    expectPaired(h.session);
    expectAllValid(h.server);
  });
});

describe('LLM history compression', () => {
  it('runs the summarization call through the same client before the request is built, and bills it', async () => {
    const strategies = {
      'whole-history': { trigger: 'always', minTokens: 1, keepRecentMessages: 1, background: false },
    };
    h = await harness({
      config: { strategy: 'whole-history', pipeline: { strategies } },
      files: { 'a.txt': 'alpha '.repeat(300) },
    });
    h.server.script(
      { content: [{ type: 'tool_use', name: 'read_file', input: { path: 'a.txt' } }] },
      { content: [{ type: 'text', text: 'Read a.txt: it repeats alpha.' }] },
    );
    await h.loop.run('Read a.txt.');
    h.server.script((call) => ({
      content: [
        {
          type: 'text',
          text: call.body.stream ? 'Answer after compression.' : 'The user asked to read a.txt; it repeats "alpha".',
        },
      ],
    }));
    h.server.script({ content: [{ type: 'text', text: 'Answer after compression.' }] });
    const result = await h.loop.run('What was in it?');
    expect(result.reason).toBe('end_turn');
    const usage = eventsOf(h.events, 'usage');
    expect(usage.map((u) => u.kind)).toContain('summary');
    expect(h.session.allOverlays().some((o) => o.kind === 'summary' && o.author === 'strategy:whole-history')).toBe(
      true,
    );
    expect(h.loop.ledger.run.calls).toBe(h.session.calls.length + usage.filter((u) => u.kind === 'summary').length);
    expectAllValid(h.server);
  });
});

describe('thinking', () => {
  it('sends the latest thinking block back verbatim with its signature', async () => {
    h = await harness({ files: { 'a.txt': 'alpha\n' } });
    h.server.script(
      {
        content: [
          { type: 'thinking', thinking: 'I should read a.txt first.' },
          { type: 'tool_use', name: 'read_file', input: { path: 'a.txt' } },
        ],
      },
      { content: [{ type: 'text', text: 'It says alpha.' }] },
    );
    await h.loop.run('What is in a.txt?');
    const thinking = h.session.messages[1].blocks[0].param;
    expect(thinking.type === 'thinking' && thinking.signature.length).toBeGreaterThan(0);
    const sent = (h.messagesRequests()[1].body as { messages: { content: unknown[] }[] }).messages[1].content[0];
    expect(sent).toEqual(thinking);
    expectAllValid(h.server);
  });
});
