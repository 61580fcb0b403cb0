/**
 * Reference ids: the identifiers in a tool result that a later step may need
 * (file paths, hashes, ids). Summaries keep them so trimming loses as little as possible.
 */

export interface RefPattern {
  readonly name: string;
  readonly re: RegExp;
}

/** Default patterns, most specific first. Each regex must be global. */
export const DEFAULT_REF_PATTERNS: readonly RefPattern[] = [
  // `ref_id: X`, and the JSON form `"ref_id": "X"` MCP servers often answer with.
  { name: 'ref_id', re: /\bref_id"?\s*[:=]\s*"?([\w.:/-]+)/g },
  { name: 'url', re: /\bhttps?:\/\/[^\s"'<>)\]]+/g },
  // Resource URIs of other schemes (MCP resources: `file:///…`, `demo://…`): a later call may need them.
  { name: 'uri', re: /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>)\]]+/g },
  { name: 'uuid', re: /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi },
  { name: 'api-id', re: /\b(?:toolu|msg|req|call|run|ref)_[A-Za-z0-9]{6,}\b/g },
  // Paths: something/with/slashes or a Windows path, ending in a name; or a bare file name with an extension.
  { name: 'path', re: /(?:[A-Za-z]:)?(?:[~.]{0,2}[\\/])?(?:[\w.@+-]+[\\/])+[\w.@+-]+/g },
  { name: 'file', re: /\b[\w-]+\.(?:ts|tsx|js|jsx|mjs|cjs|json|md|py|rs|go|java|kt|c|h|cpp|hpp|cs|rb|php|sh|ps1|yml|yaml|toml|ini|cfg|txt|html|css|scss|sql|xml|lock|log|csv|vue|svelte)\b/g },
  { name: 'hash', re: /\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,64}\b/g },
  // snake_case names (config keys, functions, events): what a later step types back.
  { name: 'identifier', re: /\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g },
];

/** Paths that are only noise (`a/b` fractions, dates). */
const MIN_PATH_LENGTH = 4;
/** Short snake_case words (`is_ok`) are too common to be worth a slot. */
const MIN_IDENTIFIER_LENGTH = 10;

/** Extract reference ids in first-seen order, deduplicated, at most `limit`. */
export function extractRefs(text: string, patterns: readonly RefPattern[] = DEFAULT_REF_PATTERNS, limit = Infinity): string[] {
  const seen = new Set<string>();
  // Characters already inside a match of a more specific pattern (a URL's path is not a second ref).
  const covered = new Uint8Array(text.length);
  const out: { ref: string; at: number }[] = [];
  for (const p of patterns) {
    p.re.lastIndex = 0;
    for (const m of text.matchAll(p.re)) {
      const at = m.index ?? 0;
      const end = at + m[0].length;
      if (covered[at] || covered[end - 1]) continue;
      covered.fill(1, at, end);
      const ref = (m[1] ?? m[0]).replace(/[.,:;]+$/, '');
      if (ref.length < (p.name === 'identifier' ? MIN_IDENTIFIER_LENGTH : MIN_PATH_LENGTH) || seen.has(ref)) continue;
      if (p.name === 'path' && /^\d+([\\/]\d+)+$/.test(ref)) continue;
      seen.add(ref);
      out.push({ ref, at });
    }
  }
  out.sort((a, b) => a.at - b.at);
  return out.slice(0, limit).map((x) => x.ref);
}

/** Reference ids (default patterns) per block param object: each tool result is scanned once, whoever asks. */
const defaultRefs = new WeakMap<object, string[]>();

/** {@link extractRefs} with the default patterns of a block's text, remembered per param object (params are never mutated). */
export function defaultRefsOf(param: object, text: () => string): string[] {
  let r = defaultRefs.get(param);
  if (!r) defaultRefs.set(param, (r = extractRefs(text(), DEFAULT_REF_PATTERNS)));
  return r;
}

/** The patterns are the default ones, in order (no custom pattern added). */
export function isDefaultPatterns(patterns: readonly RefPattern[]): boolean {
  return patterns === DEFAULT_REF_PATTERNS || (patterns.length === DEFAULT_REF_PATTERNS.length && patterns.every((p, i) => p === DEFAULT_REF_PATTERNS[i]));
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
