import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importTranscript, parseTranscript } from '../../../src/core/import';
import type { ImportedSession } from '../../../src/core/session/types';
import { pairing, refusedRequests, TRANSCRIPTS } from './helpers';

const OPENHANDS = path.join(TRANSCRIPTS, 'mit-samples', 'openhands_basic_gui_mode.json');
const parse = (v: unknown): ImportedSession => parseTranscript(JSON.stringify(v), 'oh.json');

/** An action of one model response holding `calls` (id, name, arguments), as OpenHands records it. */
function action(
  id: number,
  responseId: string,
  callId: string,
  calls: [string, string, string][],
  text: string | null = null,
): Record<string, unknown> {
  const tool_calls = calls.map(([cid, name, args]) => ({
    id: cid,
    type: 'function',
    function: { name, arguments: args },
  }));
  const model_response = {
    id: responseId,
    model: 'claude-sonnet-4-5',
    choices: [{ index: 0, message: { role: 'assistant', content: text, tool_calls } }],
  };
  return {
    id,
    source: 'agent',
    action: 'run',
    args: {},
    tool_call_metadata: {
      function_name: 'execute_bash',
      tool_call_id: callId,
      model_response,
      total_calls_in_response: calls.length,
    },
  };
}
const observation = (id: number, callId: string, content: string): Record<string, unknown> => ({
  id,
  source: 'agent',
  observation: 'run',
  content,
  message: `ran ${callId}`,
  tool_call_metadata: { function_name: 'execute_bash', tool_call_id: callId },
});

describe('OpenHands events', () => {
  it('the MIT sample: user task, four tool rounds, the final answer; state events left out', () => {
    const s = importTranscript(OPENHANDS);
    expect(s.format).toBe('openhands');
    expect(s.model).toBe('claude-3-5-sonnet-20241022');
    expect(s.system).toBeUndefined();
    expect(s.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(s.calls.map((c) => [c.at, c.usage])).toEqual([
      [1, undefined],
      [3, undefined],
      [5, undefined],
      [7, undefined],
      [9, undefined],
    ]);
    expect(pairing(s)).toEqual({ uses: 4, answered: 4, orphans: 0 });
    expect(s.messages[1].blocks[1].param).toEqual({
      type: 'tool_use',
      id: 'toolu_01W9Z8jBctr8X2frZV9p1RYs',
      name: 'execute_bash',
      input: { command: 'mkdir -p /workspace/todo-app' },
    });
    // An empty command output: the observation's message stands in.
    expect(s.messages[2].blocks[0].param).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_01W9Z8jBctr8X2frZV9p1RYs',
      content: 'Command `mkdir -p /workspace/todo-app` executed with exit code 0.',
    });
    expect(s.messages[1].meta.source).toBe('openhands_basic_gui_mode.json:events[7]');
    expect(s.issues).toEqual([]);
  });

  it('one response with two calls is one assistant message; a system action is the system prompt; unknown events are reported', () => {
    const s = parse([
      { id: 0, source: 'agent', action: 'system', args: { content: 'You are OpenHands.' } },
      {
        id: 1,
        source: 'user',
        action: 'message',
        args: { content: 'Look.', image_urls: ['https://example.com/a.png'] },
      },
      action(
        2,
        'r1',
        'c1',
        [
          ['c1', 'execute_bash', '{"command":"ls"}'],
          ['c2', 'execute_bash', '{"command":"pwd"}'],
        ],
        'Two looks.',
      ),
      action(
        3,
        'r1',
        'c2',
        [
          ['c1', 'execute_bash', '{"command":"ls"}'],
          ['c2', 'execute_bash', '{"command":"pwd"}'],
        ],
        'Two looks.',
      ),
      observation(4, 'c1', 'a b'),
      observation(5, 'c2', ''),
      { id: 6, source: 'environment', observation: 'recall', content: '', extras: {} },
      { id: 7, source: 'agent', action: 'message', args: { content: 'Done.' } },
    ]);
    expect(s.system).toBe('You are OpenHands.');
    expect(s.messages.map((m) => m.blocks.map((b) => b.kind))).toEqual([
      ['text', 'image'],
      ['text', 'tool_use', 'tool_use'],
      ['tool_result', 'tool_result'],
      ['text'],
    ]);
    expect(s.messages[2].blocks.map((b) => b.param)).toEqual([
      { type: 'tool_result', tool_use_id: 'c1', content: 'a b' },
      { type: 'tool_result', tool_use_id: 'c2', content: 'ran c2' },
    ]);
    expect(s.calls).toHaveLength(2);
    expect(s.model).toBe('claude-sonnet-4-5');
    expect(s.issues.map((i) => i.message)).toEqual([
      'events[6]: observation "recall" from environment has no place in the model\'s messages: left out',
    ]);
    expect(refusedRequests(s, 'default').refused).toEqual([]);
  });

  it('a tool action without a model response is rebuilt from its arguments, reported', () => {
    const s = parse([
      { id: 0, source: 'user', action: 'message', args: { content: 'go' } },
      {
        id: 1,
        source: 'agent',
        action: 'run',
        args: { command: 'ls', thought: 'Listing.' },
        tool_call_metadata: { function_name: 'execute_bash', tool_call_id: 't1' },
      },
      observation(2, 't1', 'x'),
    ]);
    expect(s.messages[1].blocks.map((b) => b.param)).toEqual([
      { type: 'text', text: 'Listing.' },
      { type: 'tool_use', id: 't1', name: 'execute_bash', input: { command: 'ls' } },
    ]);
    expect(s.issues.map((i) => i.message)).toEqual([
      'events[1]: no model response recorded with the tool call: rebuilt from the action (its thought and arguments)',
    ]);
  });
});
