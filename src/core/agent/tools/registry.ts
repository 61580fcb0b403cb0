/**
 * The tool registry: fixed order of definitions, and `executeTool`, which
 * validates input, enforces Workspace Trust, honors the abort signal and never
 * throws (every failure becomes an is_error result the model can read).
 */
import { WorkspaceError } from '../workspace';
import { editFileTool } from './edit-file';
import { listFilesTool } from './list-files';
import { readFileTool } from './read-file';
import { runCommandTool } from './run-command';
import { schemaSignature, validateInput } from './schema';
import { searchTool } from './search';
import { trimToolResultTool } from './trim-tool-result';
import { fail, type ToolContext, type ToolDefinition, type ToolResult, type ToolSpec } from './types';
import { writeFileTool } from './write-file';

/** Every tool, in the order the model sees them. Changing it changes the cached prompt prefix. */
const TOOLS = [
  readFileTool,
  listFilesTool,
  searchTool,
  editFileTool,
  writeFileTool,
  runCommandTool,
  trimToolResultTool,
] as const;

/** The tool names, in definition order (part of the product's contract). */
export const TOOL_NAMES = [
  'read_file',
  'list_files',
  'search',
  'edit_file',
  'write_file',
  'run_command',
  'trim_tool_result',
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

/** The spec of a tool, type-erased: input has been validated against its schema before `run`. */
type AnySpec = ToolSpec<never>;
const BY_NAME: ReadonlyMap<string, AnySpec> = new Map(TOOLS.map((t): [string, AnySpec] => [t.name, t as AnySpec]));

export function isToolName(name: string): name is ToolName {
  return BY_NAME.has(name);
}

/**
 * Tool definitions for the Messages API, in a fixed order with stable key order. Fresh copies: callers may add
 * cache_control.
 */
export function toolDefinitions(): ToolDefinition[] {
  return TOOLS.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: {
      type: 'object',
      properties: structuredClone(t.schema.properties),
      required: [...t.schema.required],
      additionalProperties: t.schema.additionalProperties,
    },
  }));
}

const CANCELLED = 'cancelled: the user stopped this turn.';

/**
 * The message of a thrown error, prefixed with the tool name unless it is a WorkspaceError already meant for the model.
 */
function errorText(name: string, e: unknown): string {
  if (e instanceof WorkspaceError) return `${name}: ${e.message}`;
  const msg = e instanceof Error ? e.message : String(e);
  return `${name} failed: ${msg}`;
}

/** Resolves with a cancellation result when `signal` aborts (never, without a signal). */
function whenAborted(signal: AbortSignal | undefined): { promise: Promise<ToolResult>; dispose: () => void } {
  if (!signal) return { promise: new Promise<ToolResult>(() => {}), dispose: () => {} };
  let onAbort = (): void => {};
  const promise = new Promise<ToolResult>((resolve) => {
    onAbort = () => resolve(fail(CANCELLED));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) };
}

function untrustedText(name: string): string {
  return (
    `${name} is unavailable: this workspace is not trusted (VS Code Workspace Trust, restricted mode), so the ` +
    'agent may not ' +
    'edit files or run commands. Read-only tools (read_file, list_files, search) still work. Tell the user; they ' +
    'can trust the workspace with the "Manage Workspace Trust" command.'
  );
}

/**
 * Start a tool call and await it, or a cancellation result when `signal` aborts first; a throw becomes an is_error
 * result.
 */
async function settle(
  name: string,
  start: () => Promise<ToolResult>,
  signal: AbortSignal | undefined,
): Promise<ToolResult> {
  const aborted = whenAborted(signal);
  try {
    const running = start();
    // After a cancellation nobody awaits `running`; a late failure must not become an unhandled rejection.
    running.catch(() => {});
    return await Promise.race([running, aborted.promise]);
  } catch (e) {
    return fail(errorText(name, e));
  } finally {
    aborted.dispose();
  }
}

/** Run one tool call. Never throws. */
export async function executeTool(name: string, input: unknown, ctx: ToolContext): Promise<ToolResult> {
  const spec = BY_NAME.get(name);
  const external = ctx.external;
  if (!spec && external?.has(name)) {
    // An MCP tool: the source validates, asks and never throws; cancellation works as for the built-in ones.
    if (ctx.signal?.aborted) return fail(CANCELLED);
    return settle(name, () => external.execute(name, input, ctx), ctx.signal);
  }
  if (!spec) return fail(`unknown tool ${JSON.stringify(name)}. Available tools: ${TOOL_NAMES.join(', ')}.`);
  if (ctx.signal?.aborted) return fail(CANCELLED);
  if (spec.requiresTrust && !ctx.workspace.trusted) return fail(untrustedText(name));
  const checked = validateInput(spec.schema, input);
  if (!checked.ok) {
    return fail(`Invalid input for ${name}: ${checked.problems.join('; ')}. Expected ${schemaSignature(spec.schema)}.`);
  }
  return settle(name, () => spec.run(checked.value as never, ctx), ctx.signal);
}
