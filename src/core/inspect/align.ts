/**
 * Two requests aligned block by block when their block ids cannot be compared: the first
 * call of a new epoch (the client edited its history, so the proxy started a new log) is
 * compared with the previous epoch's last request. Blocks are matched by content identity
 * (the cache's own rule, api/cache-rules.ts: `cache_control` aside), in order; between two
 * matched blocks, what is left on both sides pairs up position by position as a change,
 * and the rest is added or removed. A change carries where its text first differs.
 */
import type { BlockEdit } from '../../protocol';
import type { ContentBlockParam } from '../session/types';
import { blockText } from '../session/log';
import type { FlatBlock } from './flat';

/** Characters of context before the first difference, and of each side's changed text, in an edit. */
const EDIT_CONTEXT = 40;
const EDIT_SPAN = 160;

export interface Alignment {
  /** Pairs [prev index, next index] with the same content. */
  readonly same: readonly (readonly [number, number])[];
  /** Pairs [prev index, next index] at the same place with other content. */
  readonly changed: readonly (readonly [number, number])[];
  readonly added: readonly number[];
  readonly removed: readonly number[];
}

/**
 * Align `prev` and `next` by the content key of each block (`keyOf`): each next block takes
 * the earliest unmatched previous block with its key at or after the last match.
 */
export function alignByIdentity(
  prev: readonly FlatBlock[],
  next: readonly FlatBlock[],
  keyOf: (b: FlatBlock) => string,
): Alignment {
  const at = new Map<string, number[]>();
  prev.forEach((b, i) => {
    const k = keyOf(b);
    const list = at.get(k);
    if (list) list.push(i);
    else at.set(k, [i]);
  });
  const same: [number, number][] = [];
  const changed: [number, number][] = [];
  const added: number[] = [];
  const removed: number[] = [];
  let i = 0;
  let pending: number[] = [];
  const closeGap = (until: number): void => {
    const gap: number[] = [];
    for (let p = i; p < until; p++) gap.push(p);
    const n = Math.min(gap.length, pending.length);
    for (let x = 0; x < n; x++) changed.push([gap[x], pending[x]]);
    removed.push(...gap.slice(n));
    added.push(...pending.slice(n));
    pending = [];
  };
  next.forEach((b, j) => {
    const list = at.get(keyOf(b));
    while (list && list.length && list[0] < i) list.shift();
    const k = list?.[0];
    if (k === undefined) {
      pending.push(j);
      return;
    }
    list!.shift();
    closeGap(k);
    same.push([k, j]);
    i = k + 1;
  });
  closeGap(prev.length);
  return { same, changed, added, removed };
}

/** Text of a flat block as the user reads it (content blocks by their text, tools and others as JSON). */
function textOf(b: FlatBlock): string {
  const t = (b.param as { type?: unknown }).type;
  const content = b.section === 'messages' && typeof t === 'string';
  return content ? blockText(b.param as ContentBlockParam) : JSON.stringify(b.param);
}

/** Where the text of a changed block first differs, with a little context and each side's changed part. */
export function blockEdit(ref: string, before: FlatBlock, after: FlatBlock): BlockEdit {
  const a = textOf(before);
  const b = textOf(after);
  let at = 0;
  const n = Math.min(a.length, b.length);
  while (at < n && a.charCodeAt(at) === b.charCodeAt(at)) at++;
  let tail = 0;
  while (tail < n - at && a.charCodeAt(a.length - 1 - tail) === b.charCodeAt(b.length - 1 - tail)) tail++;
  const cut = (s: string): string => (s.length > EDIT_SPAN ? `${s.slice(0, EDIT_SPAN)}…` : s);
  return {
    ref,
    at,
    context: a.slice(Math.max(0, at - EDIT_CONTEXT), at),
    before: cut(a.slice(at, a.length - tail)),
    after: cut(b.slice(at, b.length - tail)),
    beforeLength: a.length,
    afterLength: b.length,
  };
}
