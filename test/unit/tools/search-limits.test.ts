/**
 * The model chooses search regexes and list_files globs: they run in linear time (RE2), a
 * file and a search have a time cap, matching yields to the event loop, and Stop ends a
 * search between lines. The clocks here are counters (no wall-clock assertion).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { executeTool } from '../../../src/core/agent/tools';
import { compileGlob } from '../../../src/core/agent/tools/glob';
import { runSearch, SEARCH_LIMITS, type SearchLimits } from '../../../src/core/agent/tools/search';
import { makeContext, makeTempDir, removeDir } from './helpers';

let root = '';
afterEach(() => removeDir(root));

/** A clock that moves one ms per reading and calls `at(n)` on the n-th reading. */
function counterClock(at: (n: number) => void = () => undefined): () => number {
  let n = 0;
  return () => {
    at(++n);
    return n;
  };
}

const lines = (n: number, text: string): string => Array.from({ length: n }, () => text).join('\n');

describe('search runs model-chosen regexes in linear time', () => {
  it('(a+)+$ on a 35-character line completes with its answer', async () => {
    root = makeTempDir({ 'evil.txt': `${'a'.repeat(34)}!\n`, 'ok.txt': 'x aaaa\n' });
    const ctx = makeContext(root);
    const r = await executeTool('search', { query: '(a+)+$', regex: true }, ctx);
    expect(r).toEqual({ is_error: false, content: 'ok.txt:1: x aaaa' });
    const none = await executeTool('search', { query: '(a+)+$', regex: true, path: 'evil.txt' }, ctx);
    expect(none.content).toBe('No matches for "(a+)+$" in evil.txt (searched 1 file).');
  });

  it('names the problem of an invalid, unsupported, too long or too complex pattern', async () => {
    root = makeTempDir({ 'a.txt': 'abc\n' });
    const ctx = makeContext(root);
    const cases: [string, RegExp][] = [
      ['(', /missing closing \)/],
      ['a(?=b)', /unsupported Perl syntax.*no lookahead, lookbehind or backreferences/],
      ['(a)\\1', /invalid escape sequence.*backreferences/],
      ['.{0,999}'.repeat(4), /too complex \(program size \d+; at most 5000\)/],
      ['a'.repeat(1001), /too long \(1001 characters; at most 1000\)/],
    ];
    for (const [query, why] of cases) {
      const r = await executeTool('search', { query, regex: true }, ctx);
      expect(r.is_error, query).toBe(true);
      expect(r.content).toMatch(/^invalid regular expression /);
      expect(r.content).toMatch(why);
      expect(r.content).toMatch(/Set regex to false to search for the literal text\.$/);
    }
  });

  it('keeps JavaScript syntax that RE2 can run (named groups, \\u{…}, /)', async () => {
    root = makeTempDir({ 'a.ts': 'const x = 1;\nconst é = "a/b";\n' });
    const ctx = makeContext(root);
    const found = async (query: string): Promise<string> =>
      (await executeTool('search', { query, regex: true }, ctx)).content;
    expect(await found('(?<name>\\w+) = \\d')).toBe('a.ts:1: const x = 1;');
    expect(await found('\\u{e9} = "a/b"')).toBe('a.ts:2: const é = "a/b";');
  });
});

describe('search time limits and Stop', () => {
  it('Stop ends a search in the middle of a file', async () => {
    root = makeTempDir({ 'one.txt': lines(1000, 'needle') });
    const stop = new AbortController();
    // The stop comes while the one file is being matched (the clock is read before each line).
    const limits: SearchLimits = { ...SEARCH_LIMITS, now: counterClock((n) => n === 50 && stop.abort()) };
    const r = await runSearch({ query: 'zzz' }, makeContext(root, { signal: stop.signal }), limits);
    expect(r).toEqual({ is_error: true, content: 'cancelled: the user stopped this turn.' });
  });

  it('a file gets at most fileMs: the rest of it is not searched, and the result says so', async () => {
    root = makeTempDir({ 'a.txt': `${lines(500, 'x')}\nneedle`, 'b.txt': 'needle\n' });
    const limits: SearchLimits = { ...SEARCH_LIMITS, fileMs: 100, now: counterClock() };
    const r = await runSearch({ query: 'needle' }, makeContext(root), limits);
    expect(r.is_error).toBe(false);
    expect(r.content).toMatch(/^b\.txt:1: needle\n\n\[Searched only part of 1 file \(0\.1 s per file\)/);
  });

  it('the search gets at most totalMs: the matches so far come back with a note', async () => {
    root = makeTempDir({ 'a.txt': lines(50, 'needle'), 'b.txt': lines(50, 'needle') });
    const limits: SearchLimits = { ...SEARCH_LIMITS, totalMs: 120, now: counterClock() };
    const r = await runSearch({ query: 'needle' }, makeContext(root), limits);
    expect(r.content).toContain('a.txt:50: needle');
    expect(r.content).not.toContain('b.txt:50:');
    expect(r.content).toMatch(/Stopped after 0\.12 s; the matches so far are shown\./);
  });

  it('yields to the event loop while matching one file', async () => {
    root = makeTempDir({ 'one.txt': lines(200, 'x') });
    let turns = 0;
    let stopped = false;
    const tick = (): void => {
      turns++;
      if (!stopped) setImmediate(tick);
    };
    // Turns are counted from the search's first clock reading (after that, only matching runs).
    const now = counterClock((n) => n === 1 && setImmediate(tick));
    const limits: SearchLimits = { ...SEARCH_LIMITS, sliceMs: 10, now };
    const r = await runSearch({ query: 'zzz' }, makeContext(root), limits);
    stopped = true;
    expect(r.content).toMatch(/^No matches/);
    expect(turns).toBeGreaterThan(5);
  });

  it('skips a line too long for a large regex, and says so', async () => {
    root = makeTempDir({ 'min.js': `${'ab'.repeat(100_000)}\nab\n` });
    const r = await runSearch({ query: 'a[ab]{0,500}$', regex: true }, makeContext(root));
    expect(r.content).toMatch(/^min\.js:2: ab\n\n\[Skipped 1 line too long for this regex; use a simpler one/);
  });
});

describe('list_files globs run in linear time', () => {
  it('*a*a*a*a*a*a*a*a*a*a*b against a 40-character name completes', () => {
    expect(compileGlob('*a*a*a*a*a*a*a*a*a*a*b').test('a'.repeat(40))).toBe(false);
    expect(compileGlob('*a*a*a*a*a*a*a*a*a*a*b').test(`${'a'.repeat(40)}b`)).toBe(true);
  });

  it('a class escape is the literal character; an unusable glob is a clear error', async () => {
    expect(compileGlob('[\\d]').test('d')).toBe(true);
    expect(compileGlob('[\\d]').test('1')).toBe(false);
    root = makeTempDir({ 'a.txt': '' });
    const r = await executeTool('list_files', { pattern: '[z-a]' }, makeContext(root));
    expect(r.is_error).toBe(true);
    expect(r.content).toMatch(/^invalid pattern "\[z-a\]": invalid character class range/);
    const big = await executeTool('list_files', { pattern: '?'.repeat(500) }, makeContext(root));
    expect(big.content).toMatch(/too complex/);
  });
});
