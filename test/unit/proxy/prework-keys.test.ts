/**
 * A big request's huge texts get their token-counter keys in the worker (prework.ts), and the call hands them to
 * the counter (request-steps.ts), so the event loop does not hash 20 MB again (issue 27).
 */
import { describe, expect, it } from 'vitest';
import type { RequestBody } from '../../../src/core/api/wire';
import { parseBody } from '../../../src/core/proxy/prework';
import { rememberKeys } from '../../../src/core/proxy/request-steps';
import { contentKey, KNOWN_KEY_MIN_CHARS } from '../../../src/core/tokens/hash';

const text = (c: string): string => c.repeat(KNOWN_KEY_MIN_CHARS + 1);

describe('content keys of huge texts', () => {
  it('the worker keys every huge text the counter measures (text blocks, results, result parts), not small ones', () => {
    const body = {
      model: 'm',
      messages: [
        { role: 'user', content: [{ type: 'text', text: text('a') }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'x', input: {} }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: text('b') },
            {
              type: 'tool_result',
              tool_use_id: 't2',
              content: [
                { type: 'text', text: 'small' },
                { type: 'text', text: text('c') },
              ],
            },
          ],
        },
      ],
    };
    const parsed = parseBody({ raw: Buffer.from(JSON.stringify(body)) });
    expect(parsed.keys).toEqual([
      { message: 0, block: 0, key: contentKey(text('a')) },
      { message: 2, block: 0, key: contentKey(text('b')) },
      { message: 2, block: 1, part: 1, key: contentKey(text('c')) },
    ]);
  });

  it('the call hands the keys to the counter for the texts at their place (after the known messages)', () => {
    const t = text('d');
    const body = {
      model: 'm',
      messages: [
        { role: 'user', content: 'known' },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: t }] },
      ],
    } as RequestBody;
    rememberKeys({ raw: Buffer.alloc(0), body }, [{ message: 0, block: 0, key: '#from-the-worker' }], 1);
    expect(contentKey(t)).toBe('#from-the-worker');
  });
});
