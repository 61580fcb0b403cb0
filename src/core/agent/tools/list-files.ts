/**
 * list_files: files under a directory, optionally filtered by a glob, one
 * workspace-relative path per line, sorted. `.git` and `node_modules` are
 * skipped (list them by passing them as `path`). Capped at MAX_LIST_FILES.
 */
import { compileGlob } from './glob';
import type { ObjectSchema } from './schema';
import { DEFAULT_IGNORE, displayPath, plural } from './text';
import { fail, ok, type ToolContext, type ToolResult, type ToolSpec } from './types';

/** Paths per listing (~10k tokens): enough to orient, small enough to keep; narrow with path or pattern. */
export const MAX_LIST_FILES = 1_000;

export interface ListFilesInput {
  path?: string;
  pattern?: string;
}

const schema: ObjectSchema = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'Directory to list, relative to the workspace root. Default: the root.' },
    pattern: {
      type: 'string',
      description:
        'Glob relative to path: * (within a directory), ** (any depth), ?, {a,b}, [abc]. Example: **/*.ts. ' +
        'Default: all files.',
    },
  },
  required: [],
  additionalProperties: false,
};

/** The directories the walk skips, unless the listed path is inside one of them. */
function ignoreFor(dir: string): string[] {
  const segments = new Set(dir.split(/[\\/]/));
  return DEFAULT_IGNORE.filter((name) => !segments.has(name));
}

async function run(input: ListFilesInput, ctx: ToolContext): Promise<ToolResult> {
  const dir = displayPath(input.path);
  const pattern = input.pattern?.trim() || undefined;
  if (pattern) {
    try {
      compileGlob(pattern);
    } catch (e) {
      return fail(`invalid pattern ${JSON.stringify(pattern)}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  const st = await ctx.workspace.stat(dir);
  if (!st) return fail(`directory not found: ${dir}`);
  if (st.type !== 'directory') return fail(`${dir} is a file, not a directory; use read_file to read it.`);
  const { files, truncated } = await ctx.workspace.list(dir, {
    pattern,
    ignore: ignoreFor(dir),
    limit: MAX_LIST_FILES,
  });
  if (!files.length) {
    let text = pattern ? `No files match ${JSON.stringify(pattern)} under ${dir}.` : `No files under ${dir}.`;
    if (pattern && !pattern.includes('/') && !pattern.includes('**')) {
      text +=
        ` Note: ${JSON.stringify(pattern)} matches only directly in ${dir}; use ${JSON.stringify(`**/${pattern}`)} ` +
        'to include subdirectories.';
    }
    return ok(text);
  }
  let text = files.join('\n');
  if (truncated) {
    text +=
      `\n\n[Listing cut at ${plural(files.length, 'file')}. Narrow it with a deeper path or a more specific ` +
      'pattern.]';
  }
  return ok(text);
}

export const listFilesTool: ToolSpec<ListFilesInput> = {
  name: 'list_files',
  description:
    'List files in the workspace (recursively), optionally filtered by a glob pattern relative to path. ' +
    'Returns workspace-relative paths, one per line, sorted. .git, node_modules and .trimline are skipped unless ' +
    'path points into them. ' +
    `At most ${MAX_LIST_FILES.toLocaleString('en-US')} paths; a note says when the listing was cut.`,
  schema,
  requiresTrust: false,
  run,
};
