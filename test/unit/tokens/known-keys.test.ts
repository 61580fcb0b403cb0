/** A huge text's content key made elsewhere (the proxy's worker thread) is taken instead of hashing it again. */
import { describe, expect, it } from 'vitest';
import { contentKey, KNOWN_KEY_MIN_CHARS, rememberContentKey } from '../../../src/core/tokens/hash';

describe('rememberContentKey', () => {
  it('gives the remembered key for that text, only for huge texts', () => {
    const text = 'a'.repeat(KNOWN_KEY_MIN_CHARS) + 'remembered';
    const real = contentKey(text);
    rememberContentKey(text, '#remembered');
    expect(contentKey(text)).toBe('#remembered');
    // The same text in another string object finds it too; another text of the same length does not.
    expect(contentKey(`${text.slice(0, 5)}${text.slice(5)}`)).toBe('#remembered');
    expect(contentKey(`b${text.slice(1)}`)).not.toBe('#remembered');
    rememberContentKey('short', '#short');
    expect(contentKey('short')).toBe('=short');
    expect(real).toMatch(/^#\d+:/);
  });

  it('holds on to a bounded amount of text: the oldest keys are forgotten', () => {
    const first = 'c'.repeat(8 * 1024 * 1024);
    rememberContentKey(first, '#first');
    for (let i = 0; i < 10; i++) rememberContentKey(`${i}`.repeat(8 * 1024 * 1024), `#${i}`);
    expect(contentKey(first)).not.toBe('#first');
    expect(contentKey('9'.repeat(8 * 1024 * 1024))).toBe('#9');
  });
});
