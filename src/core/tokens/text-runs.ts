/**
 * Where a text may be cut before cl100k encoding, found without unbounded regex quantifiers.
 *
 * V8's regex engine keeps one backtrack entry per repetition of a greedy quantifier: a pattern
 * such as `\p{L}{64,}` overflows the stack on a run of ~5.6 M letters. Here every quantifier is
 * bounded (PIECE_CHARS) and a long run is followed piece by piece, so any text is scanned in
 * constant stack and linear time.
 */

/** Longest piece one regex match takes; a run is followed piece by piece beyond it. */
const PIECE_CHARS = 1024;

/** A maximal run of one character class (letters, punctuation/symbols, white space), in UTF-16 offsets. */
export interface Run {
  readonly start: number;
  readonly end: number;
}

/** Per run length: the pattern that finds where a long run starts (one compiled regex per length). */
const starts = new Map<number, RegExp>();
/** Per class (letters, punctuation/symbols, white space): the pattern that follows a run piece by piece. */
const MORE = [/\p{L}{1,1024}/uy, /[^\s\p{L}\p{N}]{1,1024}/uy, /\s{1,1024}/uy];

function startPattern(minChars: number): RegExp {
  let re = starts.get(minChars);
  if (!re) {
    const n = `{${minChars},${PIECE_CHARS}}`;
    re = new RegExp(`(\\p{L}${n})|([^\\s\\p{L}\\p{N}]${n})|(\\s${n})`, 'gu');
    starts.set(minChars, re);
  }
  return re;
}

/**
 * The maximal same-class runs of at least `minChars` code points in `text`, left to right: the
 * same runs as `/\p{L}{min,}|[^\s\p{L}\p{N}]{min,}|\s{min,}/gu` finds, without its stack.
 */
export function longRuns(text: string, minChars: number): Run[] {
  const start = startPattern(minChars);
  const runs: Run[] = [];
  start.lastIndex = 0;
  let m = start.exec(text);
  while (m !== null) {
    const follow = MORE[m[1] !== undefined ? 0 : m[2] !== undefined ? 1 : 2];
    let end = m.index + m[0].length;
    // A match of the full piece length may go on: follow the run piece by piece.
    for (let piece = m[0]; piece.length >= PIECE_CHARS;) {
      follow.lastIndex = end;
      const next = follow.exec(text);
      if (next === null) break;
      piece = next[0];
      end += piece.length;
    }
    runs.push({ start: m.index, end });
    start.lastIndex = end;
    m = start.exec(text);
  }
  return runs;
}

function isHigh(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLow(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** End of `n` code points from `i` in `text` (not beyond `end`): a surrogate pair is never split. */
export function codePointsEnd(text: string, i: number, end: number, n: number): number {
  for (let k = 0; k < n && i < end; k++) {
    i += isHigh(text.charCodeAt(i)) && i + 1 < end && isLow(text.charCodeAt(i + 1)) ? 2 : 1;
  }
  return i;
}

function asciiLetter(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

/** A printable ASCII character other than the space: never white space, never half a surrogate pair. */
function printable(c: number): boolean {
  return c > 0x20 && c < 0x7f;
}

/**
 * Whether cl100k counts `text` as the sum of its two sides when cut at `at`: the pre-tokenizer
 * (its pattern has no look-behind, and every piece that can hold the character before `at`
 * ends there) splits at `at` either way, and no long run crosses it. Two such places: after a
 * newline before a printable character ("…\n  x" is not one, "…\nx" is), and between a
 * printable character and " letter" ("a| b", ".| b", "1| b").
 */
export function exactCut(text: string, at: number): boolean {
  if (at <= 0 || at + 1 >= text.length) return false;
  const before = text.charCodeAt(at - 1);
  const here = text.charCodeAt(at);
  if (before === 0x0a) return printable(here);
  return printable(before) && here === 0x20 && asciiLetter(text.charCodeAt(at + 1));
}

/**
 * Where to end a slice of `text` that starts at `from` and should end by `target`: the last
 * exact cut in the `window` chars before `target`, else `target` itself (moved off the middle of
 * a surrogate pair). Only then may the sum of the slices' counts differ from the whole text's,
 * by about a token per cut.
 */
export function sliceEnd(text: string, from: number, target: number, window = 512): number {
  if (target >= text.length) return text.length;
  for (let at = target; at > from && at > target - window; at--) if (exactCut(text, at)) return at;
  const midPair = isLow(text.charCodeAt(target)) && isHigh(text.charCodeAt(target - 1));
  return midPair && target - 1 > from ? target - 1 : target;
}
