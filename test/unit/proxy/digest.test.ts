/** Message digests ignore cache_control wherever it is, and equal messages give equal digests on the fast path too. */
import { describe, expect, it } from 'vitest';
import { commonPrefix, messageDigest } from '../../../src/core/proxy/digest';
import type { MessageParam } from '../../../src/core/session';

const plain: MessageParam = {
  role: 'user',
  content: [
    { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'file body' }] },
    { type: 'text', text: 'a text that mentions "cache_control" in quotes' },
  ],
};

describe('messageDigest', () => {
  it('is the same with a marker on a block, on a nested tool_result part, or none', () => {
    const onBlock = {
      ...plain,
      content: [plain.content[0], { ...(plain.content[1] as object), cache_control: { type: 'ephemeral' } }],
    } as MessageParam;
    const nested = {
      ...plain,
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_1',
          content: [{ type: 'text', text: 'file body', cache_control: { type: 'ephemeral' } }],
        },
        plain.content[1],
      ],
    } as MessageParam;
    const d = messageDigest(plain);
    expect(messageDigest(onBlock)).toBe(d);
    expect(messageDigest(nested)).toBe(d);
  });

  it('tells different content apart', () => {
    const other = { ...plain, content: [plain.content[0], { type: 'text', text: 'another text' }] } as MessageParam;
    expect(messageDigest(other)).not.toBe(messageDigest(plain));
    expect(
      commonPrefix([messageDigest(plain), messageDigest(plain)], [messageDigest(plain), messageDigest(other)]),
    ).toBe(1);
  });
});
