import { describe, expect, it } from 'vitest';
import type { InspectorRow } from '../../../src/protocol';
import { filterRows, gridItems, NO_FILTER, toolNames, type RowFilter } from '../../../webview/inspector/filter';
import { DIVIDER_KEY, GridModel } from '../../../webview/inspector/grid-model';

/** A small deterministic generator (the cases are reproducible). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const TOOLS = [undefined, 'Read', 'Bash', 'Grep'];
const STATES = ['verbatim', 'trimmed', 'pinned'] as const;

function makeRow(i: number, rnd: () => number, cached: boolean): InspectorRow {
  const tool = TOOLS[Math.floor(rnd() * TOOLS.length)];
  return {
    ref: `${i}.0`,
    blockId: `b${i}`,
    messageId: `m${i}`,
    position: i,
    role: rnd() < 0.5 ? 'user' : 'assistant',
    kind: tool ? 'tool_result' : 'text',
    ...(tool ? { tool } : {}),
    tokens: 10,
    originalTokens: 10,
    quality: 'estimated',
    state: STATES[Math.floor(rnd() * STATES.length)],
    breakpoint: false,
    cached,
    sent: true,
    preview: rnd() < 0.3 ? 'needle here' : 'hay',
  };
}

/** What the model shows, item by item, next to the reference (filterRows + gridItems). */
function expectSame(m: GridModel, rows: readonly InspectorRow[], f: RowFilter, cachedTokens: number): void {
  const ref = gridItems(filterRows(rows, f), cachedTokens);
  expect(m.length).toBe(ref.length);
  ref.forEach((it, i) => {
    expect(m.keyAt(i)).toBe(it.key);
    expect(m.indexOf(it.key)).toBe(i);
    if (it.type === 'row') expect(m.rowAt(i)).toBe(it.row);
    else expect(m.dividerLabel).toBe(it.label);
  });
  expect(m.shown).toBe(ref.filter((it) => it.type === 'row').length);
  expect(m.total).toBe(rows.length);
  expect(m.tools).toEqual(toolNames(rows));
  if (!ref.some((it) => it.key === DIVIDER_KEY)) expect(m.dividerIndex).toBe(-1);
}

describe('GridModel (the grid items, patched by live updates)', () => {
  const filters: RowFilter[] = [
    NO_FILTER,
    { ...NO_FILTER, text: 'needle' },
    { ...NO_FILTER, state: 'pinned' },
    { ...NO_FILTER, tool: 'Bash', role: 'user' },
  ];

  it('patched through random updates, shows what a model built from the whole rows shows', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const rnd = rng(seed);
      const f = filters[seed % filters.length];
      let n = 5 + Math.floor(rnd() * 40);
      let cachedUpTo = Math.floor(rnd() * n);
      let rows = Array.from({ length: n }, (_, i) => makeRow(i, rnd, i < cachedUpTo));
      const m = new GridModel();
      m.setFilter(f);
      m.reset(rows, 100);
      expectSame(m, rows, f, 100);
      for (let step = 0; step < 15; step++) {
        const before = rows;
        const next = [...rows];
        const changed: string[] = [];
        // Recounts (new objects, same fields otherwise), rows sent whole (state, preview), the cached prefix moving.
        for (let k = 0; k < next.length; k++) {
          const roll = rnd();
          if (roll < 0.2) next[k] = { ...next[k], tokens: next[k].tokens + 1 };
          else if (roll < 0.3) {
            next[k] = {
              ...next[k],
              state: STATES[Math.floor(rnd() * STATES.length)],
              preview: rnd() < 0.5 ? 'needle' : 'hay',
            };
            changed.push(next[k].blockId);
          }
        }
        cachedUpTo = Math.min(next.length, Math.max(0, cachedUpTo + Math.floor(rnd() * 7) - 2));
        for (let k = 0; k < next.length; k++) {
          if (next[k].cached !== k < cachedUpTo) {
            next[k] = { ...next[k], cached: k < cachedUpTo };
            if (!changed.includes(next[k].blockId)) changed.push(next[k].blockId);
          }
        }
        const add = Math.floor(rnd() * 4);
        for (let k = 0; k < add; k++) next.push(makeRow(n++, rnd, false));
        rows = next;
        const tokens = 100 + step;
        m.patch(rows, { before, changed }, tokens);
        expectSame(m, rows, f, tokens);
        // A new filter on the patched model is the same as on a fresh one.
        if (step === 7) {
          const g = filters[(seed + 1) % filters.length];
          m.setFilter(g);
          expectSame(m, rows, g, tokens);
          m.setFilter(f);
        }
      }
    }
  });

  it('knows rows by block id, shown or filtered out', () => {
    const rnd = rng(7);
    const rows = Array.from({ length: 10 }, (_, i) => makeRow(i, rnd, true));
    const m = new GridModel();
    m.setFilter({ ...NO_FILTER, text: 'nothing matches this' });
    m.reset(rows, 0);
    expect(m.length).toBe(0);
    expect(m.row('b3')).toBe(rows[3]);
    expect(m.indexOf('b3')).toBe(-1);
    expect(m.rowAt(0)).toBeUndefined();
  });
});
