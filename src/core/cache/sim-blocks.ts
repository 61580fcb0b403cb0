/** What the cache simulator asks of a block: its identity, whether it can hold a breakpoint, and its chain tag. */
import { blockIdentityJson, isThinkingType } from '../api/cache-rules';
import type { SimBlock } from './sim-types';

export const isThinking = (block: SimBlock): boolean => isThinkingType(block.type);
/** Content identity of a block: its JSON without its own `cache_control` (placement is not content). */
export const blockJson = (block: SimBlock): string => blockIdentityJson(block);

/** Chain tags keep equal bytes in different places (a tool vs a system block, a user vs an assistant block) apart. */
export const ROLE_TAG: Readonly<Record<string, number>> = { user: 1, assistant: 2, system: 3 };
export const TAG_OTHER_ROLE = 4;
export const TAG_TOOL = 16;
export const TAG_SYSTEM = 17;
/** Added to a message block's tag when it opens a new message (message boundaries are content). */
export const TAG_FIRST_IN_MESSAGE = 8;

export function isCacheable(block: SimBlock): boolean {
  if (isThinking(block)) return false;
  if (block.type === 'text') {
    const text = (block as { text?: unknown }).text;
    return typeof text === 'string' && text.length > 0;
  }
  return true;
}
