/**
 * Small facts about content blocks shared by the validator, the builder and
 * the cache planner. Blocks are the SDK's param types; nothing here mutates.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { withoutCacheControl } from './cache-rules';
type ContentBlockParam = Anthropic.ContentBlockParam;

export type CacheControl = Anthropic.CacheControlEphemeral;

/** Anything that may carry `cache_control` (tools, system blocks, content blocks, nested tool_result content). */
interface MaybeCached {
  readonly type?: string;
  readonly cache_control?: CacheControl | null;
}

/** True for text with no non-whitespace character (the API rejects it: "must contain non-whitespace text"). */
export function isBlank(text: string): boolean {
  return !/\S/.test(text);
}

/** Ends with whitespace (a final assistant message may not: "cannot end with trailing whitespace"). */
export function endsWithWhitespace(text: string): boolean {
  return /\s$/.test(text);
}

export function isThinking(b: { readonly type?: string }): boolean {
  return b.type === 'thinking' || b.type === 'redacted_thinking';
}

/** The cache_control on any block-like object, if set. */
export function cacheControlOf(x: object): CacheControl | undefined {
  const cc = (x as MaybeCached).cache_control;
  return cc ?? undefined;
}

/** A copy without `cache_control`, or the same object when it has none (the rule: cache/rules.ts). */
export { withoutCacheControl };

/** A copy with `cache_control` set (same keys in the same order as `{ ...x, cache_control: cc }`). */
export function withCacheControl<T extends object>(x: T, cc: CacheControl): T {
  // A plain clone and an assignment: V8's spread-and-add is a slow path, and a plan marks blocks on every call.
  const out = { ...x } as T & { cache_control?: CacheControl };
  out.cache_control = cc;
  return out;
}

/**
 * Block types that may carry a breakpoint (reference: text, image, tool_use,
 * tool_result; documents and search results are cacheable content too).
 * Never thinking/redacted_thinking, never empty text, never unknown server blocks.
 */
const CACHEABLE_TYPES: ReadonlySet<string> = new Set([
  'text',
  'image',
  'document',
  'tool_use',
  'tool_result',
  'search_result',
]);

export function isCacheable(b: ContentBlockParam): boolean {
  if (!CACHEABLE_TYPES.has(b.type)) return false;
  return b.type !== 'text' || !isBlank(b.text);
}

/** Content blocks nested in a tool_result (they may carry cache_control too). */
/** Shared by every block without nested blocks (no array allocated per block on the hot paths). */
const NONE: readonly object[] = Object.freeze([]);

export function nestedBlocks(b: ContentBlockParam): readonly object[] {
  if (b.type !== 'tool_result' || b.content === undefined || typeof b.content === 'string') return NONE;
  return b.content;
}

/** Message content as a block list (string content is one text block). */
export function contentBlocks(content: string | readonly ContentBlockParam[]): readonly ContentBlockParam[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

/**
 * A tool_result without blank nested text blocks and without nested
 * cache_control, or the same object when nothing had to change.
 */
export function cleanToolResult(b: Anthropic.ToolResultBlockParam): Anthropic.ToolResultBlockParam {
  if (typeof b.content === 'string' || b.content === undefined) return b;
  let changed = false;
  const content: NonNullable<Anthropic.ToolResultBlockParam['content']> = [];
  for (const c of b.content) {
    if (c.type === 'text' && isBlank(c.text)) {
      changed = true;
      continue;
    }
    const clean = withoutCacheControl(c);
    if (clean !== c) changed = true;
    content.push(clean);
  }
  if (!changed) return b;
  return { ...b, content };
}

/** True when two blocks serialize identically (reference equality first: the common case is zero-copy). */
export function sameBlock(a: object, b: object): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
