/**
 * Patterns the model chooses (search regexes, list_files globs) run on RE2 (re2js, a pure
 * JavaScript port): matching takes time linear in the text, so no pattern can backtrack
 * for minutes the way `(a+)+$` does in a JavaScript RegExp. RE2 has no lookaround and no
 * backreferences; those, a syntax error or a pattern too large to run get a
 * {@link PatternError} whose message says which.
 */
import { RE2JS } from 're2js';

/** Longest pattern accepted (a search query or a glob). */
export const MAX_PATTERN_CHARS = 1000;
/** Largest compiled program accepted: matching costs up to this much per character of text. */
export const MAX_PROGRAM_SIZE = 5000;
/**
 * Most work one match may take: characters × program size. RE2's slowest path costs about
 * 15–30 ns per unit (measured on 2 MB lines), so one call stays well under a second and a
 * search can stop between calls. A longer text is not matched ({@link LinearPattern.fits}).
 */
export const MAX_MATCH_WORK = 20_000_000;

/** What an error about RE2 syntax adds. */
const RE2_NOTE = 'patterns use RE2 syntax, which runs in linear time: no lookahead, lookbehind or backreferences';

/** A pattern that cannot run: the message is meant for the model (and the user). */
export class PatternError extends Error {}

/** A compiled linear-time pattern. */
export interface LinearPattern {
  /** Whether the pattern matches somewhere in `text`. */
  test(text: string): boolean;
  /** The index of the first match in `text`, or -1. */
  indexIn(text: string): number;
  /** Whether `text` is short enough for this pattern to match within {@link MAX_MATCH_WORK}. */
  fits(text: string): boolean;
}

export interface LinearPatternOptions {
  readonly ignoreCase?: boolean;
  /** The source is JavaScript syntax (`(?<name>…)`, `\u{…}`, `/`): translated to RE2's first. */
  readonly javascript?: boolean;
  /** Longest source accepted (default {@link MAX_PATTERN_CHARS}). */
  readonly maxChars?: number;
  /** Largest program accepted (default {@link MAX_PROGRAM_SIZE}). */
  readonly maxProgramSize?: number;
}

/** Throw a {@link PatternError} for a pattern longer than `max` characters. */
export function checkLength(pattern: string, max = MAX_PATTERN_CHARS): void {
  if (pattern.length <= max) return;
  throw new PatternError(`the pattern is too long (${pattern.length} characters; at most ${max})`);
}

/** Compile `source` for RE2, or throw a {@link PatternError} that says why it cannot run. */
export function compileLinear(source: string, o: LinearPatternOptions = {}): LinearPattern {
  checkLength(source, o.maxChars ?? MAX_PATTERN_CHARS);
  let re: RE2JS;
  try {
    const translated = o.javascript ? RE2JS.translateRegExp(source) : source;
    re = RE2JS.compile(translated, o.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (e) {
    const why = e instanceof Error ? e.message.replace(/^error parsing regexp: /, '') : String(e);
    throw new PatternError(`${why} (${RE2_NOTE})`);
  }
  const size = re.programSize();
  const max = o.maxProgramSize ?? MAX_PROGRAM_SIZE;
  if (size > max) {
    const why = `the pattern is too complex (program size ${size}; at most ${max})`;
    throw new PatternError(`${why}: use fewer or smaller repetitions`);
  }
  return {
    test: (text) => re.test(text),
    indexIn: (text) => {
      if (!re.test(text)) return -1;
      const m = re.matcher(text);
      return m.find() ? m.start() : -1;
    },
    fits: (text) => text.length * size <= MAX_MATCH_WORK,
  };
}
