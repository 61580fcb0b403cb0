/**
 * The test server's token counts: a deterministic estimator, not a tokenizer.
 *
 *   tokens(block) = ceil(chars / 3.5)
 *
 * where `chars` is the text the model would read: text and thinking text, a
 * tool_use's name plus its JSON input, a tool_result's content (recursively),
 * a tool definition's JSON. Images count a flat {@link IMAGE_TOKENS}. Counts
 * are per block, summed over tools, system blocks and message blocks; there is
 * no per-message overhead. Simple on purpose, so tests can compute expected
 * usage by hand; the engine must never rely on these numbers being Claude's.
 */
import { blockIdentityJson } from '../core/api/cache-rules';
import type { BlockLocation, SimBlock } from '../core/cache/simulator';
import type { MessagesBody, ScriptedBlock } from './types';

/** Roughly Claude's ratio on English prose and code (measured ratios sit between 3 and 4). */
export const CHARS_PER_TOKEN = 3.5;
/** A mid-sized screenshot: width*height/750 for ~1.2 MP, the API's documented estimate. */
export const IMAGE_TOKENS = 1600;

export function textTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** Characters of one content block (or tool definition) as the estimator sees it. */
function blockChars(block: unknown): number {
  if (typeof block === 'string') return block.length;
  if (!block || typeof block !== 'object') return 0;
  const b = block as Record<string, unknown>;
  switch (b.type) {
    case 'text':
      return str(b.text).length;
    case 'thinking':
      return str(b.thinking).length;
    case 'redacted_thinking':
      return Math.ceil(str(b.data).length / 2);
    case 'tool_use':
    case 'server_tool_use':
      return str(b.name).length + JSON.stringify(b.input ?? {}).length;
    case 'tool_result': {
      const c = b.content;
      if (typeof c === 'string') return c.length;
      if (Array.isArray(c)) return c.reduce((sum: number, inner: unknown) => sum + blockChars(inner), 0);
      return 0;
    }
    case 'image':
      return IMAGE_TOKENS * CHARS_PER_TOKEN;
    default:
      return blockIdentityJson(b).length;
  }
}

/** Tokens of one block (the simulator's `TokensOf`). */
export function blockTokens(block: SimBlock | object, _at?: BlockLocation): number {
  return Math.ceil(blockChars(block) / CHARS_PER_TOKEN);
}

/** Total input tokens of a (validated) request: tools + system + every message block. */
export function requestTokens(body: MessagesBody): number {
  let total = 0;
  for (const tool of body.tools ?? []) total += blockTokens(tool);
  if (typeof body.system === 'string') total += textTokens(body.system);
  else for (const b of body.system ?? []) total += blockTokens(b);
  for (const m of body.messages) {
    if (typeof m.content === 'string') total += textTokens(m.content);
    else for (const b of m.content) total += blockTokens(b);
  }
  return total;
}

/** Output tokens of a generated turn (at least 1, as the API never reports 0 for a response). */
export function outputTokens(content: readonly ScriptedBlock[]): number {
  let chars = 0;
  for (const b of content) {
    if (b.type === 'text') chars += b.text.length;
    else if (b.type === 'thinking') chars += b.thinking.length;
    else if (b.type === 'tool_use') chars += b.name.length + JSON.stringify(b.input ?? {}).length;
    else chars += b.data.length / 2;
  }
  return Math.max(1, Math.ceil(chars / CHARS_PER_TOKEN));
}
