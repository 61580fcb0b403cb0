/**
 * The assembler's thinking rules (reference, "Requests that the API rejects"): the latest
 * assistant message keeps every thinking block verbatim (overlays on them are ignored) and
 * thinking first; older turns lose their thinking when a merge left it behind another block
 * (older thinking may be dropped).
 */
import type { ContentBlockParam } from '../session/types';
import { isThinking } from '../api/blocks';
import { setBlocks, type Turn } from './turns';

/** How a pass reports a repair (rule, description, block ids). */
export type Report = (rule: string, description: string, ids: (string | undefined)[]) => void;

/**
 * Thinking rules (see module doc); returns the thinking the latest assistant message must carry. `reach` is told of
 * each turn as the pass comes to it.
 */
export function thinkingPass(turns: Turn[], repair: Report, reach?: (t: Turn) => void): ContentBlockParam[] {
  let latest = -1;
  for (let i = 0; i < turns.length; i++) if (turns[i].role === 'assistant') latest = i;
  turns.forEach((t, i) => {
    reach?.(t);
    if (t.role !== 'assistant') return;
    if (i === latest) keepLatestThinking(t, repair);
    else dropMisplacedThinking(t, repair);
  });
  return turns[latest]?.thinkingFrom?.originalThinking.slice() ?? [];
}

function keepLatestThinking(t: Turn, repair: Report): void {
  const hidden = t.blocks.filter((b) => b.hidden);
  if (hidden.length > 0) {
    setBlocks(
      t,
      t.blocks.map((b) => (b.hidden ? { id: b.id, param: b.param } : b)),
    );
    repair(
      'latest-thinking-kept',
      'sent thinking blocks of the latest assistant message verbatim (they cannot be modified)',
      hidden.map((b) => b.id),
    );
  }
  const f = t.blocks.findIndex((b) => isThinking(b.param));
  if (f <= 0) return;
  let g = f;
  while (g < t.blocks.length && isThinking(t.blocks[g].param)) g++;
  const moved = t.blocks.slice(0, f);
  setBlocks(t, [...t.blocks.slice(f, g), ...moved, ...t.blocks.slice(g)]);
  repair(
    'latest-thinking-first',
    'moved merged-in blocks after the thinking of the latest assistant message',
    moved.map((b) => b.id),
  );
}

function dropMisplacedThinking(t: Turn, repair: Report): void {
  const first = t.blocks.find((b) => !b.hidden);
  const misplaced =
    first !== undefined && !isThinking(first.param) && t.blocks.some((b) => !b.hidden && isThinking(b.param));
  if (!misplaced) return; // hidden thinking of older turns is simply not output
  const dropped = t.blocks.filter((b) => !b.hidden && isThinking(b.param)).map((b) => b.id);
  setBlocks(
    t,
    t.blocks.filter((b) => !isThinking(b.param)),
  );
  repair(
    'older-thinking-dropped',
    'dropped thinking of an older assistant message that a merge left behind other blocks',
    dropped,
  );
}
