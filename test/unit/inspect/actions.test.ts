import { describe, expect, it } from 'vitest';
import { applyUserAction, InspectorActionError, originalsOf } from '../../../src/core/inspect';
import { toolResultText } from '../../../src/core/session';
import { replayFile, SAMPLES, sentToolResult } from './helpers';

describe('user actions change the next request', () => {
  it('pin brings back a result a strategy trimmed or summarized; unpin lets the strategy have it again', () => {
    const r = replayFile(SAMPLES[2]);
    const row = r
      .snapshot()
      .rows.find((x) => x.kind === 'tool_result' && x.state !== 'verbatim' && x.by?.startsWith('strategy:'));
    expect(row).toBeDefined();
    const block = r.engine.session.block(row!.blockId)!;
    const original = toolResultText(block.param);
    expect(sentToolResult(r.next, block.toolUseId!)).not.toBe(original);
    expect(applyUserAction(r.engine, { op: 'pin', blockId: row!.blockId }, r.history.length).message).toMatch(
      /^Pinned/,
    );
    r.reprepare();
    expect(sentToolResult(r.next, block.toolUseId!)).toBe(original);
    const pinned = r.snapshot().rows.find((x) => x.blockId === row!.blockId)!;
    expect(pinned.state).toBe('pinned');
    expect(pinned.by).toBe('user');
    applyUserAction(r.engine, { op: 'unpin', blockId: row!.blockId }, r.history.length);
    r.reprepare();
    expect(r.snapshot().rows.find((x) => x.blockId === row!.blockId)!.state).toBe(row!.state);
    expect(
      r.engine.decisions
        .about(row!.blockId)
        .filter((d) => d.by === 'user')
        .map((d) => d.action),
    ).toEqual(['pin', 'unpin']);
  });

  it("trim with the user's own summary replaces the result; restore sends the original again", () => {
    const r = replayFile(SAMPLES[0], 'none');
    const row = r
      .snapshot()
      .rows.filter((x) => x.kind === 'tool_result')
      .sort((a, b) => b.tokens - a.tokens)[0];
    const block = r.engine.session.block(row.blockId)!;
    const before = r.snapshot().cost.nextRequest;
    applyUserAction(
      r.engine,
      { op: 'trim', blockId: row.blockId, text: 'only the line numbers 10-20 matter' },
      r.history.length,
    );
    r.reprepare();
    const sent = sentToolResult(r.next, block.toolUseId!)!;
    expect(sent).toContain('only the line numbers 10-20 matter');
    expect(sent).toMatch(/^\[trimmed by Trimline: summary by the user/);
    const s = r.snapshot();
    const trimmed = s.rows.find((x) => x.blockId === row.blockId)!;
    expect(trimmed).toMatchObject({ state: 'trimmed', by: 'user' });
    expect(trimmed.tokens).toBeLessThan(row.tokens);
    expect(s.cost.nextRequest).not.toBe(before);
    const o = originalsOf(r.engine, trimmed.overlayId!);
    expect(o).toMatchObject({ kind: 'trim', author: 'user', omitted: 0 });
    expect(o.blocks[0].text.startsWith(toolResultText(block.param).slice(0, 100))).toBe(true);
    expect(applyUserAction(r.engine, { op: 'restore', blockId: row.blockId }, r.history.length).message).toMatch(
      /^Restored/,
    );
    r.reprepare();
    expect(sentToolResult(r.next, block.toolUseId!)).toBe(toolResultText(block.param));
    expect(r.snapshot().rows.find((x) => x.blockId === row.blockId)!.state).toBe('verbatim');
  });

  it('trim without text uses an automatic summary; a second trim replaces the first', () => {
    const r = replayFile(SAMPLES[0], 'none');
    // The largest result: a small one is refused (its summary would be longer, see the test below).
    const row = r
      .snapshot()
      .rows.filter((x) => x.kind === 'tool_result')
      .sort((a, b) => b.tokens - a.tokens)[0];
    applyUserAction(r.engine, { op: 'trim', blockId: row.blockId }, r.history.length);
    applyUserAction(r.engine, { op: 'trim', blockId: row.blockId, text: 'second' }, r.history.length);
    const trims = r.engine.session.overlaysOnBlock(row.blockId).filter((o) => o.kind === 'trim');
    expect(trims).toHaveLength(1);
    expect(trims[0].kind === 'trim' && trims[0].text).toContain('second');
  });

  it('refuses a trim whose summary would be longer than the original, and keeps an earlier trim', () => {
    const r = replayFile(SAMPLES[0], 'none');
    const rows = r
      .snapshot()
      .rows.filter((x) => x.kind === 'tool_result')
      .sort((a, b) => a.tokens - b.tokens);
    const small = rows[0];
    // The automatic summary of the smallest result (tool, status, size, first line) is longer than it.
    expect(() => applyUserAction(r.engine, { op: 'trim', blockId: small.blockId }, r.history.length)).toThrow(
      /would be longer than the original/,
    );
    expect(r.engine.session.overlaysOnBlock(small.blockId)).toHaveLength(0);
    const big = rows[rows.length - 1];
    applyUserAction(r.engine, { op: 'trim', blockId: big.blockId, text: 'short' }, r.history.length);
    const long = 'a much longer summary than the original '.repeat(big.tokens);
    expect(() => applyUserAction(r.engine, { op: 'trim', blockId: big.blockId, text: long }, r.history.length)).toThrow(
      InspectorActionError,
    );
    const trims = r.engine.session.overlaysOnBlock(big.blockId);
    expect(trims).toHaveLength(1);
    expect(trims[0].kind === 'trim' && trims[0].text).toMatch(/short$/);
    expect(
      r.engine.decisions
        .about(big.blockId)
        .filter((d) => d.by === 'user')
        .map((d) => d.action),
    ).toEqual(['trim']);
  });

  it('refuses what cannot be done, with a message for the user', () => {
    const r = replayFile(SAMPLES[0], 'none');
    const use = r.snapshot().rows.find((x) => x.kind === 'tool_use')!;
    expect(() => applyUserAction(r.engine, { op: 'trim', blockId: use.blockId }, 0)).toThrow(InspectorActionError);
    expect(() => applyUserAction(r.engine, { op: 'pin', blockId: 'nope' }, 0)).toThrow(/no block nope/);
    expect(() => originalsOf(r.engine, 'ov_missing')).toThrow(InspectorActionError);
    expect(applyUserAction(r.engine, { op: 'restore', blockId: use.blockId }, 0).message).toMatch(
      /already sent as recorded/,
    );
  });

  it('compact replaces the older history with one restorable digest', () => {
    const r = replayFile(SAMPLES[3], 'none');
    const before = r.snapshot();
    const res = applyUserAction(r.engine, { op: 'compact' }, r.history.length);
    expect(res.message).toMatch(/^Compacted messages/);
    r.reprepare();
    const after = r.snapshot();
    expect(after.totals.sentTokens).toBeLessThan(before.totals.sentTokens / 2);
    const summarized = after.rows.filter((x) => x.state === 'summarized');
    expect(summarized.length).toBeGreaterThan(0);
    const first = r.next.body.messages[0].content;
    expect(JSON.stringify(first)).toContain('compacted by the user');
    const o = originalsOf(r.engine, summarized[0].overlayId!);
    expect(o.kind).toBe('summary');
    expect(o.blocks.length + o.omitted).toBe(summarized.length);
    // Restoring any block of the range removes the compaction.
    applyUserAction(r.engine, { op: 'restore', blockId: summarized[0].blockId }, r.history.length);
    r.reprepare();
    expect(r.snapshot().rows.some((x) => x.state === 'summarized')).toBe(false);
    expect(applyUserAction(r.engine, { op: 'compact' }, 0).message).toMatch(/^Compacted/);
    expect(applyUserAction(r.engine, { op: 'compact' }, 0).message).toMatch(/already summarized/);
  });
});
