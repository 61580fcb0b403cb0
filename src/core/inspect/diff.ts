/**
 * Call-to-call diff: what a request added, removed or changed versus the one before,
 * and where the cached prefix broke. The prompt cache matches a prefix block by block
 * (any edit invalidates everything after it), so the break is the first position at
 * which the two requests differ, ignoring where `cache_control` markers sit.
 */
import type { BlockEdit, RequestDiff } from '../../protocol';
import { alignByIdentity, blockEdit, type Alignment } from './align';
import { blockIdentityJson } from '../api/cache-rules';
import type { BlockMap } from '../request/build';
import type { RequestBody } from '../api/wire';
import { flattenRequest, type FlatBlock } from './flat';

export interface DiffOptions {
  /** Index of the request `next` (default 0) and of `prev` (default call − 1). */
  call?: number;
  previous?: number;
  /** Display name of a block id (default: the id). */
  refOf?: (id: string) => string;
  /** Tokens of a block (default 0: counts only). */
  tokensOf?: (param: object) => number;
  /**
   * `prev` is another epoch's request (another log, so its block ids mean nothing here):
   * blocks are matched by content (align.ts) and named by this (the previous log's refs).
   */
  acrossEpochs?: { refOfPrevious: (id: string) => string };
}

/** Comparison key of a block: its content identity (cache/rules.ts), memoized per object. */
const keys = new WeakMap<object, string>();
function keyOf(param: object): string {
  let k = keys.get(param);
  if (k === undefined) {
    k = blockIdentityJson(param);
    keys.set(param, k);
  }
  return k;
}

/** Same content, wherever the breakpoints are (identity first: unchanged blocks are shared objects). */
export function sameContent(a: object, b: object): boolean {
  return a === b || keyOf(a) === keyOf(b);
}

/**
 * Index of the first position at which the two flat requests differ (= the length of the shared
 * prefix); `byContent`: block ids are not compared (the requests come from different logs).
 */
export function commonPrefixLength(prev: readonly FlatBlock[], next: readonly FlatBlock[], byContent = false): number {
  const n = Math.min(prev.length, next.length);
  let i = 0;
  while (i < n && (byContent || prev[i].id === next[i].id) && sameContent(prev[i].param, next[i].param)) i++;
  return i;
}

/** Diff of two flat requests (see {@link diffRequests}). */
export function diffFlat(prev: readonly FlatBlock[], next: readonly FlatBlock[], o: DiffOptions = {}): RequestDiff {
  const ref = o.refOf ?? ((id: string) => id);
  const refPrev = o.acrossEpochs?.refOfPrevious ?? ref;
  const tok = o.tokensOf ?? (() => 0);
  const byContent = (b: FlatBlock): string => `${b.section}\u0000${keyOf(b.param)}`;
  const a = o.acrossEpochs ? alignByIdentity(prev, next, byContent) : alignById(prev, next);
  // Blocks after the last one the previous request had are appended (a new turn), not replacements.
  let lastKnown = -1;
  for (const [, j] of [...a.same, ...a.changed]) lastKnown = Math.max(lastKnown, j);
  let addedTokens = 0;
  let removedTokens = 0;
  let replacementTokens = 0;
  const added: string[] = [];
  for (const j of a.added) {
    const t = tok(next[j].param);
    added.push(ref(next[j].id));
    addedTokens += t;
    if (j < lastKnown) replacementTokens += t;
  }
  const changed: string[] = [];
  const edits: BlockEdit[] = [];
  for (const [i, j] of a.changed) {
    const t = tok(next[j].param);
    const name = ref(next[j].id);
    changed.push(name);
    if (edits.length < MAX_EDITS) edits.push(blockEdit(name, prev[i], next[j]));
    addedTokens += t;
    replacementTokens += t;
    removedTokens += tok(prev[i].param);
  }
  const removed: string[] = [];
  for (const i of a.removed) {
    removed.push(refPrev(prev[i].id));
    removedTokens += tok(prev[i].param);
  }
  const common = commonPrefixLength(prev, next, o.acrossEpochs !== undefined);
  const broke = common < prev.length;
  let invalidatedTokens = 0;
  if (broke) for (let i = common; i < prev.length; i++) invalidatedTokens += tok(prev[i].param);
  const call = o.call ?? 0;
  const diff: RequestDiff = {
    call,
    added,
    removed: dedupe(removed),
    changed: dedupe(changed),
    commonPrefix: common,
    addedTokens,
    removedTokens,
    invalidatedTokens,
    savedTokens: removedTokens - replacementTokens,
    unchanged: a.same.length,
  };
  if (edits.length) diff.edits = edits;
  if (o.acrossEpochs) diff.acrossEpochs = true;
  const previous = o.previous ?? (call > 0 ? call - 1 : undefined);
  if (previous !== undefined) diff.previous = previous;
  if (broke) diff.cacheBreakAt = next[common] ? ref(next[common].id) : refPrev(prev[common].id);
  return diff;
}

/** Edits listed per diff (the Changed column names every changed block). */
const MAX_EDITS = 20;

/** Alignment of two requests of the same log: by block id (an overlay keeps its block's id). */
function alignById(prev: readonly FlatBlock[], next: readonly FlatBlock[]): Alignment {
  const before = new Map<string, number>();
  prev.forEach((b, i) => before.set(b.id, i));
  const seen = new Set<string>();
  const same: [number, number][] = [];
  const changed: [number, number][] = [];
  const added: number[] = [];
  next.forEach((b, j) => {
    seen.add(b.id);
    const i = before.get(b.id);
    if (i === undefined) added.push(j);
    else if (sameContent(prev[i].param, b.param)) same.push([i, j]);
    else changed.push([i, j]);
  });
  const removed: number[] = [];
  prev.forEach((b, i) => {
    if (!seen.has(b.id)) removed.push(i);
  });
  return { same, changed, added, removed };
}

/** `tools` / `system` refs repeat once per tool or system block: list them once. */
function dedupe(refs: string[]): string[] {
  return refs.length < 2 ? refs : [...new Set(refs)];
}

/**
 * What `nextBody` added, removed or changed versus `prevBody` (by block id), and the
 * block where the cached prefix broke (absent when `next` only appends to `prev`).
 */
export function diffRequests(
  prevBody: RequestBody,
  nextBody: RequestBody,
  blockMaps: { prev: BlockMap; next: BlockMap },
  o: DiffOptions = {},
): RequestDiff {
  return diffFlat(flattenRequest(prevBody, blockMaps.prev), flattenRequest(nextBody, blockMaps.next), o);
}
