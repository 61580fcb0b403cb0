/**
 * search: lines matching a literal string (default) or a regular expression, as
 * `file:line: text`. Smart case: a query without uppercase letters matches
 * case-insensitively. Binary files, files over MAX_SEARCH_FILE_BYTES and the
 * default-ignored directories are skipped.
 *
 * The model chooses the regex, so it runs on RE2 (linear-pattern.ts): no pattern
 * backtracks. A file gets at most {@link SearchLimits.fileMs}, the search at most
 * {@link SearchLimits.totalMs}; matching yields to the event loop every
 * {@link SearchLimits.sliceMs}, and Stop (the abort signal) ends it between lines.
 */
import { WorkspaceError, type FileStat } from '../workspace';
import { compileLinear, PatternError } from './linear-pattern';
import type { ObjectSchema } from './schema';
import { DEFAULT_IGNORE, decodeText, displayPath, isBinary, plural } from './text';
import { fail, ok, type ToolContext, type ToolResult, type ToolSpec } from './types';

/** Matches shown (~10k tokens); more means the query is too broad to be useful. */
export const MAX_SEARCH_MATCHES = 200;
/** Files scanned per search, so a giant tree cannot stall the turn. */
export const MAX_SEARCH_FILES = 20_000;
/** Larger files are skipped: generated data, logs and bundles, rarely what is searched for. */
export const MAX_SEARCH_FILE_BYTES = 2_000_000;
/** Characters of a matching line shown (a window around the match for longer lines). */
export const MAX_MATCH_LINE_CHARS = 300;
/** Characters kept before the match when a long line is windowed. */
const MATCH_CONTEXT_CHARS = 100;

/** How long a search may run; tests pass their own clock. */
export interface SearchLimits {
  /** Time one file may take; the rest of a slower file is not searched (and the result says so). */
  readonly fileMs: number;
  /** Time the whole search may take; past it the matches so far are returned with a note. */
  readonly totalMs: number;
  /** Matching between two yields to the event loop, so Stop and the host's other work get through. */
  readonly sliceMs: number;
  readonly now: () => number;
}

export const SEARCH_LIMITS: SearchLimits = { fileMs: 1000, totalMs: 10_000, sliceMs: 20, now: () => Date.now() };

export interface SearchInput {
  query: string;
  path?: string;
  regex?: boolean;
}

const schema: ObjectSchema = {
  type: 'object',
  properties: {
    query: {
      type: 'string',
      description: 'Text to find (literal unless regex is true). All-lowercase queries match case-insensitively.',
      minLength: 1,
    },
    path: {
      type: 'string',
      description: 'File or directory to search, relative to the workspace root. Default: the whole workspace.',
    },
    regex: {
      type: 'boolean',
      description: 'Treat query as a regular expression (RE2 syntax: no lookaround or backreferences). Default false.',
    },
  },
  required: ['query'],
  additionalProperties: false,
};

/**
 * How a query matches a line: the index of the first match, or -1; `fits`: whether the line
 * can be matched in bounded time.
 */
interface LineMatcher {
  readonly indexIn: (line: string) => number;
  readonly fits: (line: string) => boolean;
}

/** The matcher for a query; throws PatternError for a regex that cannot run. */
export function makeMatcher(query: string, regex: boolean): LineMatcher {
  const ignoreCase = query === query.toLowerCase();
  if (regex) return compileLinear(query, { ignoreCase, javascript: true });
  const needle = ignoreCase ? query.toLowerCase() : query;
  return { indexIn: (line) => (ignoreCase ? line.toLowerCase() : line).indexOf(needle), fits: () => true };
}

/** A matching line as shown: trimmed, and windowed around the match when long. */
function showLine(line: string, at: number): string {
  const t = line.trimEnd();
  if (t.length <= MAX_MATCH_LINE_CHARS) return t.trimStart();
  const from = Math.max(0, at - MATCH_CONTEXT_CHARS);
  const slice = t.slice(from, from + MAX_MATCH_LINE_CHARS);
  return `${from > 0 ? '…' : ''}${slice}${from + MAX_MATCH_LINE_CHARS < t.length ? '…' : ''}`;
}

interface Scan {
  matches: string[];
  searched: number;
  skippedLarge: number;
  skippedBinary: number;
  /** Listed files that are symlinks to something outside the workspace (list_files shows them; they are not read). */
  skippedOutside: number;
  /** Files whose search was cut at {@link SearchLimits.fileMs}. */
  slowFiles: number;
  /** Lines too long for the regex to match in bounded time. */
  skippedLines: number;
  /** The search ran out of {@link SearchLimits.totalMs}. */
  outOfTime: boolean;
  readonly limits: SearchLimits;
  readonly deadline: number;
  /** When matching last yielded to the event loop. */
  sliceStart: number;
}

/** Thrown out of a scan when the user stops the turn. */
class Stopped extends Error {}

/** Whether matching has used up its slice and should yield to the event loop before the next line. */
function sliceUsed(scan: Scan): boolean {
  return scan.limits.now() - scan.sliceStart >= scan.limits.sliceMs;
}

/** Let the event loop run (Stop, the host's other work), then start a new slice. */
async function yieldTurn(scan: Scan): Promise<void> {
  await new Promise<void>((r) => setImmediate(r));
  scan.sliceStart = scan.limits.now();
}

/** Before each line: stop on abort; false (noted) once the file or the search is out of time. */
function mayGoOn(scan: Scan, fileStart: number, signal: AbortSignal | undefined): boolean {
  if (signal?.aborted) throw new Stopped();
  const t = scan.limits.now();
  if (t >= scan.deadline) scan.outOfTime = true;
  else if (t - fileStart >= scan.limits.fileMs) scan.slowFiles++;
  else return true;
  return false;
}

/** The stat of a listed file; undefined (counted) for a symlink whose target is outside the workspace. */
async function statListed(file: string, ctx: ToolContext, scan: Scan): Promise<FileStat | undefined> {
  try {
    return await ctx.workspace.stat(file);
  } catch (e) {
    if (!(e instanceof WorkspaceError) || e.code !== 'outside-workspace') throw e;
    scan.skippedOutside++;
    return undefined;
  }
}

async function scanFile(file: string, match: LineMatcher, ctx: ToolContext, scan: Scan): Promise<void> {
  const st = await statListed(file, ctx, scan);
  if (!st || st.type !== 'file') return;
  if (st.size > MAX_SEARCH_FILE_BYTES) {
    scan.skippedLarge++;
    return;
  }
  const bytes = await ctx.workspace.readFile(file);
  if (isBinary(bytes)) {
    scan.skippedBinary++;
    return;
  }
  scan.searched++;
  const lines = decodeText(bytes).split('\n');
  const fileStart = scan.limits.now();
  for (let i = 0; i < lines.length && scan.matches.length <= MAX_SEARCH_MATCHES; i++) {
    // An await only when the slice is used up: one per line would cost a microtask per line.
    if (sliceUsed(scan)) await yieldTurn(scan);
    if (!mayGoOn(scan, fileStart, ctx.signal)) return;
    if (!match.fits(lines[i])) {
      scan.skippedLines++;
      continue;
    }
    const at = match.indexIn(lines[i]);
    if (at >= 0) scan.matches.push(`${file}:${i + 1}: ${showLine(lines[i], at)}`);
  }
}

function notes(scan: Scan, listingCut: boolean): string[] {
  const out: string[] = [];
  if (scan.matches.length > MAX_SEARCH_MATCHES)
    out.push(`Showing the first ${MAX_SEARCH_MATCHES} matches; narrow the search with path or a more specific query.`);
  if (listingCut) out.push(`Only the first ${plural(MAX_SEARCH_FILES, 'file')} were searched; pass a narrower path.`);
  if (scan.skippedLarge)
    out.push(`Skipped ${plural(scan.skippedLarge, 'file')} over ${MAX_SEARCH_FILE_BYTES / 1_000_000} MB.`);
  if (scan.skippedBinary) out.push(`Skipped ${plural(scan.skippedBinary, 'binary file')}.`);
  if (scan.skippedOutside)
    out.push(`Skipped ${plural(scan.skippedOutside, 'symlink')} pointing outside the workspace.`);
  if (scan.skippedLines) {
    out.push(`Skipped ${plural(scan.skippedLines, 'line')} too long for this regex; use a simpler one or a literal.`);
  }
  if (scan.slowFiles) {
    const part = `Searched only part of ${plural(scan.slowFiles, 'file')} (${scan.limits.fileMs / 1000} s per file)`;
    out.push(`${part}; use a simpler query or a narrower path.`);
  }
  if (scan.outOfTime) {
    out.push(`Stopped after ${scan.limits.totalMs / 1000} s; the matches so far are shown. Pass a narrower path.`);
  }
  return out;
}

/** The search tool with its time limits (the tool uses {@link SEARCH_LIMITS}). */
export async function runSearch(
  input: SearchInput,
  ctx: ToolContext,
  limits: SearchLimits = SEARCH_LIMITS,
): Promise<ToolResult> {
  const where = displayPath(input.path);
  let match: LineMatcher;
  try {
    match = makeMatcher(input.query, input.regex ?? false);
  } catch (e) {
    if (!(e instanceof PatternError)) throw e;
    const why = `invalid regular expression ${JSON.stringify(input.query)}: ${e.message}`;
    return fail(`${why}. Set regex to false to search for the literal text.`);
  }
  const st = await ctx.workspace.stat(where);
  if (!st) return fail(`not found: ${where}`);
  let files: readonly string[] = [where];
  let listingCut = false;
  if (st.type === 'directory') {
    const listing = await ctx.workspace.list(where, { ignore: DEFAULT_IGNORE, limit: MAX_SEARCH_FILES });
    files = listing.files;
    listingCut = listing.truncated;
  }
  const start = limits.now();
  const scan: Scan = {
    matches: [],
    searched: 0,
    skippedLarge: 0,
    skippedBinary: 0,
    skippedOutside: 0,
    slowFiles: 0,
    skippedLines: 0,
    outOfTime: false,
    limits,
    deadline: start + limits.totalMs,
    sliceStart: start,
  };
  const cancelled = fail('cancelled: the user stopped this turn.');
  for (const file of files) {
    if (ctx.signal?.aborted) return cancelled;
    if (scan.matches.length > MAX_SEARCH_MATCHES || scan.outOfTime) break;
    try {
      await scanFile(file, match, ctx, scan);
    } catch (e) {
      if (e instanceof Stopped) return cancelled;
      throw e;
    }
  }
  const extra = notes(scan, listingCut);
  if (!scan.matches.length) {
    const searched = plural(scan.searched, 'file');
    const head = `No matches for ${JSON.stringify(input.query)} in ${where} (searched ${searched}).`;
    return ok([head, ...extra].join(' '));
  }
  const shown = scan.matches.slice(0, MAX_SEARCH_MATCHES).join('\n');
  return ok(extra.length ? `${shown}\n\n[${extra.join(' ')}]` : shown);
}

export const searchTool: ToolSpec<SearchInput> = {
  name: 'search',
  description:
    'Search file contents in the workspace. Returns matching lines as `path:line: text`. The query is literal ' +
    'text unless regex is true (RE2 syntax: JavaScript syntax without lookaround or backreferences). ' +
    'Smart case: a query with no uppercase letters ignores case. ' +
    'Skips binary files, .git, node_modules and .trimline. ' +
    `At most ${MAX_SEARCH_MATCHES} matches.`,
  schema,
  requiresTrust: false,
  run: (input, ctx) => runSearch(input, ctx),
};
