/**
 * Block identity is one rule (cache/rules.ts): a `cache_control` marker is placement, not content,
 * wherever the API accepts one (on a block, on a part of a tool_result's content); anything deeper
 * is content. The proxy's message digest, the simulator and the inspector's diff all follow it.
 */
import { describe, expect, it } from 'vitest';
import { blockIdentityJson, messageIdentityJson } from '../../../src/core/api/cache-rules';
import { CacheSimulator, type SimBlock } from '../../../src/core/cache/simulator';
import { sameContent } from '../../../src/core/inspect/diff';
import { messageDigest } from '../../../src/core/cache/message-digest';
import type { MessageParam } from '../../../src/core/session/types';

const EPHEMERAL = { type: 'ephemeral' } as const;
const result = (marked: boolean): object => ({
  type: 'tool_result',
  tool_use_id: 'toolu_1',
  content: [{ type: 'text', text: 'file contents', ...(marked ? { cache_control: EPHEMERAL } : {}) }],
});
const use = (key: string): object => ({ type: 'tool_use', id: 'toolu_1', name: 'Edit', input: { [key]: EPHEMERAL } });

describe('block identity', () => {
  it('a marker on a tool_result part does not change the block or its message', () => {
    expect(blockIdentityJson(result(true))).toBe(blockIdentityJson(result(false)));
    expect(sameContent(result(true), result(false))).toBe(true);
    const msg = (marked: boolean): MessageParam => ({ role: 'user', content: [result(marked)] }) as MessageParam;
    expect(messageDigest(msg(true))).toBe(messageDigest(msg(false)));
    expect(messageIdentityJson(msg(true) as { role: string; content: object[] })).not.toContain('cache_control');
  });

  it('a `cache_control` key inside a tool input is content: the digest, the simulator and the diff all see it', () => {
    expect(blockIdentityJson(use('cache_control'))).not.toBe(blockIdentityJson(use('other')));
    expect(sameContent(use('cache_control'), use('other'))).toBe(false);
    const msg = (key: string): MessageParam => ({ role: 'assistant', content: [use(key)] }) as MessageParam;
    expect(messageDigest(msg('cache_control'))).not.toBe(messageDigest(msg('other')));
  });

  it('the simulator reads a prefix whose tool_result part lost its marker', () => {
    const sim = new CacheSimulator({ minTokens: 0 });
    const tokensOf = (): number => 1000;
    const tail = { type: 'text', text: 'next', cache_control: EPHEMERAL } as SimBlock;
    const body = (marked: boolean) => ({
      model: 'claude-sonnet-4-6',
      messages: [{ role: 'user', content: [result(marked) as SimBlock, tail] }],
    });
    sim.step(body(true), tokensOf, 0);
    const usage = sim.step(body(false), tokensOf, 1000);
    expect(usage.cache_read_input_tokens).toBe(2000);
  });
});
