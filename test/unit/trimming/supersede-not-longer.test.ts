/** supersede-stale-reads does not replace a result by a pointer longer than the result itself. */
import { describe, expect, it } from 'vitest';
import { Session } from '../../../src/core/session';
import { createPipeline } from '../../../src/core/trimming';
import { Harness, round } from './helpers';

describe('supersede-stale-reads: a pointer longer than the result', () => {
  it('is not proposed (the result stays verbatim); a normal path still gets its pointer', () => {
    const s = new Session();
    s.append('user', 'go');
    // The pointer names the path: with a very long path it is longer than a short result.
    const longPath = `src/${'deeply-nested-directory-name/'.repeat(40)}x.ts`;
    // Four different short results (identical ones would be collapsed as duplicates instead).
    const short = (v: number): string => `version ${v}: ${'lorem ipsum dolor sit amet '.repeat(9)}`;
    const [long1] = round(s, [{ name: 'Read', input: { file_path: longPath }, result: short(1) }]);
    const [normal1] = round(s, [{ name: 'Read', input: { file_path: 'src/y.ts' }, result: short(2) }]);
    round(s, [{ name: 'Read', input: { file_path: longPath }, result: short(3) }]);
    round(s, [{ name: 'Read', input: { file_path: 'src/y.ts' }, result: short(4) }]);
    const h = new Harness(s, createPipeline('supersede-stale-reads', { cacheAware: { enabled: false } }));
    h.run();
    const state = (id: string) =>
      s.resolveMessage(s.position(s.block(s.toolResultBlockId(id)!)!.messageId)!).blocks[0].state;
    expect(state(normal1)).toBe('trimmed');
    expect(state(long1)).toBe('verbatim');
    for (const o of s.allOverlays()) if (o.kind === 'trim') expect(o.tokensAfter).toBeLessThan(o.tokensBefore);
  });
});
