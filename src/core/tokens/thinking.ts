/**
 * Which thinking blocks of a request the API counts. Whether a model keeps
 * earlier turns' thinking is a model fact (models/behavior.ts); this file
 * applies it to a message list.
 */
import { isHumanPrompt, isThinkingType, thinkingDroppedBefore } from '../api/cache-rules';
import { keepsPriorThinking } from '../models';
import type { ContentBlockParam, MessageParam } from '../session/types';

/** A user message that starts a new turn: anything besides tool results (the rule: cache/rules.ts). */
export function isHumanTurn(m: MessageParam): boolean {
  return isHumanPrompt(m);
}

/**
 * Thinking blocks the API does not count in a request made of `messages`:
 * on models that drop earlier turns' thinking, every thinking block before the
 * last human turn. The returned set holds the block objects themselves.
 */
export function uncountedThinking(
  messages: readonly MessageParam[],
  model: string | undefined,
): Set<ContentBlockParam> {
  const out = new Set<ContentBlockParam>();
  const lastHuman = thinkingDroppedBefore(messages, !keepsPriorThinking(model));
  for (let i = 0; i < lastHuman; i++) {
    const c = messages[i].content;
    if (messages[i].role !== 'assistant' || typeof c === 'string') continue;
    for (const b of c) if (isThinkingType(b.type)) out.add(b);
  }
  return out;
}
