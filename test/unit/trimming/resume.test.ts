import { describe, expect, it } from 'vitest';
import { ContextEngine } from '../../../src/core/engine';
import { Session } from '../../../src/core/session';
import { round } from './helpers';

const big = (t: string) => `${t} ` + 'data '.repeat(800);

function longSession(): Session {
  const s = new Session({ model: 'claude-sonnet-4-5' });
  for (let turn = 0; turn < 4; turn++) {
    s.append('user', `task ${turn}`);
    for (let i = 0; i < 12; i++)
      round(s, [{ name: 'Read', input: { file_path: `f${turn}_${i}.ts` }, result: big(`r${turn}${i}`) }]);
    s.append('assistant', [{ type: 'text', text: `done ${turn}` }]);
  }
  s.append('user', 'next');
  return s;
}

describe('strategies after a resume (fresh engine over an existing session)', () => {
  it('do not lay a second digest or window note over what is already there', () => {
    const s = longSession();
    const config = { strategies: { 'atomic-window': { maxTokens: 8000 } } };
    new ContextEngine(s, { strategy: 'default', config }).prepare({ callIndex: 0, now: 0 });
    const summaries = () => s.allOverlays().filter((o) => o.kind === 'summary');
    const before = summaries()
      .map((o) => o.id)
      .sort();
    expect(before.length).toBeGreaterThan(0);
    const resumed = new ContextEngine(s, { strategy: 'default', config });
    const { body } = resumed.prepare({ callIndex: 1, now: 1000 });
    expect(
      summaries()
        .map((o) => o.id)
        .sort(),
    ).toEqual(before);
    expect(body.messages.length).toBeGreaterThan(0);
  });
});
