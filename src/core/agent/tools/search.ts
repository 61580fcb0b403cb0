/**
 * search: lines matching a literal string (default) or a JavaScript regular
 * expression, as `file:line: text`. Smart case: a query without uppercase
 * letters matches case-insensitively. Binary files, files over
 * MAX_SEARCH_FILE_BYTES and the default-ignored directories are skipped.
 */
import { WorkspaceError, type FileStat } from '../workspace';
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

export interface SearchInput {
  query: string;
  path?: string;
  regex?: boolean;
}

const schema: ObjectSchema = {
  type: 'object',
  properties: {
    query: { type: 'string', description: 'Text to find (literal unless regex is true). All-lowercase queries match case-insensitively.', minLength: 1 },
    path: { type: 'string', description: 'File or directory to search, relative to the workspace root. Default: the whole workspace.' },
    regex: { type: 'boolean', description: 'Treat query as a JavaScript regular expression. Default false.' },
  },
  required: ['query'],
  additionalProperties: false,
};

/** The matcher for a query: the index of the first match in a line, or -1. */
export function makeMatcher(query: string, regex: boolean): (line: string) => number {
  const ignoreCase = query === query.toLowerCase();
  if (regex) {
    const re = new RegExp(query, ignoreCase ? 'i' : '');
    return (line) => {
      const m = re.exec(line);
      return m ? m.index : -1;
    };
  }
  const needle = ignoreCase ? query.toLowerCase() : query;
  return (line) => (ignoreCase ? line.toLowerCase() : line).indexOf(needle);
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

async function scanFile(file: string, match: (line: string) => number, ctx: ToolContext, scan: Scan): Promise<void> {
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
  for (let i = 0; i < lines.length && scan.matches.length <= MAX_SEARCH_MATCHES; i++) {
    const at = match(lines[i]);
    if (at >= 0) scan.matches.push(`${file}:${i + 1}: ${showLine(lines[i], at)}`);
  }
}

function notes(scan: Scan, listingCut: boolean): string[] {
  const out: string[] = [];
  if (scan.matches.length > MAX_SEARCH_MATCHES) out.push(`Showing the first ${MAX_SEARCH_MATCHES} matches; narrow the search with path or a more specific query.`);
  if (listingCut) out.push(`Only the first ${plural(MAX_SEARCH_FILES, 'file')} were searched; pass a narrower path.`);
  if (scan.skippedLarge) out.push(`Skipped ${plural(scan.skippedLarge, 'file')} over ${MAX_SEARCH_FILE_BYTES / 1_000_000} MB.`);
  if (scan.skippedBinary) out.push(`Skipped ${plural(scan.skippedBinary, 'binary file')}.`);
  if (scan.skippedOutside) out.push(`Skipped ${plural(scan.skippedOutside, 'symlink')} pointing outside the workspace.`);
  return out;
}

async function run(input: SearchInput, ctx: ToolContext): Promise<ToolResult> {
  const where = displayPath(input.path);
  let match: (line: string) => number;
  try {
    match = makeMatcher(input.query, input.regex ?? false);
  } catch (e) {
    return fail(`invalid regular expression ${JSON.stringify(input.query)}: ${e instanceof Error ? e.message : String(e)}. Set regex to false to search for the literal text.`);
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
  const scan: Scan = { matches: [], searched: 0, skippedLarge: 0, skippedBinary: 0, skippedOutside: 0 };
  for (const file of files) {
    if (ctx.signal?.aborted) return fail('cancelled: the user stopped this turn.');
    if (scan.matches.length > MAX_SEARCH_MATCHES) break;
    await scanFile(file, match, ctx, scan);
  }
  const extra = notes(scan, listingCut);
  if (!scan.matches.length) {
    const head = `No matches for ${JSON.stringify(input.query)} in ${where} (searched ${plural(scan.searched, 'file')}).`;
    return ok([head, ...extra].join(' '));
  }
  const shown = scan.matches.slice(0, MAX_SEARCH_MATCHES).join('\n');
  return ok(extra.length ? `${shown}\n\n[${extra.join(' ')}]` : shown);
}

export const searchTool: ToolSpec<SearchInput> = {
  name: 'search',
  description:
    'Search file contents in the workspace. Returns matching lines as `path:line: text`. The query is literal text unless regex is true ' +
    '(JavaScript syntax). Smart case: a query with no uppercase letters ignores case. Skips binary files, .git, node_modules and .trimline. ' +
    `At most ${MAX_SEARCH_MATCHES} matches.`,
  schema,
  requiresTrust: false,
  run,
};
