/**
 * Sizes per call around client rewrites. When a call's recorded total is below
 * what the transcript holds (the client re-sent a shorter history: a resumed
 * or checkpointed session, a clearing it did not record), sizing.ts shrinks
 * the blocks that call re-sent. The calls before it sent them at their earlier
 * sizes, as their own recorded totals show: each call gets the sizes it sent.
 * The blocks keep their cache identity (the same bytes as far as the cache
 * goes; only the client's tokens for them differ).
 */
import type { BillMessage } from './bill-model';
import type { SizeRewrite } from './sizing';

/**
 * The messages of call `i`: the final sizes (`messages`) with, for every block a later rewrite
 * shrank, the size from before the first such rewrite. One array per span between rewrites;
 * unchanged messages stay the same objects (the bill model memoizes per message object).
 */
export function sizesByCall(
  messages: readonly BillMessage[],
  rewrites: readonly SizeRewrite[],
): (call: number) => readonly BillMessage[] {
  if (!rewrites.length) return () => messages;
  const sorted = [...rewrites].sort((a, b) => a.call - b.call);
  const spans: (readonly BillMessage[] | undefined)[] = [];
  const overrides: ReadonlyMap<string, number>[] = [];
  // Span j (calls before rewrite j, after rewrite j−1): a block takes its size from the first rewrite at or after j.
  let acc = new Map<string, number>();
  for (let j = sorted.length - 1; j >= 0; j--) {
    acc = new Map([...acc, ...sorted[j].before]);
    overrides[j] = acc;
  }
  const build = (o: ReadonlyMap<string, number>): readonly BillMessage[] =>
    messages.map((m) => {
      if (!m.blocks.some((b) => o.has(b.id))) return m;
      return { ...m, blocks: m.blocks.map((b) => (o.has(b.id) ? { ...b, tokens: o.get(b.id) ?? b.tokens } : b)) };
    });
  return (call) => {
    let j = 0;
    while (j < sorted.length && sorted[j].call <= call) j++;
    if (j === sorted.length) return messages;
    return (spans[j] ??= build(overrides[j]));
  };
}
