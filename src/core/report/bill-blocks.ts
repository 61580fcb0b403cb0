/**
 * Bill messages as the API counts them: earlier turns' thinking dropped for models that do not keep it,
 * thinking folded into the next block (it keys no cache position), and where a block ends in tokens.
 */
import { thinkingDropIndex, thinkingDroppedIn } from '../api/cache-rules';
import { keepsPriorThinking } from '../models';
import type { BillBlock, BillMessage } from './bill-types';

/** The thinking rule (cache/rules.ts) on bill messages: the index before which earlier turns' thinking is dropped. */
export function thinkingDropAt(messages: readonly BillMessage[], drops: boolean): number {
  return thinkingDropIndex((i) => messages[i].role === 'user' && messages[i].humanTurn, 0, messages.length, drops);
}

/**
 * Messages as the API counts them: for models that drop earlier thinking,
 * thinking blocks before the last human turn are left out.
 */
export function effectiveMessages(messages: readonly BillMessage[], model: string): readonly BillMessage[] {
  const dropBefore = thinkingDropAt(messages, !keepsPriorThinking(model));
  if (dropBefore <= 0) return messages;
  return messages.map((m, i) => (thinkingDroppedIn(m.role, i, dropBefore) ? withoutThinking(m) : m));
}

/** An assistant message without its thinking blocks (the same object when it has none). */
export function withoutThinking(m: BillMessage): BillMessage {
  return m.role === 'assistant' && m.blocks.some((b) => b.thinking)
    ? { ...m, blocks: m.blocks.filter((b) => !b.thinking) }
    : m;
}

/**
 * Thinking blocks do not key the cache: measured on the m-claude Sonnet 4.5
 * sessions, when a human turn drops a whole turn's thinking (the total input
 * shrinks by it) the next call still reads everything else from cache, up to
 * the previous call's breakpoint. So a thinking block's tokens are carried by
 * the next block of its message (the last one before it when none follows),
 * and the block itself is no cache position.
 */
export function foldThinking(blocks: readonly BillBlock[]): { block: BillBlock; tokens: number }[] {
  const out: { block: BillBlock; tokens: number }[] = [];
  let carry = 0;
  for (const b of blocks) {
    if (b.thinking) {
      carry += b.tokens;
      continue;
    }
    out.push({ block: b, tokens: b.tokens + carry });
    carry = 0;
  }
  if (carry > 0) {
    if (out.length) out[out.length - 1].tokens += carry;
    else if (blocks.length) out.push({ block: blocks[blocks.length - 1], tokens: carry });
  }
  return out;
}

/**
 * The block that ends closest to `offset` tokens into the messages (as
 * counted: thinking dropped and folded). Used to place the client's message
 * breakpoint where the recorded usage says it was: `input_tokens` are the
 * tokens after the last breakpoint.
 */
export function blockEndingNear(messages: readonly BillMessage[], model: string, offset: number): string | undefined {
  let cum = 0;
  let best: string | undefined;
  let bestDist = Infinity;
  for (const m of effectiveMessages(messages, model)) {
    for (const f of foldThinking(m.blocks)) {
      cum += f.tokens;
      const d = Math.abs(cum - offset);
      if (d < bestDist) {
        bestDist = d;
        best = f.block.id;
      }
    }
  }
  return best;
}

/** Sum of the tokens of effective messages. */
export function messageTokens(messages: readonly BillMessage[]): number {
  let n = 0;
  for (const m of messages) for (const b of m.blocks) n += b.tokens;
  return n;
}
