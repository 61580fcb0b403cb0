import { describe, expect, it } from 'vitest';
import { Session } from '../../../src/core/session';
import { createPipeline, TRIM_MARKER } from '../../../src/core/trimming';
import { Harness, round } from './helpers';

const big = (tag: string) => `${tag} ` + 'lorem ipsum dolor sit amet '.repeat(40);

describe('summarize-tool-results', () => {
  it('keeps the last N rounds verbatim and summarizes older long results with tool, status, refs and marker', () => {
    const s = new Session();
    s.append('user', 'fix the bug');
    const ids = [
      round(s, [
        { name: 'Read', input: { file_path: '/src/a.ts' }, result: `/src/a.ts line 1\n${big('A')} commit deadbeef12` },
      ])[0],
      round(s, [{ name: 'Bash', input: { command: 'npm test' }, result: big('FAIL'), isError: true }])[0],
      round(s, [{ name: 'Read', input: { file_path: '/src/b.ts' }, result: big('B') }])[0],
      round(s, [{ name: 'Grep', input: { pattern: 'x' }, result: 'short' }])[0],
    ];
    const h = new Harness(s, createPipeline('summarize-tool-results', { cacheAware: { enabled: false } }));
    h.run();
    const res = (id: string) => s.resolveMessage(s.position(s.block(s.toolResultBlockId(id)!)!.messageId)!).blocks[0];
    const first = res(ids[0]);
    expect(first.state).toBe('trimmed');
    const text = (first.sent as { content: string }).content;
    expect(text.startsWith(TRIM_MARKER)).toBe(true);
    expect(text).toContain('Read [OK]');
    expect(text).toContain('/src/a.ts');
    expect(text).toContain('deadbeef12');
    const second = res(ids[1]);
    expect((second.sent as { content: string }).content).toContain('Bash [ERROR]');
    expect((second.sent as { is_error?: boolean }).is_error).toBe(true);
    expect(res(ids[2]).state).toBe('verbatim');
    expect(res(ids[3]).state).toBe('verbatim');
    expect(h.decisions.about(s.toolResultBlockId(ids[0])!)[0].reason).toMatch(/older than the last 2 tool rounds/);
  });

  it('detects errors from text when is_error is absent, and never touches pinned results', () => {
    const s = new Session();
    s.append('user', 'go');
    round(s, [{ name: 'Bash', input: {}, result: `Error: boom\n${big('x')}` }]);
    const [b] = round(s, [{ name: 'Bash', input: {}, result: big('y') }]);
    round(s, [{ name: 'Bash', input: {}, result: 'ok' }]);
    round(s, [{ name: 'Bash', input: {}, result: 'ok' }]);
    s.addOverlay({
      kind: 'pin',
      blockId: s.toolResultBlockId(b)!,
      author: 'user',
      reason: 'keep',
      callIndex: 0,
      tokensBefore: 0,
      tokensAfter: 0,
    });
    const h = new Harness(s, createPipeline('summarize-tool-results', { cacheAware: { enabled: false } }));
    h.run();
    const ra = s.resolveMessage(2).blocks[0];
    expect((ra.sent as { content: string }).content).toContain('Bash [ERROR]');
    expect(s.resolveMessage(4).blocks[0].state).toBe('pinned');
  });
});

describe('supersede-stale-reads', () => {
  it('turns an earlier read into a pointer once the file is read again, and collapses duplicates', () => {
    const s = new Session();
    s.append('user', 'go');
    const [r1] = round(s, [{ name: 'Read', input: { file_path: 'src/x.ts' }, result: big('v1') }]);
    const [l1] = round(s, [{ name: 'Bash', input: { command: 'ls' }, result: big('listing') }]);
    const [r2] = round(s, [{ name: 'Read', input: { file_path: 'src/x.ts' }, result: big('v2') }]);
    const [l2] = round(s, [{ name: 'Bash', input: { command: 'ls' }, result: big('listing') }]);
    const h = new Harness(s, createPipeline('supersede-stale-reads', { cacheAware: { enabled: false } }));
    h.run();
    const state = (id: string) => s.resolveMessage(s.position(s.block(s.toolResultBlockId(id)!)!.messageId)!).blocks[0];
    expect(state(r1).state).toBe('trimmed');
    expect((state(r1).sent as { content: string }).content).toMatch(/src\/x\.ts was read again/);
    expect(state(r2).state).toBe('verbatim');
    expect(state(l1).state).toBe('trimmed');
    expect(state(l2).state).toBe('verbatim');
  });
});

describe('tool-pruning', () => {
  it('keeps prompt and final answer of prior turns, the current turn whole; single turn unchanged', () => {
    const s = new Session();
    s.append('user', 'first task');
    round(s, [{ name: 'Read', input: { file_path: 'a' }, result: big('a') }]);
    s.append('assistant', [{ type: 'text', text: 'answer one' }]);
    const h = new Harness(s, createPipeline('tool-pruning', { cacheAware: { enabled: false } }));
    h.run();
    expect(h.states().every((x) => x === 'verbatim')).toBe(true);
    s.append('user', 'second task');
    round(s, [{ name: 'Read', input: { file_path: 'b' }, result: big('b') }]);
    h.run();
    expect(h.states()).toEqual(['verbatim', 'pruned', 'pruned', 'verbatim', 'verbatim', 'verbatim', 'verbatim']);
  });
});

describe('atomic-window', () => {
  it("removes the oldest whole tool rounds, never splits pairs, keeps the user's words and the task", () => {
    const s = new Session();
    s.append('user', [
      { type: 'text', text: '<system-reminder>\nCLAUDE.md: run the tests.\n</system-reminder>' },
      { type: 'text', text: 'task' },
    ]);
    for (let i = 0; i < 20; i++) {
      round(s, [
        { name: 'Read', input: { file_path: `f${i}` }, result: big(`r${i}`) },
        { name: 'Read', input: { file_path: `g${i}` }, result: big(`q${i}`) },
      ]);
      // A hook's output beside the results: the user's words, never removed.
      if (i === 3) s.append('user', [{ type: 'text', text: 'hook: lint passed' }]);
    }
    const h = new Harness(
      s,
      createPipeline('atomic-window', {
        strategies: { 'atomic-window': { maxTokens: 4000 } },
        cacheAware: { enabled: false },
      }),
    );
    h.run();
    expect(s.resolveMessage(0).blocks.map((b) => b.state)).toEqual(['verbatim', 'verbatim']);
    const hook = s.messages.findIndex((m) =>
      m.blocks.some((b) => b.param.type === 'text' && b.param.text === 'hook: lint passed'),
    );
    expect(s.resolveMessage(hook).blocks[0].state).toBe('verbatim');
    // Whole rounds: a pruned tool_use always has its result pruned, a kept one its result kept.
    for (let p = 1; p < s.messages.length; p++) {
      const m = s.messages[p];
      if (m.role !== 'assistant') continue;
      const used = s.resolveMessage(p).blocks[0].state;
      const result = s.resolveMessage(p + 1).blocks[0].state;
      expect(result).toBe(used);
    }
    expect(s.resolveMessage(1).blocks[0].state).toBe('pruned');
    expect(h.index.rangeTokens(0, s.messages.length)).toBeLessThanOrEqual(4000);
  });

  it("by default its budget is 75% of the model's context window: a history under it is left alone", () => {
    const s = new Session();
    s.append('user', 'task');
    for (let i = 0; i < 20; i++) round(s, [{ name: 'Read', input: { file_path: `f${i}` }, result: big(`r${i}`) }]);
    const probe = new Harness(s, createPipeline('none'));
    probe.index.update();
    const tokens = probe.index.rangeTokens(0, s.messages.length);
    expect(tokens).toBeGreaterThan(1000);
    const under = new Harness(
      s,
      createPipeline('atomic-window', { cacheAware: { enabled: false } }),
      Math.ceil(tokens / 0.75) + 10,
    );
    under.run();
    expect(under.states().filter((x) => x !== 'verbatim')).toEqual([]);
    const over = new Harness(
      s,
      createPipeline('atomic-window', { cacheAware: { enabled: false } }),
      Math.floor(tokens / 0.75) - 10,
    );
    over.run();
    expect(over.states()).toContain('pruned');
  });
});
