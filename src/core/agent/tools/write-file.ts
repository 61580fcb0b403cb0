/** write_file: create or overwrite a text file (parent directories are created). */
import type { ObjectSchema } from './schema';
import { plural, splitLines } from './text';
import { fail, ok, type ToolContext, type ToolResult, type ToolSpec } from './types';

export interface WriteFileInput {
  path: string;
  content: string;
}

const schema: ObjectSchema = {
  type: 'object',
  properties: {
    path: {
      type: 'string',
      description: 'File to write, relative to the workspace root. Parent directories are created.',
      minLength: 1,
    },
    content: { type: 'string', description: 'The complete new content of the file.' },
  },
  required: ['path', 'content'],
  additionalProperties: false,
};

async function run(input: WriteFileInput, ctx: ToolContext): Promise<ToolResult> {
  const st = await ctx.workspace.stat(input.path);
  if (st && st.type !== 'file') return fail(`${input.path} exists and is not a file (it is a ${st.type}).`);
  await ctx.workspace.writeFile(input.path, input.content);
  const size = Buffer.byteLength(input.content);
  const verb = st ? 'Overwrote' : 'Created';
  return ok(`${verb} ${input.path} (${plural(splitLines(input.content).length, 'line')}, ${plural(size, 'byte')}).`);
}

export const writeFileTool: ToolSpec<WriteFileInput> = {
  name: 'write_file',
  description:
    "Create a file, or replace a file's entire content. Parent directories are created. " +
    'Prefer edit_file for changes to an existing file: it is cheaper and cannot drop content by accident. ' +
    "Writes into .git or .trimline need the user's approval.",
  schema,
  requiresTrust: true,
  run,
};
