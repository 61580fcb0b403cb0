import { describe, expect, it } from 'vitest';
import { Session } from '../../../src/core/session';
import { createPipeline } from '../../../src/core/trimming';
import { buildDigest } from '../../../src/core/trimming/digest';
import { extractRefs, looksEncoded } from '../../../src/core/trimming/refs';
import { Harness, round } from './helpers';

const PEM_LINES = [
  'mQINBGSx7YgBEADH4zN1qJb8XkQ2vYw3Lr9Tz0pK7aG5dE+FhU1cWmN4oR6sI8jB',
  'tljl/uYUB4/eBx6dokHSF17MjkrTzGyIeJf9ypOsOgxlkZ/xqNgZFK6IyfXbOn6m',
  'AA/9E/Q38iwLlffOKCSwlK9Nk1A7rM7dlS5BsMvygc9MRUVTT8h+2PqOGq2Ct01G',
];

describe('reference ids', () => {
  it('skip encoded data split at its slashes, keep real paths', () => {
    const text = `-----BEGIN PGP PUBLIC KEY BLOCK-----\n${PEM_LINES.join('\n')}\n-----END PGP PUBLIC KEY BLOCK-----\nsaved to /home/me/Projects2024/keys/ReleaseKey.asc and src/core/trimming/refs.ts`;
    const refs = extractRefs(text);
    expect(refs).toContain('/home/me/Projects2024/keys/ReleaseKey.asc');
    expect(refs).toContain('src/core/trimming/refs.ts');
    for (const line of PEM_LINES)
      for (const seg of line.split('/')) if (seg.length >= 16) expect(refs.some((r) => r.includes(seg))).toBe(false);
  });

  it('a long camel-case or dashed segment is a name, not encoded data', () => {
    expect(looksEncoded('C:/Users/me/.claude/projects/C--Users-Mischa--claude-worktrees-M-Claude')).toBe(false);
    expect(looksEncoded('src/components/VeryLongComponentName.tsx')).toBe(false);
    expect(looksEncoded('x/eBx6dokHSF17MjkrTzGyIeJf9ypOsOgxlkZ')).toBe(true);
  });
});

describe('tool-pruning digests', () => {
  const big = (t: string) => `${t} ` + 'data '.repeat(200);
  const digests = (s: Session): string[] => s.allOverlays().flatMap((o) => (o.kind === 'summary' ? [o.text] : []));

  it("list a ref once: not again when an earlier digest lists it or the turn's final answer shows it", () => {
    const s = new Session();
    s.append('user', 'first task');
    round(s, [
      { name: 'Read', input: { file_path: 'src/shared.ts' }, result: big('see src/shared.ts and lib/one_only.py') },
    ]);
    s.append('assistant', [{ type: 'text', text: 'answer one' }]);
    s.append('user', 'second task');
    round(s, [
      {
        name: 'Read',
        input: { file_path: 'src/shared.ts' },
        result: big('see src/shared.ts, lib/two_only.py and docs/answered.md'),
      },
    ]);
    s.append('assistant', [{ type: 'text', text: 'answer two, from docs/answered.md' }]);
    s.append('user', 'third task');
    const h = new Harness(
      s,
      createPipeline('tool-pruning', {
        strategies: { 'tool-pruning': { digest: true } },
        cacheAware: { enabled: false },
      }),
    );
    h.run();
    const [first, second] = digests(s);
    expect(first).toContain('src/shared.ts');
    expect(first).toContain('lib/one_only.py');
    expect(second).toContain('lib/two_only.py');
    expect(second).not.toContain('src/shared.ts');
    expect(second).not.toContain('docs/answered.md');
    // Every ref of the hidden steps is still somewhere in the view.
    const view =
      s.messages.map((_, p) => JSON.stringify(s.resolveMessage(p).blocks.map((b) => b.sent))).join('\n') +
      digests(s).join('\n');
    for (const ref of ['src/shared.ts', 'lib/one_only.py', 'lib/two_only.py', 'docs/answered.md'])
      expect(view).toContain(ref);
  });
});

describe('digest over its ref limit', () => {
  it('keeps the refs more results mentioned, then the most recent, listed in first-seen order', () => {
    const s = new Session();
    s.append('user', 'task');
    round(s, [{ name: 'Bash', input: { command: 'a' }, result: 'src/common.ts and old/rare_one.py' }]);
    round(s, [{ name: 'Bash', input: { command: 'b' }, result: 'src/common.ts and old/rare_two.py' }]);
    round(s, [{ name: 'Bash', input: { command: 'c' }, result: 'src/common.ts and new/latest.py' }]);
    const text = buildDigest(s, 1, s.messages.length - 1, 'steps', { maxRefs: 2, maxPrompts: 0, promptChars: 0 });
    expect(text).toContain('refs seen: src/common.ts new/latest.py (+2 more)');
  });
});

describe('digest keeps what the model named', () => {
  it('over its limit, a ref a hidden step named (a tool input, its text) comes before refs only results mention', () => {
    const s = new Session();
    s.append('user', 'task');
    round(s, [{ name: 'Bash', input: { command: 'ls' }, result: 'src/common.ts src/picked.ts src/other.ts' }]);
    round(s, [{ name: 'Read', input: { file_path: 'src/picked.ts' }, result: 'src/common.ts contents' }]);
    s.append('assistant', [{ type: 'text', text: 'looking at src/other.ts next' }]);
    round(s, [{ name: 'Bash', input: { command: 'x' }, result: 'src/common.ts and new/latest.py' }]);
    const text = buildDigest(s, 1, s.messages.length - 1, 'steps', { maxRefs: 2, maxPrompts: 0, promptChars: 0 });
    expect(text).toContain('src/picked.ts');
    expect(text).toContain('src/other.ts');
    // Mentioned by three results but never named by the model: it gives way.
    expect(text).not.toContain('src/common.ts');
    expect(text).toContain('(+2 more)');
  });
});

describe('grep line suffixes', () => {
  it('a path as grep prints it beside a line number names the file once', () => {
    const grep = ['src/a/b.go-51-}', 'src/a/b.go-52-func x() {', 'src/a/b.go:53:  return', 'src/a/c.go-9-'].join('\n');
    const refs = extractRefs(grep);
    expect(refs).toEqual(['src/a/b.go', 'src/a/c.go']);
  });

  it('a name that ends in a dash and digits without an extension before them is left alone', () => {
    expect(extractRefs('see releases/v1-2 and build/out-3')).toEqual(['releases/v1-2', 'build/out-3']);
  });
});

describe('digest without repeats', () => {
  it('a ref a longer listed ref contains takes no slot of its own', () => {
    const s = new Session();
    s.append('user', 'task');
    round(s, [{ name: 'Grep', input: { pattern: 'x' }, result: '/repo/cli/a.go and cli/a.go and lib/b.py' }]);
    const text = buildDigest(s, 1, s.messages.length - 1, 'steps', { maxRefs: 10, maxPrompts: 0, promptChars: 0 });
    expect(text).toContain('refs seen: /repo/cli/a.go lib/b.py');
    expect(text).not.toMatch(/ cli\/a\.go/);
  });

  it("a ref the turn's prompt already shows is not listed again", () => {
    const s = new Session();
    s.append('user', 'look at docs/plan.md please');
    round(s, [
      { name: 'Read', input: { file_path: 'x' }, result: 'docs/plan.md links lib/other.py ' + 'z '.repeat(300) },
    ]);
    s.append('assistant', [{ type: 'text', text: 'done' }]);
    s.append('user', 'next');
    const h = new Harness(
      s,
      createPipeline('tool-pruning', {
        strategies: { 'tool-pruning': { digest: true } },
        cacheAware: { enabled: false },
      }),
    );
    h.run();
    const digest = s.allOverlays().flatMap((o) => (o.kind === 'summary' ? [o.text] : []))[0];
    expect(digest).toContain('lib/other.py');
    expect(digest).not.toContain('docs/plan.md');
  });
});
