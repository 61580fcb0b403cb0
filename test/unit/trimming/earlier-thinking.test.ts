import { describe, expect, it } from 'vitest';
import { Session } from '../../../src/core/session';
import { createPipeline } from '../../../src/core/trimming';
import { Harness, round } from './helpers';

const thought = (t: string) => ({ type: 'thinking' as const, thinking: `${t} `.repeat(50), signature: 'sig' });

/** Three prompts; turns 1 and 2 each end in a final answer with thinking. */
function session(model: string): Session {
  const s = new Session({ model });
  s.append('user', 'first task');
  round(s, [{ name: 'Bash', input: { command: 'ls' }, result: 'a.txt b.txt' }]);
  s.append('assistant', [thought('one'), { type: 'text', text: 'answer one' }]);
  s.append('user', 'second task');
  round(s, [{ name: 'Bash', input: { command: 'pwd' }, result: '/home' }]);
  s.append('assistant', [thought('two'), { type: 'text', text: 'answer two' }]);
  s.append('user', 'third task');
  return s;
}

function droppedThinking(s: Session): string[] {
  return s
    .allOverlays()
    .filter((o) => o.kind === 'prune' && o.blockId !== undefined && s.block(o.blockId)?.kind === 'thinking')
    .map((o) => (o.kind === 'prune' && o.blockId ? (s.block(o.blockId)?.param as { thinking: string }).thinking : ''));
}

function run(model: string, dropEarlierThinking: boolean): string[] {
  const s = session(model);
  const pipeline = createPipeline('tool-pruning', {
    strategies: { 'tool-pruning': { dropEarlierThinking } },
    cacheAware: { enabled: false },
  });
  new Harness(s, pipeline).run();
  return droppedThinking(s);
}

describe('thinking of earlier final answers', () => {
  it('on a model that bills earlier thinking, the final answer before the last closed turn loses it', () => {
    const dropped = run('claude-opus-4-5', true);
    expect(dropped).toHaveLength(1);
    expect(dropped[0]).toContain('one');
  });

  it('the final answer just before the new prompt keeps its thinking (it may still be the latest answer)', () => {
    expect(run('claude-opus-4-5', true).some((t) => t.includes('two'))).toBe(false);
  });

  it('is left alone on a model that drops earlier thinking itself, and when the option is off', () => {
    expect(run('claude-sonnet-4-5', true)).toEqual([]);
    expect(run('claude-opus-4-5', false)).toEqual([]);
  });
});
