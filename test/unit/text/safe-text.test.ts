/** The one sanitizer of terminal output (and the bidi rule of the HTML views). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bidiVisible, jsonTerminalSafe, terminalSafe, terminalSafeLine } from '../../../src/protocol/safe-text';

const BIDI = [0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069];
const isBidi = (cp: number): boolean => BIDI.includes(cp);
const isControl = (cp: number): boolean => cp <= 0x1f || (cp >= 0x7f && cp <= 0x9f);
const codePoints = (s: string): number[] => [...s].map((c) => c.codePointAt(0)!);

/** Strings rich in what a terminal obeys: controls, ESC sequences, C1, bidi, CRLF, plus any Unicode. */
const hostile = fc
  .array(
    fc.oneof(
      fc.integer({ min: 0, max: 0x20 }).map((n) => String.fromCodePoint(n)),
      fc.integer({ min: 0x7f, max: 0xa0 }).map((n) => String.fromCodePoint(n)),
      fc.constantFrom(...BIDI).map((n) => String.fromCodePoint(n)),
      fc.constantFrom('\x1b[2J', '\x1b]0;owned\x07', '\x1b]52;c;aGk=\x1b\\', '\r\n', '\u009b31m', '\r'),
      fc.string({ unit: 'grapheme' }),
      fc.string({ unit: 'binary' }),
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(''));

/** Printable text: no control character, no bidi control (newlines and tabs allowed). */
const printable = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'grapheme' }),
      fc.constantFrom('\n', '\t', 'é', '→ ✓', '中文', '👩‍💻', 'مرحبا', '\\u{1b}'),
    ),
    { maxLength: 30 },
  )
  .map((parts) => parts.join(''))
  .filter((s) => codePoints(s).every((cp) => cp === 0x0a || cp === 0x09 || (!isControl(cp) && !isBidi(cp))));

describe('terminalSafe', () => {
  it('never outputs a control character other than \\n and \\t, nor a bidi control', () => {
    fc.assert(
      fc.property(hostile, (s) => {
        for (const cp of codePoints(terminalSafe(s))) {
          expect(cp === 0x0a || cp === 0x09 || !isControl(cp), `U+${cp.toString(16)}`).toBe(true);
          expect(isBidi(cp), `U+${cp.toString(16)}`).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('passes printable text unchanged, and is idempotent', () => {
    fc.assert(
      fc.property(printable, (s) => {
        expect(terminalSafe(s)).toBe(s);
      }),
    );
    fc.assert(
      fc.property(hostile, (s) => {
        expect(terminalSafe(terminalSafe(s))).toBe(terminalSafe(s));
      }),
    );
  });

  it('makes ESC/OSC/C1/bidi visible as \\u{hex} and reads CRLF as a line break', () => {
    expect(terminalSafe('a\x1b[2Jb')).toBe('a\\u{1b}[2Jb');
    expect(terminalSafe('\x1b]0;title\x07')).toBe('\\u{1b}]0;title\\u{7}');
    expect(terminalSafe('x\u009b31m')).toBe('x\\u{9b}31m');
    expect(terminalSafe('admin\u202e\u2066txt.exe')).toBe('admin\\u{202e}\\u{2066}txt.exe');
    expect(terminalSafe('one\r\ntwo\rthree\x7f')).toBe('one\ntwo\\u{d}three\\u{7f}');
    expect(terminalSafe('tab\there\nnext')).toBe('tab\there\nnext');
  });
});

describe('terminalSafeLine', () => {
  it('outputs no control character at all (line breaks and tabs escaped too)', () => {
    fc.assert(
      fc.property(hostile, (s) => {
        for (const cp of codePoints(terminalSafeLine(s)))
          expect(isControl(cp) || isBidi(cp), `U+${cp.toString(16)}`).toBe(false);
      }),
      { numRuns: 500 },
    );
    expect(terminalSafeLine('a\nb\tc\r')).toBe('a\\u{a}b\\u{9}c\\u{d}');
  });

  it('passes one-line printable text unchanged', () => {
    fc.assert(
      fc.property(
        printable.filter((s) => !/[\n\t]/.test(s)),
        (s) => {
          expect(terminalSafeLine(s)).toBe(s);
        },
      ),
    );
  });
});

describe('jsonTerminalSafe', () => {
  it('leaves no raw control or bidi character and parses back to the same value', () => {
    fc.assert(
      fc.property(fc.array(hostile, { maxLength: 4 }), (values) => {
        const json = jsonTerminalSafe(JSON.stringify({ values }, null, 2));
        for (const cp of codePoints(json))
          expect((isControl(cp) && cp !== 0x0a) || isBidi(cp), `U+${cp.toString(16)}`).toBe(false);
        expect(JSON.parse(json)).toEqual({ values });
      }),
      { numRuns: 300 },
    );
  });
});

describe('bidiVisible (HTML views)', () => {
  it('escapes the bidi controls and nothing else', () => {
    expect(bidiVisible('a\u202eb\u2067c\u200fd')).toBe('a\\u{202e}b\\u{2067}c\\u{200f}d');
    fc.assert(
      fc.property(printable, (s) => {
        expect(bidiVisible(s)).toBe(s);
      }),
    );
    fc.assert(
      fc.property(hostile, (s) => {
        expect(codePoints(bidiVisible(s)).some(isBidi)).toBe(false);
      }),
    );
  });
});
