/**
 * THE cache rules (docs/anthropic-api.md, "Prompt caching"): every
 * other module that prices, plans, simulates or decides by the prompt cache takes
 * its rule from here, so a rule is written once.
 *
 * - TTL per breakpoint: `cache_control.ttl` "5m" (or absent) and "1h", counted from last use.
 * - Price multipliers on base input: 5-minute write 1.25×, 1-hour write 2×, read 0.1×.
 * - Minimum cacheable prefix per model: a fact of each model, kept in the model catalog
 *   (models/table.ts `minCacheableTokens`), which takes its multipliers from here.
 * - Lookback: a breakpoint finds an earlier write at most 20 block positions back, its own included.
 * - Thinking: on models that drop earlier turns' thinking, thinking before the last human prompt
 *   is not billed, and thinking blocks never key the cache.
 * - Block identity: a block's content without its `cache_control` markers, its own and those on a
 *   tool_result's parts (placement is not content).
 */
import type { CacheTtl } from './wire';

/** Default TTL ("ephemeral" without ttl) and the long one, counted from last use. */
export const TTL_5M_MS = 5 * 60_000;
export const TTL_1H_MS = 60 * 60_000;

/** Multipliers on base input price (reference: 5m write 1.25×, 1h write 2×, read 0.1×). */
export const CACHE_WRITE_5M_MULTIPLIER = 1.25;
export const CACHE_WRITE_1H_MULTIPLIER = 2;
export const CACHE_READ_MULTIPLIER = 0.1;

/**
 * Block positions the API checks for an earlier write, the breakpoint's own included
 * (reference: "looks back at most 20 block positions"; a breakpoint moved 20+ blocks
 * past the last write misses it, which is also when the planner adds an anchor).
 */
export const LOOKBACK_BLOCKS = 20;

/** At most this many `cache_control` blocks per request. */
export const MAX_BREAKPOINTS = 4;

/** The TTL a `cache_control` marker asks for (absent or malformed: 5 minutes). */
export function ttlOf(cc: { ttl?: unknown } | null | undefined): CacheTtl {
  return cc?.ttl === '1h' ? '1h' : '5m';
}

/** Milliseconds a marker keeps its prefix alive after last use. */
export function ttlMs(cc: { ttl?: unknown } | null | undefined): number {
  return ttlOf(cc) === '1h' ? TTL_1H_MS : TTL_5M_MS;
}

export function ttlMsOf(ttl: CacheTtl): number {
  return ttl === '1h' ? TTL_1H_MS : TTL_5M_MS;
}

/** Write multiplier of a TTL. */
export function writeMultiplier(ttl: CacheTtl): number {
  return ttl === '1h' ? CACHE_WRITE_1H_MULTIPLIER : CACHE_WRITE_5M_MULTIPLIER;
}

/** A block-like object without its own `cache_control` (the same object when it has none). */
export function withoutCacheControl<T extends object>(x: T): T {
  if (!('cache_control' in x)) return x;
  const copy: Record<string, unknown> = { ...(x as Record<string, unknown>) };
  delete copy.cache_control;
  return copy as T;
}

/**
 * Content identity of a block: the block without the `cache_control` markers the API accepts on it,
 * its own and those on the parts of a tool_result's content (each part may carry a breakpoint). A
 * marker is placement, not content: moving it does not change what is cached. Anything deeper
 * (a tool_use input's keys) is content. The same object when it carries no marker.
 */
export function blockIdentity<T extends object>(block: T): T {
  const top = withoutCacheControl(block);
  const parts = (top as { type?: unknown; content?: unknown }).content;
  if ((top as { type?: unknown }).type !== 'tool_result' || !Array.isArray(parts)) return top;
  if (!parts.some((x: unknown) => typeof x === 'object' && x !== null && 'cache_control' in x)) return top;
  const content = parts.map((x: unknown) => (typeof x === 'object' && x !== null ? withoutCacheControl(x) : x));
  return { ...top, content } as T;
}

/** Content identity of a block as JSON ({@link blockIdentity}). */
export function blockIdentityJson(block: object): string {
  return JSON.stringify(blockIdentity(block));
}

/** Content identity of a message as JSON: its role and its blocks by {@link blockIdentity}. */
export function messageIdentityJson(m: { readonly role: string; readonly content: readonly object[] }): string {
  return JSON.stringify({ role: m.role, content: m.content.map((b) => blockIdentity(b)) });
}

/** The shape the thinking rule needs of a message: a role and content blocks with a type. */
interface RuleMessage {
  readonly role: string;
  readonly content: string | readonly { readonly type?: string | null }[];
}

/** A user message that is not only tool results: a new human turn (earlier turns' thinking is dropped from here). */
export function isHumanPrompt(msg: RuleMessage): boolean {
  return typeof msg.content === 'string' ? msg.role === 'user' : isHumanPromptOf(msg.role, msg.content, (b) => b.type);
}

/** {@link isHumanPrompt} of a message kept in another shape: its role, its blocks and each block's type. */
export function isHumanPromptOf<B>(
  role: string,
  blocks: readonly B[],
  typeOf: (b: B) => string | null | undefined,
): boolean {
  return role === 'user' && blocks.some((b) => typeOf(b) !== 'tool_result');
}

export function isThinkingType(type: string | null | undefined): boolean {
  return type === 'thinking' || type === 'redacted_thinking';
}

/**
 * The thinking rule on the messages [from, to) of a request: on a model that drops earlier turns'
 * thinking, the index of the last human prompt (`isHuman(i)`), before which assistant messages'
 * thinking is not billed; `from` when nothing is dropped (the model keeps it, or no later prompt).
 */
export function thinkingDropIndex(isHuman: (i: number) => boolean, from: number, to: number, drops: boolean): number {
  if (!drops) return from;
  for (let i = to - 1; i > from; i--) if (isHuman(i)) return i;
  return from;
}

/** The thinking rule for message `index` of role `role`: its thinking blocks are left out (not billed, not keyed). */
export function thinkingDroppedIn(role: string, index: number, dropBefore: number): boolean {
  return index < dropBefore && role === 'assistant';
}

/** {@link thinkingDropIndex} over a whole request's messages, human prompts by {@link isHumanPrompt}. */
export function thinkingDroppedBefore(messages: readonly RuleMessage[], dropsEarlierThinking: boolean): number {
  return thinkingDropIndex((i) => isHumanPrompt(messages[i]), 0, messages.length, dropsEarlierThinking);
}
