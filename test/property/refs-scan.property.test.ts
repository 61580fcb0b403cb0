/**
 * The reference scan's shortcuts (a pattern's `shape`: the regex runs only on
 * runs of allowed characters holding an anchor, or its needle, and at least its
 * `min` long; its `word` test: whole words tested without the regex) are optimizations only: on
 * random texts made of the characters the patterns care about, extractRefs
 * with the default patterns gives exactly what the same regexes give when
 * tried at every position (the patterns without their shapes).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_REF_PATTERNS, extractRefs, type RefPattern } from '../../src/core/trimming/refs';

const RUNS = Math.max(200, Math.floor(Number(process.env.TRIMLINE_PROP_RUNS ?? 10_000) / 5));

/** The default patterns with fresh regexes and no shape: the plain scan. */
const PLAIN: readonly RefPattern[] = DEFAULT_REF_PATTERNS.map((p) => ({
  name: p.name,
  re: new RegExp(p.re.source, p.re.flags),
}));

/** Pieces that make paths, URLs, uuids, identifiers, file names and hashes, and what breaks them. */
const PIECES = [
  'a',
  'Z',
  '0',
  '7',
  'f',
  'e3',
  '_',
  '-',
  '.',
  '/',
  '\\',
  ':',
  '~',
  '@',
  '+',
  ' ',
  '\n',
  '\t',
  '"',
  "'",
  '<',
  '>',
  ')',
  ']',
  '(',
  ',',
  ';',
  'src',
  'ts',
  'json',
  'http',
  'https://',
  'file://',
  'ref_id',
  '=',
  'toolu_',
  'msg_',
  'abcdef1234',
  '1b4e28ba-2fa1-11d2-883f-0016d3cca427',
  'C:',
  '\u00a0',
  'é',
  '→',
  'snake_case_name',
  'x.py',
  '../',
  './',
  'deadbeef0',
  '0123456789abcdef0123456789abcdef',
  'A',
  'g',
  '9f',
];

/** Hex-heavy texts: words of every length around the hash pattern's 7 to 64. */
const HEX = ['0', 'a', 'f', '9', 'g', 'A', ' ', '_', '-', 'deadbeef', '0123456789abcdef', 'a1'.repeat(30)];

const text = fc.oneof(
  fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }).map((xs) => xs.join('')),
  fc.array(fc.constantFrom(...HEX), { maxLength: 40 }).map((xs) => xs.join('')),
);

describe('reference scan shortcut', () => {
  it('finds exactly what trying every position finds', () => {
    fc.assert(
      fc.property(text, (t) => {
        expect(extractRefs(t)).toEqual(extractRefs(t, PLAIN));
      }),
      { numRuns: RUNS },
    );
  });

  it('the shortcuts cover the patterns, and the sample finds each kind', () => {
    // Not vacuous: the generated texts do contain references of each shaped kind.
    const sample =
      'see src/a/b.ts, https://x.io/p, 1b4e28ba-2fa1-11d2-883f-0016d3cca427, toolu_abcdef12, my_long_name_here, x.py at 9fceb02.';
    expect(extractRefs(sample)).toEqual([
      'src/a/b.ts',
      'https://x.io/p',
      '1b4e28ba-2fa1-11d2-883f-0016d3cca427',
      'toolu_abcdef12',
      'my_long_name_here',
      'x.py',
      '9fceb02',
    ]);
    expect(DEFAULT_REF_PATTERNS.filter((p) => p.shape || p.word).map((p) => p.name)).toEqual([
      'url',
      'uri',
      'uuid',
      'api-id',
      'path',
      'file',
      'hash',
      'identifier',
    ]);
  });
});
