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
 * - Block identity: a block's content without its own `cache_control` (placement is not content).
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

/** Content identity of a block: its JSON without its own `cache_control`. */
export function blockIdentityJson(block: object): string {
  return JSON.stringify(withoutCacheControl(block));
}

/** The shape the thinking rule needs of a message: a role and content blocks with a type. */
interface RuleMessage {
  readonly role: string;
  readonly content: string | readonly { readonly type?: string | null }[];
}

/** A user message that is not only tool results: a new human turn (earlier turns' thinking is dropped from here). */
export function isHumanPrompt(msg: RuleMessage): boolean {
  if (msg.role !== 'user') return false;
  return typeof msg.content === 'string' || msg.content.some((b) => b.type !== 'tool_result');
}

export function isThinkingType(type: string | null | undefined): boolean {
  return type === 'thinking' || type === 'redacted_thinking';
}

/**
 * The thinking rule: on a model that drops earlier turns' thinking, the index of the last
 * human prompt (thinking before it is not billed); -1 when none is dropped.
 */
export function thinkingDroppedBefore(messages: readonly RuleMessage[], dropsEarlierThinking: boolean): number {
  if (!dropsEarlierThinking) return -1;
  for (let i = messages.length - 1; i >= 0; i--) if (isHumanPrompt(messages[i])) return i;
  return -1;
}
