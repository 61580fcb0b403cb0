/** Verdicts of Trimline's own agent calls: a changed message is Trimline's edit, appended turns are clean. */
import { describe, expect, it } from 'vitest';
import { OwnVerdicts } from '../../../src/core/inspect/own-verdicts';
import type { RequestBody } from '../../../src/core/api/wire';

const body = (texts: string[]): RequestBody =>
  ({
    model: 'claude-sonnet-4-6',
    max_tokens: 100,
    system: [{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } }],
    messages: texts.map((t, i) => ({ role: i % 2 ? 'assistant' : 'user', content: [{ type: 'text', text: t }] })),
  }) as RequestBody;
const usage = (read: number, written: number) => ({
  input_tokens: 5,
  output_tokens: 5,
  cache_read_input_tokens: read,
  cache_creation_input_tokens: written,
});

describe('OwnVerdicts', () => {
  it('first call, clean append, then a trim of an earlier message (trimline_edit)', () => {
    const v = new OwnVerdicts();
    v.onSend(0, body(['a']), 0);
    expect(v.onUsage(0, usage(0, 1200))?.miss?.reason).toBe('first_call');
    v.onSend(1, body(['a', 'b', 'c']), 1000);
    expect(v.onUsage(1, usage(1200, 100))?.miss).toBeNull();
    v.onSend(2, body(['a', '[trimmed]', 'c', 'd', 'e']), 2000);
    const trimmed = v.onUsage(2, usage(1000, 400));
    expect(trimmed?.miss).toMatchObject({
      reason: 'messages_changed',
      changeSource: 'trimline_edit',
      where: 'message 1 (assistant)',
      missedTokens: 300,
    });
    // Usage for a call that was not seen being sent gives no verdict.
    expect(v.onUsage(7, usage(0, 0))).toBeUndefined();
  });
});
