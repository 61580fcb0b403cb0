/**
 * What the cache simulator keeps of its previous step to skip the messages that
 * come again unchanged (CacheSimulatorOptions.reuseUnchangedMessages): the state
 * after each message depends only on the head (tools, system, boundary) and the
 * messages up to it, so an unchanged prefix of messages keeps its positions.
 */
import { thinkingDroppedIn } from '../api/cache-rules';
import type { SimBlock, SimMessage, TokensOf } from './sim-types';

/**
 * One message of the previous step, with the step's state after it: enough to skip every message
 * up to it when they come again unchanged (the state after a message depends only on the head and
 * the messages up to it).
 */
export interface MessageMemo {
  /** Undefined for string content (never reused). */
  readonly content: readonly SimBlock[] | undefined;
  readonly role: string;
  readonly drop: boolean;
  /** Whether this message or one before it holds an image. */
  readonly images: boolean;
  readonly n: number;
  readonly a: number;
  readonly b: number;
  readonly total: number;
  readonly carried: number;
  /** Breakpoints of the step up to and including this message. */
  readonly breakpoints: number;
  readonly lastCacheable: number;
  readonly lastCacheableHasCc: boolean;
}

/** The state at the start of the messages (after tools, system and the message boundary). */
export interface HeadState {
  readonly a: number;
  readonly b: number;
  readonly n: number;
  readonly total: number;
  readonly tokensOf: TokensOf;
}

/** Whether a message holds an image block. */
export function containsImage(m: SimMessage): boolean {
  if (typeof m.content === 'string') return false;
  for (const b of m.content) if (b.type === 'image') return true;
  return false;
}

/** How many leading messages are the previous step's: same content arrays, roles and thinking drops. */
export function unchangedPrefix(prev: readonly MessageMemo[], msgs: readonly SimMessage[], lastHuman: number): number {
  const limit = Math.min(prev.length, msgs.length);
  let from = 0;
  while (from < limit) {
    const p = prev[from];
    const m = msgs[from];
    if (p.content !== m.content || p.role !== m.role || p.drop !== thinkingDroppedIn(m.role, from, lastHuman)) break;
    from++;
  }
  return from;
}

/** Whether any message holds an image: known for the first `from` (unchanged) ones, scanned for the rest. */
export function imagesIn(prev: readonly MessageMemo[], msgs: readonly SimMessage[], from: number): boolean {
  let images = from > 0 && prev[from - 1].images;
  for (let i = from; !images && i < msgs.length; i++) images = containsImage(msgs[i]);
  return images;
}
