/**
 * Which thinking blocks of a request the API counts. Whether a model keeps
 * earlier turns' thinking is a model fact (models/behavior.ts); this file
 * applies it to a message list.
 */
import { keepsPriorThinking } from '../models';
import type { ContentBlockParam, MessageParam } from '../session/types';

/** A user message that starts a new turn: anything besides tool results (a tool-result-only message continues the agent loop). */
export function isHumanTurn(m: MessageParam): boolean {
  if (m.role !== 'user') return false;
  if (typeof m.content === 'string') return true;
  return m.content.some((b) => b.type !== 'tool_result');
}

/**
 * Thinking blocks the API does not count in a request made of `messages`:
 * on models that drop earlier turns' thinking, every thinking block before the
 * last human turn. The returned set holds the block objects themselves.
 */
export function uncountedThinking(messages: readonly MessageParam[], model: string | undefined): Set<ContentBlockParam> {
  const out = new Set<ContentBlockParam>();
  if (keepsPriorThinking(model)) return out;
  let lastHuman = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (isHumanTurn(messages[i])) {
      lastHuman = i;
      break;
    }
  }
  for (let i = 0; i < lastHuman; i++) {
    const c = messages[i].content;
    if (messages[i].role !== 'assistant' || typeof c === 'string') continue;
    for (const b of c) if (b.type === 'thinking' || b.type === 'redacted_thinking') out.add(b);
  }
  return out;
}
