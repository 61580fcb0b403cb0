import { describe, expect, it } from 'vitest';
import { applyUserAction, diffRequests } from '../../../src/core/inspect';
import { diffFlat } from '../../../src/core/inspect/diff';
import type { FlatBlock } from '../../../src/core/inspect/flat';
import { BlockMap } from '../../../src/core/request/build';
import type { RequestBody } from '../../../src/core/api/wire';
import { replayFile, SAMPLES } from './helpers';

const text = (t: string, cc = false) => ({
  type: 'text' as const,
  text: t,
  ...(cc ? { cache_control: { type: 'ephemeral' as const } } : {}),
});
function body(...contents: ReturnType<typeof text>[][]): RequestBody {
  return {
    model: 'claude-sonnet-4-5',
    max_tokens: 100,
    messages: contents.map((content, i) => ({ role: i % 2 ? 'assistant' : 'user', content })),
  };
}

describe('diffRequests', () => {
  const map = (...rows: string[][]) => new BlockMap(rows);

  it('a request that only appends keeps the cached prefix (breakpoints may move)', () => {
    const prev = body([text('a', true)]);
    const next = body([text('a')], [text('b')], [text('c', true)]);
    const d = diffRequests(
      prev,
      next,
      { prev: map(['a']), next: map(['a'], ['b'], ['c']) },
      { call: 1, tokensOf: () => 10 },
    );
    expect(d).toMatchObject({
      call: 1,
      previous: 0,
      added: ['b', 'c'],
      removed: [],
      changed: [],
      commonPrefix: 1,
      invalidatedTokens: 0,
      savedTokens: 0,
      addedTokens: 20,
    });
    expect(d.cacheBreakAt).toBeUndefined();
  });

  it('an edit in the middle breaks the prefix there; what follows is re-written', () => {
    const prev = body([text('a')], [text('b')], [text('c', true)]);
    const next = body([text('a')], [text('B (short)')], [text('c')], [text('d', true)]);
    const tokensOf = (p: object) => ((p as { text: string }).text.length > 1 ? 2 : 10);
    const d = diffRequests(
      prev,
      next,
      { prev: map(['a'], ['b'], ['c']), next: map(['a'], ['b'], ['c'], ['d']) },
      { call: 5, refOf: (id) => `ref-${id}`, tokensOf },
    );
    expect(d.cacheBreakAt).toBe('ref-b');
    expect(d.changed).toEqual(['ref-b']);
    expect(d.added).toEqual(['ref-d']);
    expect(d.commonPrefix).toBe(1);
    expect(d.invalidatedTokens).toBe(20);
    // b: 10 → 2 tokens; d is appended, not a replacement.
    expect(d.savedTokens).toBe(8);
  });

  it('a summary replacing blocks counts as removed + inserted, saving the difference', () => {
    const prev = body([text('a')], [text('b')], [text('c')]);
    const next = body([text('s')], [text('c')]);
    const d = diffRequests(
      prev,
      next,
      { prev: map(['a'], ['b'], ['c']), next: map(['summary:x'], ['c']) },
      { call: 2, tokensOf: () => 10 },
    );
    expect(d.removed).toEqual(['a', 'b']);
    expect(d.added).toEqual(['summary:x']);
    expect(d.cacheBreakAt).toBe('summary:x');
    expect(d.savedTokens).toBe(10);
  });
});

describe('diffFlat across epochs (block ids of another log: matched by content)', () => {
  const flat = (...texts: string[]): FlatBlock[] =>
    texts.map((t, i) => ({ id: `x${i}`, section: 'messages', param: text(t) }));
  const across = { acrossEpochs: { refOfPrevious: (id: string) => `old-${id}` } };

  it('an edited block is a change at its place, with where its text differs; the rest is unchanged', () => {
    const prev = flat('a', 'b', 'the build failed at step 3', 'c');
    const next = flat('a', 'b', 'the build passed at step 3', 'c', 'd');
    next[2] = { ...next[2], param: { ...text('the build passed at step 3'), cache_control: { type: 'ephemeral' } } };
    const d = diffFlat(prev, next, { call: 7, previous: 6, ...across });
    expect(d).toMatchObject({ changed: ['x2'], added: ['x4'], removed: [], unchanged: 3, commonPrefix: 2 });
    expect(d.cacheBreakAt).toBe('x2');
    expect(d.acrossEpochs).toBe(true);
    const edit = { ref: 'x2', at: 10, context: 'the build ', before: 'fail', after: 'pass' };
    expect(d.edits).toEqual([{ ...edit, beforeLength: 26, afterLength: 26 }]);
  });

  it('a dropped block is removed (named in the earlier log); a cache_control move alone changes nothing', () => {
    const prev = flat('a', 'b', 'c');
    const next = flat('a', 'c');
    next[1] = { ...next[1], param: { ...text('c'), cache_control: { type: 'ephemeral' } } };
    const d = diffFlat(prev, next, across);
    expect(d).toMatchObject({ changed: [], added: [], removed: ['old-x1'], unchanged: 2, commonPrefix: 1 });
    expect(d.edits).toBeUndefined();
  });

  it('without the option, blocks of another log would all look new: ids do not match', () => {
    const d = diffFlat(
      flat('a', 'b'),
      flat('a', 'b').map((b) => ({ ...b, id: `y-${b.id}` })),
    );
    expect(d.added).toHaveLength(2);
    const other = flat('a', 'b').map((b) => ({ ...b, id: `y-${b.id}` }));
    expect(diffFlat(flat('a', 'b'), other, across)).toMatchObject({ added: [], unchanged: 2 });
  });
});

describe('call-to-call diffs on a replayed transcript', () => {
  it('with no strategy every recorded call only appends', () => {
    const r = replayFile(SAMPLES[0], 'none');
    expect(r.history.diffs).toHaveLength(r.imp.calls.length);
    expect(r.history.diffs[0].previous).toBeUndefined();
    expect(r.history.diffs[0].removed).toEqual([]);
    for (const d of r.history.diffs.slice(1)) {
      expect(d.cacheBreakAt).toBeUndefined();
      expect(d.removed).toEqual([]);
      expect(d.changed).toEqual([]);
    }
  });

  it("a user's trim of an old result shows as changed, breaking the prefix at that block", () => {
    const r = replayFile(SAMPLES[1], 'none');
    const s = r.snapshot();
    const big = s.rows.filter((x) => x.kind === 'tool_result' && x.cached).sort((a, b) => b.tokens - a.tokens)[0];
    expect(big).toBeDefined();
    applyUserAction(r.engine, { op: 'trim', blockId: big.blockId }, r.history.length);
    r.reprepare();
    const d = r.history.diffNext(r.next.body, r.next.blockMap);
    expect(d.changed).toContain(big.ref);
    expect(d.cacheBreakAt).toBe(big.ref);
    expect(d.invalidatedTokens).toBeGreaterThan(0);
    expect(d.savedTokens).toBeGreaterThan(0);
    // The next request's price now includes re-writing the cache from that block on.
    const after = r.snapshot();
    expect(after.cost.nextTokens.cacheWrite).toBeGreaterThan(s.cost.nextTokens.cacheWrite);
    expect(after.findings.some((f) => f.id === 'invalidation:next')).toBe(d.invalidatedTokens >= 1024);
  });
});
