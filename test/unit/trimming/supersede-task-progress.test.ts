/**
 * Cline's task_progress checklist (cline/cline src/core/prompts/system-prompt/components/task_progress.ts): every tool
 * call may carry the whole list again, so an earlier call's list is stale once a later call restates it. Only the list
 * goes; the call's other fields stay, and a call with long values is left to summarize-tool-results.
 */
import { describe, expect, it } from 'vitest';
import { Session } from '../../../src/core/session';
import { createPipeline } from '../../../src/core/trimming';
import { Harness, round } from './helpers';

const list = (done: number): string =>
  Array.from({ length: 12 }, (_, k) => `- [${k < done ? 'x' : ' '}] step ${k}: do the next thing`).join('\n');

describe('supersede-stale-reads: task_progress restated by a later call', () => {
  it('the earlier list becomes a marker, the newest stays, the path stays; a long write is left alone', () => {
    const s = new Session();
    s.append('user', 'go');
    const out = 'ok '.repeat(30);
    const [first] = round(s, [{ name: 'read_file', input: { path: 'a.ts', task_progress: list(1) }, result: out }]);
    const big = { path: 'b.ts', content: 'x'.repeat(2000), task_progress: list(2) };
    const [write] = round(s, [{ name: 'write_to_file', input: big, result: out }]);
    const [last] = round(s, [{ name: 'read_file', input: { path: 'c.ts', task_progress: list(3) }, result: out }]);
    new Harness(s, createPipeline('supersede-stale-reads', { cacheAware: { enabled: false } })).run();
    const sent = (id: string): Record<string, unknown> => {
      const pos = s.position(s.block(s.toolUseBlockId(id)!)!.messageId)!;
      const b = s.resolveMessage(pos).blocks[0].sent!;
      return (b as { input: Record<string, unknown> }).input;
    };
    expect(sent(first).path).toBe('a.ts');
    expect(sent(first).task_progress).toMatch(/^\[trimmed by Trimline: superseded\] a later call/);
    expect(sent(write)).toEqual(big);
    expect(sent(last).task_progress).toBe(list(3));
  });
});
