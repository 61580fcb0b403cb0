/**
 * read_file: a text file with numbered lines.
 *
 * Line format: the number right-aligned to the widest number shown, a tab, the
 * line (`  12\tconst x = 1;`). The prefix is not part of the file (edit_file's
 * old_text must not include it). Output is cut at MAX_READ_LINES lines or
 * MAX_READ_BYTES, whichever comes first, with a note naming the start_line to
 * continue from; single lines are cut at MAX_LINE_CHARS.
 */
import { WorkspaceError } from '../workspace';
import type { ObjectSchema } from './schema';
import { decodeText, isBinary, numberLines, splitLines } from './text';
import { fail, ok, type ToolContext, type ToolResult, type ToolSpec } from './types';

/** Lines per read: enough for most source files, small enough to keep one result well under the context budget. */
export const MAX_READ_LINES = 2_000;
/** Output bytes per read (~25k tokens): a minified or data file cannot flood the context. */
export const MAX_READ_BYTES = 100_000;
/** Characters per line shown: minified bundles have single lines of megabytes. */
export const MAX_LINE_CHARS = 2_000;
/** Files larger than this are refused outright (reading them whole would stall the host). */
export const MAX_READ_FILE_BYTES = 20_000_000;

export interface ReadFileInput {
  path: string;
  start_line?: number;
  end_line?: number;
}

const schema: ObjectSchema = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'File path, relative to the workspace root.', minLength: 1 },
    start_line: { type: 'integer', description: 'First line to show (1-based). Default 1.', minimum: 1 },
    end_line: {
      type: 'integer',
      description: 'Last line to show (inclusive). Default: end of file, within the size cap.',
      minimum: 1,
    },
  },
  required: ['path'],
  additionalProperties: false,
};

function cutLine(line: string): string {
  if (line.length <= MAX_LINE_CHARS) return line;
  return `${line.slice(0, MAX_LINE_CHARS)}… [line cut: ${line.length.toLocaleString('en-US')} chars]`;
}

/** Take lines from `lines` (already the requested range) until a cap is hit. */
function takeWithinCaps(lines: readonly string[], firstLine: number): { shown: string[]; cutBy?: string } {
  const shown: string[] = [];
  let bytes = 0;
  for (const raw of lines) {
    if (shown.length >= MAX_READ_LINES) return { shown, cutBy: `${MAX_READ_LINES.toLocaleString('en-US')} lines` };
    const line = cutLine(raw);
    // The line, its number, a tab and a newline.
    bytes += Buffer.byteLength(line) + String(firstLine + shown.length).length + 2;
    if (bytes > MAX_READ_BYTES && shown.length > 0) return { shown, cutBy: `${MAX_READ_BYTES / 1000} KB` };
    shown.push(line);
  }
  return { shown };
}

async function run(input: ReadFileInput, ctx: ToolContext): Promise<ToolResult> {
  const st = await ctx.workspace.stat(input.path);
  if (!st)
    throw new WorkspaceError(
      'not-found',
      `file not found: ${input.path}. Use list_files or search to find the right path.`,
    );
  if (st.type === 'directory') return fail(`${input.path} is a directory; use list_files to see its contents.`);
  if (st.size > MAX_READ_FILE_BYTES) {
    return fail(
      `${input.path} is too large to read (${st.size.toLocaleString('en-US')} bytes, limit ` +
        `${MAX_READ_FILE_BYTES.toLocaleString('en-US')}); use search, or run_command with head/tail/sed.`,
    );
  }
  const bytes = await ctx.workspace.readFile(input.path);
  if (isBinary(bytes))
    return fail(
      `${input.path} is a binary file (${bytes.length.toLocaleString('en-US')} bytes); read_file shows text only.`,
    );
  const lines = splitLines(decodeText(bytes));
  const total = lines.length;
  if (total === 0) return ok(`(${input.path} is empty)`);
  const start = input.start_line ?? 1;
  if (start > total) return fail(`start_line ${start} is past the end of ${input.path} (${total} lines).`);
  if (input.end_line !== undefined && input.end_line < start)
    return fail(`end_line ${input.end_line} is before start_line ${start}.`);
  const end = Math.min(input.end_line ?? total, total);
  const { shown, cutBy } = takeWithinCaps(lines.slice(start - 1, end), start);
  const last = start + shown.length - 1;
  let text = numberLines(shown, start).join('\n');
  if (cutBy) {
    text +=
      `\n\n[Output cut at ${cutBy}: showing lines ${start}-${last} of ${total}. To read the rest, call read_file ` +
      `with start_line=${last + 1}.]`;
  } else if (start > 1 || end < total) {
    text += `\n\n[Showing lines ${start}-${last} of ${total}.]`;
  }
  return ok(text);
}

export const readFileTool: ToolSpec<ReadFileInput> = {
  name: 'read_file',
  description:
    'Read a text file from the workspace. Lines come numbered: the line number, a tab, then the line exactly as ' +
    'in the file (the number and tab are not part of the file). Output is capped at ' +
    `${MAX_READ_LINES.toLocaleString('en-US')} lines or ${MAX_READ_BYTES / 1000} KB; ` +
    'a note at the end says how to read the rest. Use start_line/end_line to read part of a long file.',
  schema,
  requiresTrust: false,
  run,
};
