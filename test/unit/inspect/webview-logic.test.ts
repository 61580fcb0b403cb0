import { describe, expect, it } from 'vitest';
import type { InspectorRow } from '../../../src/protocol';
import { filterRows, gridItems, NO_FILTER, toolNames } from '../../../webview/inspector/filter';
import { HeightIndex } from '../../../webview/inspector/height-index';

describe('HeightIndex (the virtual grid prefix sums)', () => {
  it('gives offsets and the item at an offset, before and after updates', () => {
    const n = 5000;
    const idx = new HeightIndex(n, 30);
    expect(idx.total).toBe(n * 30);
    expect(idx.offset(0)).toBe(0);
    expect(idx.offset(100)).toBe(3000);
    expect(idx.indexAt(0)).toBe(0);
    expect(idx.indexAt(29.9)).toBe(0);
    expect(idx.indexAt(30)).toBe(1);
    expect(idx.indexAt(1e9)).toBe(n - 1);
    idx.set(10, 230);
    expect(idx.offset(11)).toBe(10 * 30 + 230);
    expect(idx.indexAt(300 + 229)).toBe(10);
    expect(idx.indexAt(300 + 230)).toBe(11);
    expect(idx.total).toBe(n * 30 + 200);
    // Brute force agreement on random heights.
    const hs = Array.from({ length: 257 }, (_, i) => 10 + ((i * 7919) % 50));
    const r = HeightIndex.of(hs);
    let acc = 0;
    hs.forEach((hgt, i) => {
      expect(r.offset(i)).toBe(acc);
      expect(r.indexAt(acc + hgt / 2)).toBe(i);
      acc += hgt;
    });
    expect(new HeightIndex(0, 30).indexAt(10)).toBe(-1);
  });
});

describe('row filters and grid items', () => {
  const row = (i: number, o: Partial<InspectorRow>): InspectorRow => ({
    ref: `${i}.0`,
    blockId: `m${i}.0`,
    messageId: `m${i}`,
    position: i,
    role: 'user',
    kind: 'text',
    tokens: 10,
    originalTokens: 10,
    quality: 'estimated',
    state: 'verbatim',
    breakpoint: false,
    cached: false,
    sent: true,
    preview: '',
    ...o,
  });
  const rows = [
    row(0, { cached: true, preview: 'Fix the LOGIN bug' }),
    row(1, { role: 'assistant', kind: 'tool_use', tool: 'Read', cached: true }),
    row(2, { kind: 'tool_result', tool: 'Read', state: 'trimmed', why: 'older than 4 rounds' }),
    row(3, { role: 'assistant', kind: 'tool_use', tool: 'Bash' }),
  ];

  it('filters by role, tool, state and text (case-insensitive, in previews and reasons)', () => {
    expect(filterRows(rows, NO_FILTER)).toHaveLength(4);
    expect(filterRows(rows, { ...NO_FILTER, role: 'assistant' }).map((r) => r.ref)).toEqual(['1.0', '3.0']);
    expect(filterRows(rows, { ...NO_FILTER, tool: 'Read' }).map((r) => r.ref)).toEqual(['1.0', '2.0']);
    expect(filterRows(rows, { ...NO_FILTER, state: 'trimmed' }).map((r) => r.ref)).toEqual(['2.0']);
    expect(filterRows(rows, { ...NO_FILTER, text: 'login' }).map((r) => r.ref)).toEqual(['0.0']);
    expect(filterRows(rows, { ...NO_FILTER, text: ' 4 ROUNDS ' }).map((r) => r.ref)).toEqual(['2.0']);
    expect(toolNames(rows)).toEqual(['Read', 'Bash']);
  });

  it('puts the cached-prefix divider after the last cached row, only when uncached rows follow', () => {
    expect(gridItems(rows, 1234).map((i) => i.key)).toEqual(['m0.0', 'm1.0', 'cache-divider', 'm2.0', 'm3.0']);
    expect(gridItems(rows.slice(0, 2), 5).some((i) => i.type === 'divider')).toBe(false);
    expect(gridItems(rows.slice(2), 0).some((i) => i.type === 'divider')).toBe(false);
  });
});
