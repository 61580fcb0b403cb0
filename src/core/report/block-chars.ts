/**
 * Characters that stand for a block's content, and a known token size spread over blocks by them: how the
 * sizing (sizing.ts) and the strategies price blocks the recorded usage does not size one by one.
 */
import type { ContentBlockParam } from '../session/types';

/**
 * Characters per token when nothing better is known (the first prompt, blocks
 * without usage). Measured on the m-claude transcripts: tool results and
 * prose run 3–4 characters per Claude token; only the first call's few
 * hundred tokens of prompt depend on it.
 */
export const CHARS_PER_TOKEN = 3.5;
/** Rough size of an image in the transcript when no usage tells (about a 1000×1000 picture / 750). */
const IMAGE_TOKENS = 1_500;

/** {@link blockChars} per param object (params are never mutated; a tool input's JSON is built once). */
const charsOf = new WeakMap<object, number>();

/** Characters that stand for a block's content (for spreading a known size over blocks). */
export function blockChars(p: ContentBlockParam): number {
  let n = charsOf.get(p);
  if (n === undefined) charsOf.set(p, (n = countChars(p)));
  return n;
}

function countChars(p: ContentBlockParam): number {
  switch (p.type) {
    case 'text':
      return p.text.length;
    case 'thinking':
      return p.thinking.length;
    case 'redacted_thinking':
      return p.data.length / 4;
    case 'tool_use':
      return p.name.length + JSON.stringify(p.input ?? {}).length;
    case 'tool_result': {
      const c = p.content;
      if (typeof c === 'string') return c.length;
      if (!c) return 1;
      let n = 0;
      for (const b of c)
        n +=
          b.type === 'text'
            ? b.text.length
            : b.type === 'image'
              ? IMAGE_TOKENS * CHARS_PER_TOKEN
              : JSON.stringify(b).length;
      return n;
    }
    case 'image':
      return IMAGE_TOKENS * CHARS_PER_TOKEN;
    default:
      return JSON.stringify(p).length;
  }
}

/** Split `total` tokens over blocks in proportion to their characters (each at least 1 when total allows). */
export function spread(total: number, chars: readonly number[]): number[] {
  const sum = chars.reduce((a, b) => a + Math.max(1, b), 0);
  return chars.map((c) => (total * Math.max(1, c)) / sum);
}
