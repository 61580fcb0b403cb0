/** Snapshot deltas: applying diff(a, b) to a gives exactly b, for random edits, after a JSON round trip. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyDelta, diffSnapshots, SnapshotStream } from '../../../src/protocol/delta';
import { isSnapshotDelta } from '../../../src/protocol/delta-guards';
import {
  parseHostMessage,
  type BlockState,
  type CallPoint,
  type InspectorRow,
  type InspectorSnapshot,
  type SnapshotDelta,
  type TokenQuality,
} from '../../../src/protocol';

const STATES: BlockState[] = ['verbatim', 'trimmed', 'summarized', 'pruned', 'pinned'];

function row(id: number, over: Partial<InspectorRow> = {}): InspectorRow {
  return {
    ref: `${id >> 2}.${id & 3}`,
    blockId: `b${id}`,
    messageId: `m${id >> 2}`,
    position: id >> 2,
    role: id & 1 ? 'assistant' : 'user',
    kind: id % 3 ? 'text' : 'tool_result',
    tool: id % 3 ? undefined : 'Read',
    tokens: 100 + id,
    originalTokens: 100 + id,
    quality: 'estimated',
    state: 'verbatim',
    breakpoint: false,
    cached: false,
    sent: true,
    preview: `block ${id}`,
    ...over,
  };
}

function snapshot(rows: InspectorRow[], over: Partial<InspectorSnapshot> = {}): InspectorSnapshot {
  return {
    sessionId: 's1',
    title: 'test',
    model: 'claude-sonnet-4-5',
    strategy: 'default',
    contextWindow: 200_000,
    callIndex: 3,
    quality: 'estimated',
    rows,
    totals: {
      sentTokens: 1000,
      untrimmedTokens: 1200,
      systemTokens: 10,
      toolsTokens: 20,
      byState: { verbatim: rows.length, trimmed: 0, summarized: 0, pruned: 0, pinned: 0 },
    },
    cache: {
      hitRatio: 0.5,
      breakpoints: 2,
      breakpointRefs: ['system', '3.0'],
      nextCachedTokens: 500,
      cachedUpToRef: '3.0',
    },
    cost: {
      session: 1,
      nextRequest: 0.1,
      nextInput: 0.05,
      nextCacheWrite: 0.03,
      nextCacheRead: 0.02,
      nextTokens: { input: 10, cacheWrite: 20, cacheRead: 30 },
      exactPrices: true,
    },
    calls: [0, 1, 2].map((call) => ({ call, sent: 1000 + call, cached: 500, untrimmed: 1200, cost: 0.01 })),
    composition: [{ label: 'tool results', tokens: 800, group: 'tool-results' }],
    findings: [{ id: 'f1', severity: 'info', message: 'large read', blockIds: ['b3'] }],
    strategies: ['default', 'none'],
    live: true,
    ...over,
  };
}

/** Through JSON, as both hosts send it: what the webview gets. */
function wire(d: SnapshotDelta): SnapshotDelta {
  const back: unknown = JSON.parse(JSON.stringify({ type: 'snapshotDelta', delta: d }));
  const msg = parseHostMessage(back);
  if (msg?.type !== 'snapshotDelta') throw new Error('the delta did not validate');
  return msg.delta;
}

/** What JSON does to a snapshot (drops undefined fields): the form the webview compares. */
const plain = (s: InspectorSnapshot): unknown => JSON.parse(JSON.stringify(s));

// ── random edits ───────────────────────────────────────────────────────────────

const rowEdit = fc.record({
  state: fc.option(fc.constantFrom(...STATES), { nil: undefined }),
  preview: fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
  tokens: fc.option(fc.integer({ min: -50, max: 50 }), { nil: undefined }),
  originalTokens: fc.option(fc.integer({ min: -50, max: 50 }), { nil: undefined }),
  cached: fc.option(fc.boolean(), { nil: undefined }),
  why: fc.option(fc.option(fc.string({ maxLength: 10 }), { nil: undefined }), { nil: undefined }),
});

const scenario = fc.record({
  n: fc.integer({ min: 0, max: 60 }),
  drop: fc.array(fc.nat(80), { maxLength: 10 }),
  edits: fc.array(fc.tuple(fc.nat(80), rowEdit), { maxLength: 20 }),
  inserts: fc.array(fc.tuple(fc.nat(80), fc.integer({ min: 1, max: 3 })), { maxLength: 6 }),
  quality: fc.option(fc.constantFrom<TokenQuality>('calibrated', 'exact'), { nil: undefined }),
  headTitle: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
  findings: fc.record({
    drop: fc.array(fc.nat(7), { maxLength: 4 }),
    edit: fc.array(fc.nat(7), { maxLength: 3 }),
    add: fc.array(fc.tuple(fc.nat(8), fc.nat(20)), { maxLength: 3 }),
    swap: fc.boolean(),
  }),
  callsKeep: fc.nat(4),
  callsAdd: fc.nat(3),
  hitRatio: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
});

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

function edited(base: InspectorSnapshot, sc: Scenario): InspectorSnapshot {
  const drop = new Set(sc.drop.map((i) => `b${i}`));
  let rows = base.rows.filter((r) => !drop.has(r.blockId));
  for (const [i, e] of sc.edits) {
    const k = rows.findIndex((r) => r.blockId === `b${i}`);
    if (k < 0) continue;
    const r = { ...rows[k] };
    if (e.state) r.state = e.state;
    if (e.preview !== undefined) r.preview = e.preview;
    if (e.tokens !== undefined) r.tokens += e.tokens;
    if (e.originalTokens !== undefined) r.originalTokens += e.originalTokens;
    if (e.cached !== undefined) r.cached = e.cached;
    if (e.why !== undefined) r.why = e.why ?? undefined;
    rows[k] = r;
  }
  let fresh = 1000;
  for (const [at, count] of sc.inserts) {
    const k = Math.min(at, rows.length);
    rows = [
      ...rows.slice(0, k),
      ...Array.from({ length: count }, () => row(fresh++, { quality: rows[0]?.quality ?? 'estimated' })),
      ...rows.slice(k),
    ];
  }
  if (sc.quality) rows = rows.map((r) => ({ ...r, quality: sc.quality! }));
  const calls: CallPoint[] = [
    ...base.calls.slice(0, sc.callsKeep),
    ...Array.from({ length: sc.callsAdd }, (_, i) => ({ call: 10 + i, sent: 5, cached: 1, untrimmed: 6, cost: 0.5 })),
  ];
  const next = snapshot(rows, { calls, title: sc.headTitle ?? base.title, quality: sc.quality ?? base.quality });
  const fe = sc.findings;
  let findings = base.findings
    .filter((_, i) => !fe.drop.includes(i))
    .map((f, i) => (fe.edit.includes(i) ? { ...f, message: `${f.message}!`, blockIds: [...f.blockIds, 'b0'] } : f));
  for (const [at, id] of fe.add)
    findings.splice(Math.min(at, findings.length), 0, {
      id: `new${id}`,
      severity: 'warning',
      message: 'new',
      blockIds: [],
    });
  if (fe.swap && findings.length > 2) findings = [findings[1], findings[0], ...findings.slice(2)];
  next.findings = findings;
  if (sc.hitRatio !== undefined) next.cache = { ...next.cache, hitRatio: sc.hitRatio };
  return next;
}

describe('snapshot deltas', () => {
  it('round trip: applying diff(base, next) to base gives exactly next, for random edits', () => {
    fc.assert(
      fc.property(scenario, (sc) => {
        const base = snapshot(Array.from({ length: sc.n }, (_, i) => row(i)));
        base.findings = Array.from({ length: 8 }, (_, i) => ({
          id: `f${i}`,
          severity: 'info' as const,
          message: `finding ${i}`,
          blockIds: [`b${i}`],
          tokens: i,
        }));
        const next = edited(base, sc);
        const d = diffSnapshots(base, next, 4, 5, 1);
        expect(d).toBeDefined();
        const applied = applyDelta(base, wire(d!));
        expect(applied).toBeDefined();
        expect(plain(applied!)).toEqual(plain(next));
        // The wire form alone (the webview's own copy of base) gives the same.
        expect(plain(applyDelta(plain(base) as InspectorSnapshot, wire(d!))!)).toEqual(plain(next));
      }),
      { numRuns: 400 },
    );
  });

  it('sends only what changed: one edited row, one appended row, the calls tail', () => {
    const base = snapshot(Array.from({ length: 1000 }, (_, i) => row(i)));
    const rows = [...base.rows];
    rows[10] = { ...rows[10], state: 'pinned', why: 'pinned by the user' };
    rows.push(row(5000));
    const next = snapshot(rows, { calls: [...base.calls, { call: 3, sent: 9, cached: 9, untrimmed: 9, cost: 0.2 }] });
    const d = diffSnapshots(base, next, 1, 2)!;
    expect(d.changed.map((r) => r.blockId)).toEqual(['b10']);
    expect(d.added).toEqual([{ after: 'b999', rows: [row(5000)] }]);
    expect(d.removed).toEqual([]);
    expect(d.counts).toEqual([]);
    expect(d.shifts).toEqual([]);
    expect(Object.keys(d.head)).toEqual(['totals']);
    expect(d.callsFrom).toBe(3);
    expect(d.calls).toHaveLength(1);
    expect(JSON.stringify(d).length).toBeLessThan(JSON.stringify(next).length / 50);
    // Untouched rows are the same objects after applying (the grid skips re-binding them).
    const applied = applyDelta(base, d)!;
    expect(applied.rows[11]).toBe(base.rows[11]);
    expect(applied.rows[10]).toEqual(rows[10]);
  });

  it('sends recounted rows as numeric pairs and triples, and a quality change once for every row', () => {
    const base = snapshot(Array.from({ length: 10 }, (_, i) => row(i)));
    const rows = base.rows.map((r, i) =>
      i === 2 || i === 3 || i === 7
        ? { ...r, tokens: r.tokens + 5, originalTokens: r.originalTokens + 5, quality: 'calibrated' as const }
        : { ...r, quality: 'calibrated' as const },
    );
    rows[7] = { ...rows[7], tokens: rows[7].tokens - 7 };
    const next = snapshot(rows, { quality: 'calibrated' });
    const d = diffSnapshots(base, next, 1, 2)!;
    expect(d.changed).toEqual([]);
    expect(d.quality).toBe('calibrated');
    expect(d.shifts).toEqual([2, 5, 0, 5]);
    expect(d.counts).toEqual([7, 5, -2]);
    expect(d.head).toEqual({ quality: 'calibrated' });
    expect(applyDelta(base, d)).toEqual(next);
  });

  it('sends a long findings list as runs of kept findings and the changed ones', () => {
    const old = Array.from({ length: 400 }, (_, i) => ({
      id: `stale:${i}`,
      severity: 'info' as const,
      message: `file ${i}`,
      blockIds: [`b${i}`],
    }));
    const next = [...old.slice(0, 200), { ...old[200], blockIds: ['b200', 'b999'] }, ...old.slice(201)];
    const base = snapshot([row(1)], { findings: old });
    const d = diffSnapshots(base, snapshot([row(1)], { findings: next }), 1, 2)!;
    expect(d.findings).toEqual([{ keep: 200 }, { add: [next[200]] }, { skip: 1 }, { keep: 199 }]);
    expect(applyDelta(base, d)!.findings).toEqual(next);
    expect(diffSnapshots(base, snapshot([row(1)], { findings: [...old] }), 1, 2)!.findings).toBeUndefined();
  });

  it('falls back to a whole snapshot for another session, reordered rows or mostly new rows', () => {
    const base = snapshot(Array.from({ length: 10 }, (_, i) => row(i)));
    expect(diffSnapshots(base, snapshot(base.rows, { sessionId: 's2' }), 1, 2)).toBeUndefined();
    expect(diffSnapshots(base, snapshot([...base.rows].reverse()), 1, 2)).toBeUndefined();
    expect(
      diffSnapshots(base, snapshot(base.rows.map((r) => ({ ...r, state: 'pinned' as const }))), 1, 2),
    ).toBeUndefined();
    expect(diffSnapshots(base, snapshot([]), 1, 2)).toBeDefined();
  });

  it('refuses a delta that does not fit the snapshot it is applied to', () => {
    const base = snapshot(Array.from({ length: 10 }, (_, i) => row(i)));
    const ok: SnapshotDelta = {
      base: 1,
      revision: 2,
      removed: [],
      changed: [],
      shifts: [],
      counts: [],
      added: [],
      head: {},
      callsFrom: 3,
      calls: [],
    };
    expect(applyDelta(base, ok)).toEqual(base);
    expect(applyDelta(base, { ...ok, removed: ['nope'] })).toBeUndefined();
    expect(applyDelta(base, { ...ok, changed: [row(99)] })).toBeUndefined();
    expect(applyDelta(base, { ...ok, added: [{ after: 'nope', rows: [row(99)] }] })).toBeUndefined();
    expect(applyDelta(base, { ...ok, added: [{ after: 'b1', rows: [row(2)] }] })).toBeUndefined();
    expect(applyDelta(base, { ...ok, counts: [10, 1, 0] })).toBeUndefined();
    expect(applyDelta(base, { ...ok, shifts: [3, 1], counts: [3, 1, 0] })).toBeUndefined();
    expect(applyDelta(base, { ...ok, shifts: [3, 1] })!.rows[3].tokens).toBe(base.rows[3].tokens + 1);
    expect(applyDelta(base, { ...ok, callsFrom: 4 })).toBeUndefined();
    expect(applyDelta(base, { ...ok, findings: [{ keep: 2 }] })).toBeUndefined();
  });

  it('validates deltas like snapshots: malformed envelopes and rows are dropped', () => {
    const ok: SnapshotDelta = {
      base: 1,
      revision: 2,
      removed: [],
      changed: [row(1)],
      shifts: [],
      counts: [],
      added: [{ rows: [row(2)] }],
      head: { title: 'x' },
      callsFrom: 0,
      calls: [],
    };
    expect(isSnapshotDelta(ok)).toBe(true);
    expect(isSnapshotDelta({ ...ok, revision: 1 })).toBe(false);
    expect(isSnapshotDelta({ ...ok, changed: [{ ...row(1), state: 'gone' }] })).toBe(false);
    expect(isSnapshotDelta({ ...ok, added: [{ rows: [{ ...row(2), preview: 5 }] }] })).toBe(false);
    expect(isSnapshotDelta({ ...ok, counts: [1, 2] })).toBe(false);
    expect(isSnapshotDelta({ ...ok, shifts: [1] })).toBe(false);
    expect(isSnapshotDelta({ ...ok, shifts: [-1, 2] })).toBe(false);
    expect(isSnapshotDelta({ ...ok, head: { rows: [] } })).toBe(false);
    expect(isSnapshotDelta({ ...ok, head: { findings: [] } })).toBe(false);
    expect(
      isSnapshotDelta({
        ...ok,
        findings: [{ keep: 1 }, { add: [{ id: 'f', severity: 'info', message: 'm', blockIds: [] }] }],
      }),
    ).toBe(true);
    expect(isSnapshotDelta({ ...ok, findings: [{ keep: -1 }] })).toBe(false);
    expect(isSnapshotDelta({ ...ok, findings: [{ keep: 1, skip: 1 }] })).toBe(false);
    expect(
      isSnapshotDelta({ ...ok, findings: [{ add: [{ id: 'f', severity: 'fatal', message: 'm', blockIds: [] }] }] }),
    ).toBe(false);
    expect(isSnapshotDelta({ ...ok, calls: [{ call: 1 }] })).toBe(false);
    expect(parseHostMessage({ type: 'snapshotDelta', delta: { ...ok, base: -1 } })).toBeUndefined();
    expect(parseHostMessage({ type: 'snapshot', snapshot: snapshot([]), revision: 'x' })).toBeUndefined();
  });

  it('a stream sends the first snapshot whole, then deltas on consecutive revisions, and whole again after reset', () => {
    const s = new SnapshotStream();
    const a = snapshot([row(1)]);
    const b = snapshot([row(1), row(2)]);
    const first = s.next(a);
    expect(first).toEqual({ type: 'snapshot', snapshot: a, revision: 1 });
    const second = s.next(b);
    expect(second.type).toBe('snapshotDelta');
    if (second.type === 'snapshotDelta') expect([second.delta.base, second.delta.revision]).toEqual([1, 2]);
    s.reset();
    expect(s.next(b)).toEqual({ type: 'snapshot', snapshot: b, revision: 3 });
    expect(s.next(snapshot([row(1)], { sessionId: 'other' })).type).toBe('snapshot');
  });
});
