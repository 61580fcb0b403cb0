/**
 * Reference ids: the identifiers in a tool result that a later step may need
 * (file paths, hashes, ids). Summaries keep them so trimming loses as little as possible.
 */

export interface RefPattern {
  readonly name: string;
  readonly re: RegExp;
  /**
   * What every match is made of, for a faster scan with the same matches: each match
   * holds at least one of the `anchor` characters and only `allowed` ones (anchor ⊆ allowed, and
   * every word character is allowed; `allowed` may say yes to more). The regex then runs only on the runs of allowed
   * characters that hold an anchor (see {@link matchesOf}).
   */
  readonly shape?: {
    readonly anchor: string;
    readonly allowed: (c: number) => boolean;
    /** Characters every match has at least: shorter runs are skipped. */
    readonly min?: number;
  };
  /**
   * Instead of a shape: every match is one whole word (a maximal run of word characters, as
   * `\b…\b` around word characters makes it); `test` says which word [start, end) matches. Must agree
   * with `re`, which stays the definition.
   */
  readonly word?: { readonly test: (text: string, start: number, end: number) => boolean };
  /**
   * With a shape: text every match holds (`://`), made of allowed characters. The runs are found around it instead of
   * around each anchor character: those without it hold no match.
   */
  readonly needle?: string;
}

const isWordChar = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isSlash = (c: number): boolean => c === 47 || c === 92;
/** {@link isWordChar} of every UTF-16 code unit (1: a word character), for the whole-word scan. */
const WORD_CHARS = new Uint8Array(65536);
for (let c = 0; c < 128; c++) WORD_CHARS[c] = isWordChar(c) ? 1 : 0;
/**
 * Not ASCII white space, `"`, `'`, `<`, `>`, `)` or `]`: a superset of what a URL match holds (other white space counts
 * as allowed).
 */
const isUrlChar = (c: number): boolean =>
  c > 32 && c !== 34 && c !== 39 && c !== 60 && c !== 62 && c !== 41 && c !== 93 && c !== 127;
/** `[\w.@+-]`, `~`, `:` and the slashes: every character a path match can hold. */
const isPathChar = (c: number): boolean =>
  isWordChar(c) || c === 46 || c === 64 || c === 43 || c === 45 || c === 126 || c === 58 || isSlash(c);
/** 7 to 64 lowercase hex digits, at least one a–f and one 0–9 (the `hash` pattern). */
function isHashWord(text: string, start: number, end: number): boolean {
  if (end - start < 7 || end - start > 64) return false;
  let letter = false;
  let digit = false;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) digit = true;
    else if (c >= 97 && c <= 102) letter = true;
    else return false;
  }
  return letter && digit;
}

/** Extensions a bare file name (`config.json`) ends in to count as a ref. */
const FILE_EXTENSIONS = [
  ...['ts', 'tsx', 'js', 'jsx', 'mjs', 'cjs', 'json', 'md', 'py', 'rs', 'go', 'java', 'kt', 'c', 'h', 'cpp', 'hpp'],
  ...['cs', 'rb', 'php', 'sh', 'ps1', 'yml', 'yaml', 'toml', 'ini', 'cfg', 'txt', 'html', 'css', 'scss', 'sql', 'xml'],
  ...['lock', 'log', 'csv', 'vue', 'svelte'],
];

/** Default patterns, most specific first. Each regex must be global. */
export const DEFAULT_REF_PATTERNS: readonly RefPattern[] = [
  // `ref_id: X`, and the JSON form `"ref_id": "X"` MCP servers often answer with.
  { name: 'ref_id', re: /\bref_id"?\s*[:=]\s*"?([\w.:/-]+)/g },
  { name: 'url', re: /\bhttps?:\/\/[^\s"'<>)\]]+/g, shape: { anchor: ':', allowed: isUrlChar }, needle: '://' },
  // Resource URIs of other schemes (MCP resources: `file:///…`, `demo://…`): a later call may need them.
  {
    name: 'uri',
    re: /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>)\]]+/g,
    shape: { anchor: ':', allowed: isUrlChar },
    needle: '://',
  },
  {
    name: 'uuid',
    re: /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi,
    shape: { anchor: '-', allowed: (c) => isWordChar(c) || c === 45, min: 36 },
  },
  {
    name: 'api-id',
    re: /\b(?:toolu|msg|req|call|run|ref)_[A-Za-z0-9]{6,}\b/g,
    shape: { anchor: '_', allowed: isWordChar, min: 10 },
  },
  // Paths: something/with/slashes or a Windows path, ending in a name; or a bare file name with an extension.
  {
    name: 'path',
    re: /(?:[A-Za-z]:)?(?:[~.]{0,2}[\\/])?(?:[\w.@+-]+[\\/])+[\w.@+-]+/g,
    shape: { anchor: '/\\', allowed: isPathChar },
  },
  {
    name: 'file',
    re: new RegExp(`\\b[\\w-]+\\.(?:${FILE_EXTENSIONS.join('|')})\\b`, 'g'),
    shape: { anchor: '.', allowed: (c) => isWordChar(c) || c === 45 || c === 46 },
  },
  {
    name: 'hash',
    re: /\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,64}\b/g,
    word: { test: isHashWord },
  },
  // snake_case names (config keys, functions, events): what a later step types back.
  { name: 'identifier', re: /\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g, shape: { anchor: '_', allowed: isWordChar } },
];

/** Paths that are only noise (`a/b` fractions, dates). */
const MIN_PATH_LENGTH = 4;
/** Short snake_case words (`is_ok`) are too common to be worth a slot. */
const MIN_IDENTIFIER_LENGTH = 10;
/**
 * A path segment this long made only of base64 characters, with at least
 * {@link BASE64_MIN_EACH} digits, capitals and small letters, is encoded data (a key, a
 * certificate, a blob split at its `/`), not a name: no later step types it back, and a
 * PEM block fills a digest with such "paths" (measured: two 4k-token digests of one session).
 */
const BASE64_SEGMENT_MIN = 16;
const BASE64_MIN_EACH = 3;

/** Whether a path match holds a segment of encoded data (see {@link BASE64_SEGMENT_MIN}). */
export function looksEncoded(ref: string): boolean {
  for (const seg of ref.split(/[\\/]/)) {
    if (seg.length < BASE64_SEGMENT_MIN || !/^[A-Za-z0-9+=]+$/.test(seg)) continue;
    let digits = 0;
    let upper = 0;
    let lower = 0;
    for (let i = 0; i < seg.length; i++) {
      const c = seg.charCodeAt(i);
      if (c >= 48 && c <= 57) digits++;
      else if (c >= 65 && c <= 90) upper++;
      else if (c >= 97 && c <= 122) lower++;
    }
    if (digits >= BASE64_MIN_EACH && upper >= BASE64_MIN_EACH && lower >= BASE64_MIN_EACH) return true;
  }
  return false;
}

/** The text without trailing `.`, `,`, `:` and `;` (a sentence's punctuation after a path). */
function trimTrailingPunctuation(s: string): string {
  let e = s.length;
  for (let c = s.charCodeAt(e - 1); c === 46 || c === 44 || c === 58 || c === 59; c = s.charCodeAt(e - 1)) e--;
  return e === s.length ? s : s.slice(0, e);
}

/**
 * A path as grep prints it beside a line: `src/a.go-51-` (a context line, the line's first word may follow) or
 * `src/a.go-51` names `src/a.go`. Without the suffix every line of one file would take a ref slot of its own.
 */
const GREP_LINE_SUFFIX = /^(.+\.[A-Za-z][A-Za-z0-9]{0,7})-\d+(?:-[\w@+-]*)?$/;

/** A path match without a grep line suffix (see {@link GREP_LINE_SUFFIX}). */
function withoutLineSuffix(ref: string): string {
  const m = GREP_LINE_SUFFIX.exec(ref);
  return m ? m[1] : ref;
}

/** One zeroed buffer of at least `n` bytes, reused from scan to scan (refs are extracted one text at a time). */
let coveredBuffer = new Uint8Array(0);
function coveredFor(n: number): Uint8Array {
  if (coveredBuffer.length < n) coveredBuffer = new Uint8Array(Math.max(n, coveredBuffer.length * 2, 4096));
  else coveredBuffer.fill(0, 0, n);
  return coveredBuffer;
}

/** Extract reference ids in first-seen order, deduplicated, at most `limit`. */
export function extractRefs(
  text: string,
  patterns: readonly RefPattern[] = DEFAULT_REF_PATTERNS,
  limit = Infinity,
): string[] {
  const seen = new Set<string>();
  // Characters already inside a match of a more specific pattern (a URL's path is not a second ref).
  const covered = coveredFor(text.length);
  const out: { ref: string; at: number }[] = [];
  for (const p of patterns) {
    const min = p.name === 'identifier' ? MIN_IDENTIFIER_LENGTH : MIN_PATH_LENGTH;
    matchesOf(text, p, (at, match, group) => {
      const end = at + match.length;
      if (covered[at] || covered[end - 1]) return;
      covered.fill(1, at, end);
      const bare = trimTrailingPunctuation(group ?? match);
      const ref = p.name === 'path' ? withoutLineSuffix(bare) : bare;
      if (ref.length < min || seen.has(ref)) return;
      if (p.name === 'path' && (/^\d+([\\/]\d+)+$/.test(ref) || looksEncoded(ref))) return;
      seen.add(ref);
      out.push({ ref, at });
    });
  }
  out.sort((a, b) => a.at - b.at);
  return out.slice(0, limit).map((x) => x.ref);
}

/** Per shape: `allowed` of each ASCII character (1: allowed), so the scans call it only beyond ASCII. */
const asciiTables = new WeakMap<object, Uint8Array>();
function asciiTable(shape: NonNullable<RefPattern['shape']>): Uint8Array {
  let t = asciiTables.get(shape);
  if (!t) {
    t = new Uint8Array(128);
    for (let c = 0; c < 128; c++) t[c] = shape.allowed(c) ? 1 : 0;
    asciiTables.set(shape, t);
  }
  return t;
}

/** Called with each match: where it starts, its text and its first group. */
type OnMatch = (index: number, match: string, group: string | undefined) => void;

/** Every match of a regex in a text, as `matchAll` gives them, with `offset` added to each index. */
function execAll(re: RegExp, text: string, offset: number, on: OnMatch): void {
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0] === '') re.lastIndex++;
    on(offset + m.index, m[0], m[1]);
  }
}

/**
 * The matches of a pattern, leftmost first, as `matchAll` gives them.
 * - With `word`: a match is a whole word (a maximal run of word characters): each word of the
 *   text is tested, found by a table scan (no regex).
 * - With `shape`: every match lies inside one run of allowed characters that holds an
 *   anchor; the characters around a run are not allowed, and since `allowed` covers every
 *   word character they are non-word characters, as the start and end of a string are (so
 *   `\b` means the same). The regex runs on each such run alone: the same matches, and the
 *   text between runs is skipped by `indexOf` instead of the regex trying every position.
 */
function matchesOf(text: string, p: RefPattern, on: OnMatch): void {
  const n = text.length;
  if (p.word) {
    // Each whole word (a maximal run of word characters), tested.
    const { test } = p.word;
    let i = 0;
    while (i < n) {
      while (i < n && WORD_CHARS[text.charCodeAt(i)] === 0) i++;
      const start = i;
      while (i < n && WORD_CHARS[text.charCodeAt(i)] === 1) i++;
      if (i > start && test(text, start, i)) on(start, text.slice(start, i), undefined);
    }
    return;
  }
  const shape = p.shape;
  if (!shape) return execAll(p.re, text, 0, on);
  const allowed = asciiTable(shape);
  // The next occurrence of each anchor at or after `from` (n: none left). With a needle, the runs that hold it are
  // those to look in (the others hold no match), found around it as around an anchor character.
  const anchors = p.needle ? [p.needle] : [...shape.anchor];
  const next: number[] = [];
  for (let k = 0; k < anchors.length; k++) next.push(-1);
  let from = 0;
  for (;;) {
    let a = n;
    for (let k = 0; k < next.length; k++) {
      if (next[k] < from) {
        const i = text.indexOf(anchors[k], from);
        next[k] = i < 0 ? n : i;
      }
      if (next[k] < a) a = next[k];
    }
    if (a >= n) return;
    let start = a;
    while (start > from) {
      const c = text.charCodeAt(start - 1);
      if (c < 128 ? allowed[c] === 0 : !shape.allowed(c)) break;
      start--;
    }
    let end = a + 1;
    for (; end < n; end++) {
      const c = text.charCodeAt(end);
      if (c < 128 ? allowed[c] === 0 : !shape.allowed(c)) break;
    }
    if (end - start >= (shape.min ?? 0)) execAll(p.re, text.slice(start, end), start, on);
    from = end;
  }
}

/** Reference ids (default patterns) per block param object: each tool result is scanned once, whoever asks. */
const defaultRefs = new WeakMap<object, string[]>();

/**
 * {@link extractRefs} with the default patterns of a block's text, remembered per param object (params are never
 * mutated).
 */
export function defaultRefsOf(param: object, text: () => string): string[] {
  let r = defaultRefs.get(param);
  if (!r) defaultRefs.set(param, (r = extractRefs(text(), DEFAULT_REF_PATTERNS)));
  return r;
}

/**
 * Remember the default-pattern refs of a block's text found elsewhere (the proxy scans a huge result in a worker
 * thread, off its event loop): {@link defaultRefsOf} then returns them without scanning the text again.
 */
export function rememberDefaultRefs(param: object, refs: string[]): void {
  if (!defaultRefs.has(param)) defaultRefs.set(param, refs);
}

/** The patterns are the default ones, in order (no custom pattern added). */
export function isDefaultPatterns(patterns: readonly RefPattern[]): boolean {
  return (
    patterns === DEFAULT_REF_PATTERNS ||
    (patterns.length === DEFAULT_REF_PATTERNS.length && patterns.every((p, i) => p === DEFAULT_REF_PATTERNS[i]))
  );
}

/** Compile user-configured patterns (strings) into global regexes; invalid ones are reported. */
export function compilePatterns(sources: readonly string[]): { patterns: RefPattern[]; errors: string[] } {
  const patterns: RefPattern[] = [];
  const errors: string[] = [];
  for (const src of sources) {
    try {
      patterns.push({ name: `custom:${src}`, re: new RegExp(src, 'g') });
    } catch (e) {
      errors.push(`invalid reference pattern ${JSON.stringify(src)}: ${(e as Error).message}`);
    }
  }
  return { patterns, errors };
}
