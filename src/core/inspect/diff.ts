/**
 * Call-to-call diff: what a request added, removed or changed versus the one before,
 * and where the cached prefix broke. The prompt cache matches a prefix block by block
 * (any edit invalidates everything after it), so the break is the first position at
 * which the two requests differ, ignoring where `cache_control` markers sit.
 */
import type { RequestDiff } from '../../protocol';
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

/** Index of the first position at which the two flat requests differ (= the length of the shared prefix). */
export function commonPrefixLength(prev: readonly FlatBlock[], next: readonly FlatBlock[]): number {
  const n = Math.min(prev.length, next.length);
  let i = 0;
  while (i < n && prev[i].id === next[i].id && sameContent(prev[i].param, next[i].param)) i++;
  return i;
}

/** Diff of two flat requests (see {@link diffRequests}). */
export function diffFlat(prev: readonly FlatBlock[], next: readonly FlatBlock[], o: DiffOptions = {}): RequestDiff {
  const ref = o.refOf ?? ((id: string) => id);
  const tok = o.tokensOf ?? (() => 0);
  const before = new Map<string, object>();
  for (const b of prev) before.set(b.id, b.param);
  const seen = new Set<string>();
  const added: string[] = [];
  const changed: string[] = [];
  let addedTokens = 0;
  let removedTokens = 0;
  // Blocks after the last one the previous request had are appended (a new turn), not replacements.
  let lastKnown = -1;
  next.forEach((b, i) => {
    if (before.has(b.id)) lastKnown = i;
  });
  let replacementTokens = 0;
  next.forEach((b, i) => {
    seen.add(b.id);
    const old = before.get(b.id);
    if (old === undefined) {
      const t = tok(b.param);
      added.push(ref(b.id));
      addedTokens += t;
      if (i < lastKnown) replacementTokens += t;
    } else if (!sameContent(old, b.param)) {
      const t = tok(b.param);
      changed.push(ref(b.id));
      addedTokens += t;
      replacementTokens += t;
      removedTokens += tok(old);
    }
  });
  const removed: string[] = [];
  for (const b of prev) {
    if (seen.has(b.id)) continue;
    removed.push(ref(b.id));
    removedTokens += tok(b.param);
  }
  const common = commonPrefixLength(prev, next);
  const broke = common < prev.length;
  let invalidatedTokens = 0;
  if (broke) for (let i = common; i < prev.length; i++) invalidatedTokens += tok(prev[i].param);
  const call = o.call ?? 0;
  const diff: RequestDiff = { call, added, removed: dedupe(removed), changed: dedupe(changed), commonPrefix: common, addedTokens, removedTokens, invalidatedTokens, savedTokens: removedTokens - replacementTokens };
  const previous = o.previous ?? (call > 0 ? call - 1 : undefined);
  if (previous !== undefined) diff.previous = previous;
  if (broke) diff.cacheBreakAt = ref((next[common] ?? prev[common]).id);
  return diff;
}

/** `tools` / `system` refs repeat once per tool or system block: list them once. */
function dedupe(refs: string[]): string[] {
  return refs.length < 2 ? refs : [...new Set(refs)];
}

/**
 * What `nextBody` added, removed or changed versus `prevBody` (by block id), and the
 * block where the cached prefix broke (absent when `next` only appends to `prev`).
 */
export function diffRequests(prevBody: RequestBody, nextBody: RequestBody, blockMaps: { prev: BlockMap; next: BlockMap }, o: DiffOptions = {}): RequestDiff {
  return diffFlat(flattenRequest(prevBody, blockMaps.prev), flattenRequest(nextBody, blockMaps.next), o);
}
