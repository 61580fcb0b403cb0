import { describe, expect, it } from 'vitest';
import { findings, LARGE_RESULT_TOKENS, MAX_REPEATS, MAX_STALE, type FindingContext } from '../../../src/core/inspect';
import { parseTranscript } from '../../../src/core/import';
import type { RequestDiff } from '../../../src/protocol';
import { replayImported } from './helpers';

function round(i: number, name: string, input: Record<string, unknown>, result: string): object[] {
  const id = `toolu_${i}`;
  return [
    { role: 'assistant', content: [{ type: 'tool_use', id, name, input }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: result }] },
  ];
}

/** A session with a huge result, a file read twice and then edited, a repeated output and an unused tool. */
function session() {
  const big = Array.from({ length: 3000 }, (_, i) => `export const value${i} = compute(${i}, "some text");`).join('\n');
  const status = Array.from({ length: 80 }, (_, i) => `modified: src/file${i}.ts`).join('\n');
  const messages = [
    { role: 'user', content: 'Fix the bug.' },
    ...round(1, 'Read', { file_path: 'src/a.ts' }, big),
    ...round(2, 'Bash', { command: 'git status' }, status),
    ...round(3, 'Read', { file_path: 'src/b.ts' }, 'const b = 1;\n'.repeat(50)),
    ...round(4, 'Read', { file_path: 'src/b.ts' }, 'const b = 2;\n'.repeat(50)),
    ...round(5, 'Edit', { file_path: 'src/b.ts', old_string: 'a', new_string: 'b' }, 'ok'),
    ...round(6, 'Bash', { command: 'git status' }, status),
    { role: 'assistant', content: 'Done.' },
    { role: 'user', content: 'Thanks.' },
  ];
  const schema = { type: 'object', properties: {} };
  const tools = ['Read', 'Bash', 'Edit', 'WebFetch', 'NotebookEdit'].map((name) => ({
    name,
    description: `${name} tool with a long description `.repeat(5),
    input_schema: schema,
  }));
  return parseTranscript(JSON.stringify({ model: 'claude-sonnet-4-5', tools, messages }), 'findings.json');
}

describe('findings', () => {
  const r = replayImported(session(), 'none');
  const s = r.snapshot();
  const byId = (prefix: string) => s.findings.filter((f) => f.id.startsWith(prefix));

  it('flags the large tool result with a one-click trim', () => {
    const [large] = byId('large:');
    const row = s.rows.find((x) => x.blockId === large.blockIds[0])!;
    expect(row.tokens).toBeGreaterThanOrEqual(LARGE_RESULT_TOKENS);
    expect(large.action).toEqual({ kind: 'trim', blockId: row.blockId, label: 'Trim' });
    expect(large.severity).toBe('warning');
  });

  it('flags reads that were read again or edited since, trimming the oldest copy', () => {
    const [stale] = byId('stale:src/b.ts');
    expect(stale.message).toMatch(/src\/b\.ts was read again and edited later: 2 outdated copies/);
    expect(stale.blockIds).toHaveLength(2);
    expect(stale.action).toMatchObject({ kind: 'trim', blockId: stale.blockIds[0], label: 'Trim oldest' });
    expect(byId('stale:src/a.ts')).toEqual([]);
  });

  it('flags identical outputs sent twice and tool definitions never used', () => {
    const [repeat] = byId('repeat:');
    expect(repeat.message).toMatch(/same Bash output is sent 2 times/);
    const [unused] = byId('unused-tools');
    expect(unused.message).toMatch(/^2 of 5 tool definitions were never used \(WebFetch, NotebookEdit\)/);
    expect(unused.action).toBeUndefined();
    expect(unused.tokens).toBeGreaterThan(0);
  });

  it('warns near the context window and offers to compact', () => {
    const ctx: FindingContext = {
      session: r.engine.session,
      tokens: r.engine.tokens,
      rows: s.rows,
      sentTokens: 170_000,
      contextWindow: 200_000,
      model: 'claude-sonnet-4-5',
      diffs: [],
    };
    const [w] = findings(ctx).filter((f) => f.id === 'window');
    expect(w).toMatchObject({ severity: 'warning', action: { kind: 'compact', label: 'Compact' } });
    expect(w.message).toMatch(/85% of the 200k-token context window/);
    expect(findings({ ...ctx, sentTokens: 10_000 }).some((f) => f.id === 'window')).toBe(false);
  });

  it('reports cache invalidations that cost more than they saved, not the ones that paid off', () => {
    const diff = (call: number, invalidatedTokens: number, savedTokens: number): RequestDiff => ({
      call,
      previous: call - 1,
      added: [],
      removed: [],
      changed: ['3.0'],
      cacheBreakAt: '3.0',
      commonPrefix: 3,
      addedTokens: 0,
      removedTokens: savedTokens,
      invalidatedTokens,
      savedTokens,
    });
    const diffs = [
      diff(0, 0, 0),
      diff(1, 50_000, 100),
      diff(2, 5_000, 4_000),
      ...Array.from({ length: 40 }, (_, i) => diff(3 + i, 0, 0)),
    ];
    const ctx: FindingContext = {
      session: r.engine.session,
      tokens: r.engine.tokens,
      rows: s.rows,
      sentTokens: 1000,
      contextWindow: 200_000,
      model: 'claude-sonnet-4-5',
      diffs,
    };
    const inv = findings(ctx).filter((f) => f.id.startsWith('invalidation:'));
    expect(inv.map((f) => f.call)).toEqual([1]);
    expect(inv[0].message).toMatch(/^Call 1 broke the cached prefix at 3\.0: re-writing 50k tokens cost \$0\.17\d/);
  });
});

describe('findings in a long session', () => {
  it('lists at most MAX_STALE stale reads and MAX_REPEATS repeated outputs: the costliest, in session order', () => {
    const files = 20;
    // File k is read twice with k+1 lines each time, so a larger k costs more; each read is also repeated verbatim.
    const messages: object[] = [{ role: 'user', content: 'Go.' }];
    let id = 0;
    for (let pass = 0; pass < 2; pass++) {
      for (let k = 0; k < files; k++) {
        const text = Array.from({ length: (k + 1) * 20 }, (_, i) => `line ${i} of file ${k}`).join('\n');
        messages.push(...round(++id, 'Read', { file_path: `src/f${k}.ts` }, text));
      }
    }
    messages.push({ role: 'assistant', content: 'Done.' }, { role: 'user', content: 'Thanks.' });
    const s = replayImported(
      parseTranscript(JSON.stringify({ model: 'claude-sonnet-4-5', messages }), 'long.json'),
      'none',
    ).snapshot();
    const stale = s.findings.filter((f) => f.id.startsWith('stale:'));
    const repeats = s.findings.filter((f) => f.id.startsWith('repeat:'));
    expect(stale).toHaveLength(MAX_STALE);
    expect(repeats).toHaveLength(MAX_REPEATS);
    // The costliest are the largest files, f8 … f19, listed in the order the session read them.
    expect(stale.map((f) => f.id)).toEqual(
      Array.from({ length: MAX_STALE }, (_, i) => `stale:src/f${files - MAX_STALE + i}.ts`),
    );
    const tokens = repeats.map((f) => f.tokens ?? 0);
    expect(Math.min(...tokens)).toBeGreaterThan(0);
    expect(tokens).toEqual([...tokens].sort((a, b) => a - b));
  });
});
