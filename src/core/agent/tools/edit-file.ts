/**
 * edit_file: replace one exact, unique occurrence of old_text with new_text.
 *
 * Zero or several matches are errors with a hint (line numbers of the matches,
 * or where a whitespace-insensitive match is). In a CRLF file, LF line breaks
 * in old_text/new_text are taken as CRLF. Files that are not valid UTF-8 are
 * refused rather than silently re-encoded.
 */
import { WorkspaceError } from '../workspace';
import type { ObjectSchema } from './schema';
import { decodeStrict, isBinary, lineAt, numberLines, plural, splitLines } from './text';
import { fail, ok, type ToolContext, type ToolResult, type ToolSpec } from './types';

/** Lines of context shown around the edited region in the result. */
const SNIPPET_CONTEXT_LINES = 2;
/** Lines of the edited region shown at most (the model wrote them; echoing more is waste). */
const SNIPPET_MAX_LINES = 20;
/** Line numbers listed when old_text matches several times. */
const MAX_LISTED_MATCHES = 10;

export interface EditFileInput {
  path: string;
  old_text: string;
  new_text: string;
}

const schema: ObjectSchema = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'File to edit, relative to the workspace root.', minLength: 1 },
    old_text: {
      type: 'string',
      description:
        'Exact text to replace, including whitespace and indentation (without read_file line numbers). Must ' +
        'occur exactly once.',
      minLength: 1,
    },
    new_text: { type: 'string', description: 'Replacement text (may be empty to delete old_text).' },
  },
  required: ['path', 'old_text', 'new_text'],
  additionalProperties: false,
};

/** Offsets of every occurrence of `needle` (overlapping ones too: they make the match ambiguous). */
export function occurrences(haystack: string, needle: string): number[] {
  const out: number[] = [];
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + 1)) out.push(i);
  return out;
}

/** In a file with CRLF line breaks, turn the LF breaks of a model-written text into CRLF. */
function matchLineEndings(content: string, text: string): string {
  if (!content.includes('\r\n') || text.includes('\r')) return text;
  return text.replace(/\n/g, '\r\n');
}

/** The error for zero matches, with the best hint we can give. */
function notFound(path: string, content: string, oldText: string): ToolResult {
  let hint =
    'Copy old_text exactly as read_file shows it (without the line-number prefix), or read the file again if it ' +
    'may have changed.';
  const squeezed = oldText.trim();
  if (squeezed && squeezed !== oldText) {
    const loose = occurrences(content, squeezed);
    if (loose.length)
      hint =
        `The text without its leading/trailing whitespace occurs at line ${lineAt(content, loose[0])}; check ` +
        'indentation and blank lines.';
  }
  return fail(`old_text not found in ${path}. ${hint}`);
}

/** Lines around the replaced region in the new content, numbered. */
function snippet(content: string, start: number, newText: string): string {
  const lines = splitLines(content);
  const first = lineAt(content, start);
  const last = first + Math.max(0, splitLines(newText).length - 1);
  const from = Math.max(1, first - SNIPPET_CONTEXT_LINES);
  const to = Math.min(lines.length, last + SNIPPET_CONTEXT_LINES, from + SNIPPET_MAX_LINES - 1);
  if (to < from) return '';
  return numberLines(lines.slice(from - 1, to), from).join('\n');
}

async function run(input: EditFileInput, ctx: ToolContext): Promise<ToolResult> {
  const st = await ctx.workspace.stat(input.path);
  if (!st) throw new WorkspaceError('not-found', `file not found: ${input.path}. To create a file, use write_file.`);
  if (st.type !== 'file') return fail(`${input.path} is not a file.`);
  const bytes = await ctx.workspace.readFile(input.path);
  if (isBinary(bytes)) return fail(`${input.path} is a binary file; edit_file edits text only.`);
  const content = decodeStrict(bytes);
  if (content === undefined)
    return fail(
      `${input.path} is not valid UTF-8; editing it here would corrupt it. Use run_command with a suitable tool ` +
        'instead.',
    );
  const oldText = matchLineEndings(content, input.old_text);
  const newText = matchLineEndings(content, input.new_text);
  if (oldText === newText) return fail('old_text and new_text are identical; nothing to change.');
  const found = occurrences(content, oldText);
  if (!found.length) return notFound(input.path, content, input.old_text);
  if (found.length > 1) {
    const lines = found.slice(0, MAX_LISTED_MATCHES).map((i) => lineAt(content, i));
    const more = found.length > MAX_LISTED_MATCHES ? ', …' : '';
    return fail(
      `old_text found ${found.length} times in ${input.path} (lines ${lines.join(', ')}${more}). ` +
        'Include more surrounding lines in old_text so it matches exactly once.',
    );
  }
  const at = found[0];
  const updated = content.slice(0, at) + newText + content.slice(at + oldText.length);
  await ctx.workspace.writeFile(input.path, updated);
  const oldLines = splitLines(oldText).length;
  const newLines = splitLines(newText).length;
  const first = lineAt(content, at);
  const view = snippet(updated, at, newText);
  return ok(
    `Edited ${input.path}: replaced ${plural(oldLines, 'line')} at line ${first} with ${plural(newLines, 'line')}.` +
      (view ? `\n${view}` : ''),
  );
}

export const editFileTool: ToolSpec<EditFileInput> = {
  name: 'edit_file',
  description:
    'Edit a file by replacing one exact occurrence of old_text with new_text. old_text must match the file exactly ' +
    '(whitespace and indentation included, no line-number prefixes) and occur exactly once; otherwise the edit fails ' +
    'and nothing is written. Include enough surrounding lines to make it unique. Use write_file to create files.',
  schema,
  requiresTrust: true,
  run,
};
