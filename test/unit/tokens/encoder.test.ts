import { describe, expect, it, vi } from 'vitest';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { RawCounter, cl100kCount, contentKey, TokenEstimator } from '../../../src/core/tokens';
import { INLINE_KEY_MAX_CHARS } from '../../../src/core/tokens/hash';
import { LONG_RUN_CHARS, RUN_CHUNK_CHARS } from '../../../src/core/tokens/encoder';
import type { ContentBlockParam } from '../../../src/core/session';

describe('cl100k raw counts', () => {
  it('counts like js-tiktoken cl100k_base on ordinary text', () => {
    const enc = new Tiktoken(cl100k);
    for (const t of ['hello world', 'const x = foo(bar) + 1;\n', 'Grüße, 世界! 🎉', '  indented\n\tcode()']) {
      expect(cl100kCount(t)).toBe(enc.encode(t).length);
    }
    expect(cl100kCount('')).toBe(0);
  });

  it('treats special-token strings in content as text instead of throwing', () => {
    expect(cl100kCount('a <|endoftext|> b')).toBeGreaterThan(3);
  });

  it('cuts pathological runs: at most one token off per cut (unguarded a long run takes minutes: the test times out)', () => {
    const enc = new Tiktoken(cl100k);
    const run = 'A'.repeat(LONG_RUN_CHARS * 4);
    const cuts = Math.ceil(run.length / RUN_CHUNK_CHARS) - 1;
    expect(Math.abs(cl100kCount(run) - enc.encode(run).length)).toBeLessThanOrEqual(cuts);
    const n = cl100kCount(`start ${'A'.repeat(200_000)} ${'─'.repeat(20_000)} end`);
    expect(n).toBeGreaterThan(200_000 / 16);
  });
});

describe('content keys', () => {
  it('short texts are their own key, long ones a sha1 digest; equal content gives equal keys', () => {
    expect(contentKey('abc')).toBe('=abc');
    const long = 'x'.repeat(INLINE_KEY_MAX_CHARS + 1);
    expect(contentKey(long)).toMatch(/^#65:/);
    expect(contentKey(long)).toBe(contentKey(['x'.repeat(30), 'x'.repeat(INLINE_KEY_MAX_CHARS - 29)].join('')));
    expect(contentKey(long)).not.toBe(contentKey(`${'x'.repeat(INLINE_KEY_MAX_CHARS)}y`));
  });
});

describe('RawCounter cache', () => {
  it('encodes each distinct content once', () => {
    const encode = vi.fn((t: string) => t.length);
    const rc = new RawCounter({ encode });
    const big = 'line of tool output\n'.repeat(5_000);
    const again = 'line of tool output\n'.repeat(5_000); // equal content, different string
    expect(rc.count(big)).toBe(big.length);
    expect(rc.count(again)).toBe(big.length);
    expect(rc.count('short')).toBe(5);
    expect(rc.count('short')).toBe(5);
    expect(encode).toHaveBeenCalledTimes(2);
    expect(rc.stats()).toEqual({ hits: 2, misses: 2, size: 2, pending: 0, pendingChars: 0 });
  });

  it('is LRU-bounded', () => {
    const encode = vi.fn((t: string) => t.length);
    const rc = new RawCounter({ encode, capacity: 2 });
    rc.count('a');
    rc.count('b');
    rc.count('a'); // a is now most recent
    rc.count('c'); // evicts b
    rc.count('a');
    expect(encode).toHaveBeenCalledTimes(3);
    rc.count('b');
    expect(encode).toHaveBeenCalledTimes(4);
    expect(rc.stats().size).toBe(2);
  });

  it('the estimator counts a block once, however often and in whatever object it is asked', () => {
    const encode = vi.fn((t: string) => cl100kCount(t));
    const est = new TokenEstimator({ rawCounter: new RawCounter({ encode }) });
    const content = 'result row 1\n'.repeat(2_000);
    const a: ContentBlockParam = { type: 'tool_result', tool_use_id: 'toolu_1', content };
    const b: ContentBlockParam = { type: 'tool_result', tool_use_id: 'toolu_2', content: `${content}` };
    const first = est.block(a).tokens;
    expect(est.block(a).tokens).toBe(first);
    expect(est.block(b).tokens).toBe(first);
    est.forModel('claude-opus-4-7').block(b);
    expect(encode).toHaveBeenCalledTimes(1);
  });
});
