/** Actions priced on the inspector's rows: where the edit starts, what is cached after it, what it saves. */
import { describe, expect, it } from 'vitest';
import { DeferredActions, priceOfAction, withPrices } from '../../../src/core/inspect/action-pricing';
import type { InspectorRow, InspectorSnapshot } from '../../../src/protocol';

const row = (i: number, tokens: number, over: Partial<InspectorRow> = {}): InspectorRow => ({
  ref: `${i}.0`,
  blockId: `b${i}`,
  messageId: `m${i}`,
  position: i,
  role: i % 2 ? 'assistant' : 'user',
  kind: 'tool_result',
  tokens,
  originalTokens: tokens,
  quality: 'estimated',
  state: 'verbatim',
  breakpoint: false,
  cached: true,
  sent: true,
  preview: '',
  ...over,
});
const rows = [
  row(0, 1000),
  row(1, 5000),
  row(2, 3000),
  row(3, 2000, { cached: false }),
  row(4, 500, { state: 'trimmed', originalTokens: 4000, cached: false }),
];
const snapshot = {
  rows,
  findings: [
    {
      id: 'f1',
      severity: 'info',
      message: 'big result',
      blockIds: ['b1'],
      action: { kind: 'trim', blockId: 'b1', label: 'Trim' },
    },
    { id: 'f2', severity: 'info', message: 'no action', blockIds: [] },
  ],
} as unknown as InspectorSnapshot;
const ctx = { snapshot, model: 'claude-sonnet-4-6', ttl: '5m' as const, callsSoFar: 30, idleMs: 60_000 };

describe('priceOfAction', () => {
  it('a trim rewrites the cached rows from it on and saves its tokens less the summary', () => {
    const p = priceOfAction(ctx, { op: 'trim', blockId: 'b1', text: 'x'.repeat(40) });
    expect(p.rewriteTokens).toBe(5000 + 3000);
    expect(p.tokensPerCall).toBe(5000 - 10);
  });
  it('restoring a trimmed block adds its tokens back; unpin changes nothing; unknown blocks are refused', () => {
    expect(priceOfAction(ctx, { op: 'restore', blockId: 'b4' })).toMatchObject({
      tokensPerCall: -3500,
      rewriteTokens: 0,
      paysBack: false,
    });
    expect(priceOfAction(ctx, { op: 'unpin', blockId: 'b1' })).toMatchObject({
      tokensPerCall: 0,
      rewriteTokens: 0,
      paysBack: true,
    });
    expect(() => priceOfAction(ctx, { op: 'trim', blockId: 'nope' })).toThrow(/no block nope/);
  });
  it('findings with an action carry its price; the rest are untouched', () => {
    const f = withPrices(snapshot, ctx);
    expect(f[0].price).toEqual(priceOfAction(ctx, { op: 'trim', blockId: 'b1' }));
    expect(f[1]).toBe(snapshot.findings[1]);
  });
  it('deferred actions wait for a cold cache', () => {
    const d = new DeferredActions();
    d.add({ op: 'trim', blockId: 'b1' }, '5m');
    expect(d.takeIfCold(4 * 60_000, '5m')).toEqual([]);
    expect(d.takeIfCold(6 * 60_000, '1h')).toEqual([]);
    expect(d.takeIfCold(6 * 60_000, '5m')).toEqual([{ op: 'trim', blockId: 'b1' }]);
    expect(d.size).toBe(0);
    expect(() => d.add({ op: 'setStrategy', spec: 'none' }, '5m')).toThrow(/cannot wait/);
  });
});
