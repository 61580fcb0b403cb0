import { describe, expect, it } from 'vitest';
import {
  IMAGE_DEFAULT_TOKENS,
  TokenEstimator,
  imageTokens,
  imageTokensForSize,
  looksLikeCode,
  uncountedThinking,
} from '../../../src/core/tokens';
import type { ContentBlockParam, MessageParam } from '../../../src/core/session';

function png(width: number, height: number): string {
  const b = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12, 'latin1');
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  return b.toString('base64');
}

describe('TokenEstimator', () => {
  it('estimates blocks from the prior before any usage', () => {
    const est = new TokenEstimator();
    const text = est.block({ type: 'text', text: 'The quick brown fox jumps over the lazy dog.' });
    expect(text.quality).toBe('estimated');
    expect(text.tokens).toBeGreaterThan(est.raw('The quick brown fox jumps over the lazy dog.'));
    const tool = est.block({ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' });
    expect(tool.tokens).toBeGreaterThan(30); // the tool-block overhead dominates tiny results
    expect(est.text('hello world', 'code').tokens).toBeGreaterThanOrEqual(2);
  });

  it('new tokenizer generation estimates more for the same text', () => {
    const est = new TokenEstimator({ model: 'claude-sonnet-4-5' });
    const b: ContentBlockParam = { type: 'text', text: 'some representative text '.repeat(50) };
    expect(est.forModel('claude-opus-4-7').block(b).tokens).toBeGreaterThan(est.block(b).tokens * 1.2);
    expect(est.forModel('claude-sonnet-4-5-20250929')).toBe(est);
  });

  it('records exact counts per model and content', () => {
    const est = new TokenEstimator({ model: 'claude-sonnet-4-5' });
    const b: ContentBlockParam = { type: 'text', text: 'exactly counted' };
    est.setExact(b, 7);
    expect(est.block(b)).toEqual({ tokens: 7, quality: 'exact' });
    expect(est.block({ type: 'text', text: 'exactly counted' })).toEqual({ tokens: 7, quality: 'exact' });
    expect(est.forModel('claude-opus-4-7').block(b).quality).toBe('estimated');
    est.setExact('a summary', 3);
    expect(est.text('a summary')).toEqual({ tokens: 3, quality: 'exact' });
    expect(() => est.setExact('x', -1)).toThrow();
  });

  it('drops earlier turns’ thinking on models that do (sonnet-4-5), keeps it on opus-4-5', () => {
    const thinking: ContentBlockParam = {
      type: 'thinking',
      thinking: 'let me think about this problem at length '.repeat(20),
      signature: 's',
    };
    const latest: ContentBlockParam = {
      type: 'thinking',
      thinking: 'current turn reasoning '.repeat(10),
      signature: 's',
    };
    const msgs: MessageParam[] = [
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: [thinking, { type: 'text', text: 'answer' }] },
      { role: 'user', content: 'second question' },
      {
        role: 'assistant',
        content: [latest, { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a b c' }] },
    ];
    expect([...uncountedThinking(msgs, 'claude-sonnet-4-5')]).toEqual([thinking]);
    expect(uncountedThinking(msgs, 'claude-opus-4-5').size).toBe(0);
    const sonnet = new TokenEstimator({ model: 'claude-sonnet-4-5' });
    const all = msgs.reduce((s, m) => s + sonnet.message(m).tokens, 0);
    const sent = sonnet.messages(msgs).tokens;
    expect(all - sent).toBeGreaterThan(sonnet.raw((thinking as { thinking: string }).thinking));
    const opus = sonnet.forModel('claude-opus-4-5');
    expect(Math.abs(opus.messages(msgs).tokens - all)).toBeLessThanOrEqual(msgs.length);
  });

  it('prices images by size, with the API’s downscaling, and a default when unknown', () => {
    expect(imageTokensForSize({ width: 750, height: 100 })).toBe(100);
    expect(imageTokensForSize({ width: 3000, height: 3000 })).toBe(1600);
    expect(
      imageTokens({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png(300, 250) } }),
    ).toBe(100);
    expect(imageTokens({ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } })).toBe(
      IMAGE_DEFAULT_TOKENS,
    );
    expect(imageTokens({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } })).toBe(
      IMAGE_DEFAULT_TOKENS,
    );
    const est = new TokenEstimator();
    const withImage: ContentBlockParam = {
      type: 'tool_result',
      tool_use_id: 't',
      content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png(300, 250) } }],
    };
    expect(est.block(withImage).tokens).toBeGreaterThanOrEqual(100);
  });
});

describe('content classes', () => {
  it('tells code listings from prose', () => {
    const listing = Array.from({ length: 10 }, (_, i) => `    ${i + 1}→const a${i} = f(${i});`).join('\n');
    expect(looksLikeCode(listing)).toBe(true);
    expect(
      looksLikeCode(
        'function f(x) {\n  return g(x[0]) + h(x);\n}\nconst y = f([1, 2]);\nif (y > 3) { console.log(y); }\n',
      ),
    ).toBe(true);
    expect(
      looksLikeCode(
        'This is a plain sentence about the build.\nIt has two lines of prose, and commas.\nAnd a third one too.',
      ),
    ).toBe(false);
  });
});

describe('block feature cache', () => {
  it('recounts a block object whose content was replaced (streaming)', () => {
    const est = new TokenEstimator();
    const b = { type: 'text' as const, text: 'partial' };
    const before = est.block(b).tokens;
    b.text = 'partial answer that grew a lot longer while streaming in';
    expect(est.block(b).tokens).toBeGreaterThan(before);
  });
});
