/**
 * A small glob translator, run on RE2 (linear-pattern.ts: the model chooses globs, and
 * `*a*a*a*a*a*a*a*a*a*a*b` took 10 s per 40-character name as a JavaScript RegExp).
 * Patterns match `/`-separated relative paths as a whole:
 *
 * - `*`  any characters except `/` (dotfiles included: the ignore list handles `.git`)
 * - `?`  one character except `/`
 * - `**` as a whole segment: zero or more segments (`src/**` matches `src/a` and
 *   `src/a/b`; `** /x` (no space) matches `x` and `a/x`); elsewhere it acts like `*`
 * - `{a,b}` alternatives (nestable, may contain globs)
 * - `[abc]`, `[a-z]`, `[!abc]` character classes
 * - `\x` the literal character x
 *
 * A leading `./` is ignored. `*.ts` matches only at the top level, as in a shell.
 */

import { checkLength, compileLinear, type LinearPattern } from './linear-pattern';

/** Largest compiled glob: globs are short, and every listed path is matched against it. */
const MAX_GLOB_PROGRAM_SIZE = 400;

const REGEX_SPECIALS = new Set([...'.+^$()|[]{}\\/*?']);

function escapeChar(c: string): string {
  return REGEX_SPECIALS.has(c) ? `\\${c}` : c;
}

/** Index of the `}` closing the `{` at `open`, or -1. */
function matchingBrace(glob: string, open: number): number {
  let depth = 0;
  for (let i = open; i < glob.length; i++) {
    const c = glob[i];
    if (c === '\\') i++;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return -1;
}

/** Split the inside of a brace group on its top-level commas. */
function splitAlternatives(inner: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === '\\') i++;
    else if (c === '{') depth++;
    else if (c === '}') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(inner.slice(start));
  return parts;
}

/** Translate a `[...]` class starting at `open`; returns the regex and the index after it, or undefined. */
function translateClass(glob: string, open: number): { regex: string; next: number } | undefined {
  let i = open + 1;
  let negate = false;
  if (glob[i] === '!' || glob[i] === '^') {
    negate = true;
    i++;
  }
  let body = '';
  // A `]` right after `[` (or `[!`) is a literal member.
  if (glob[i] === ']') {
    body += '\\]';
    i++;
  }
  for (; i < glob.length; i++) {
    const c = glob[i];
    if (c === ']') return { regex: `[${negate ? '^/' : ''}${body}]`, next: i + 1 };
    // `\x` is the literal x (RE2 reads `\d`, `\w`… as classes and refuses other letters).
    if (c === '\\' && i + 1 < glob.length) body += /[\p{L}\p{N}]/u.test(glob[++i]) ? glob[i] : `\\${glob[i]}`;
    else if (c === '^' || c === '[') body += `\\${c}`;
    else body += c;
  }
  return undefined;
}

/** Translate `glob` to a regex source (no anchors). */
function translate(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '\\') {
      if (i + 1 < glob.length) out += escapeChar(glob[++i]);
      else out += '\\\\';
    } else if (c === '*') {
      if (glob[i + 1] === '*') {
        const atSegmentStart = i === 0 || glob[i - 1] === '/';
        const end = i + 2;
        if (atSegmentStart && end === glob.length) {
          // `**` or `dir/**`: anything below (for `dir/**`, `dir` itself too).
          if (out.endsWith('\\/')) out = `${out.slice(0, -2)}(?:\\/.*)?`;
          else out += '.*';
          i = end - 1;
          continue;
        }
        if (atSegmentStart && glob[end] === '/') {
          out += '(?:.*\\/)?';
          i = end;
          continue;
        }
        i = end - 1;
      }
      out += '[^/]*';
    } else if (c === '?') {
      out += '[^/]';
    } else if (c === '{') {
      const close = matchingBrace(glob, i);
      if (close < 0) {
        out += '\\{';
        continue;
      }
      const alts = splitAlternatives(glob.slice(i + 1, close)).map(translate);
      out += `(?:${alts.join('|')})`;
      i = close;
    } else if (c === '[') {
      const cls = translateClass(glob, i);
      if (!cls) {
        out += '\\[';
        continue;
      }
      out += cls.regex;
      i = cls.next - 1;
    } else {
      out += escapeChar(c);
    }
  }
  return out;
}

/**
 * Compile a glob to an anchored pattern over `/`-separated relative paths; throws PatternError
 * for one that cannot run.
 */
export function compileGlob(glob: string): Pick<LinearPattern, 'test'> {
  let g = glob;
  while (g.startsWith('./')) g = g.slice(2);
  checkLength(g);
  return compileLinear(`^${translate(g)}$`, { maxChars: Infinity, maxProgramSize: MAX_GLOB_PROGRAM_SIZE });
}
