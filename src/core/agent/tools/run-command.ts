/**
 * run_command: a shell command in the workspace root, after the user approves it.
 *
 * Output is stdout and stderr interleaved, ANSI escapes stripped, capped at
 * MAX_COMMAND_OUTPUT_BYTES (the first and last halves kept, with a note for the
 * middle), followed by `[exit code N]`. A command that exits non-zero is still a
 * successful tool call (the exit code is information); timeouts, cancellation,
 * denial and unavailability are is_error results.
 */
import type { ExecResult } from '../workspace';
import type { ObjectSchema } from './schema';
import { fail, ok, type ToolContext, type ToolResult, type ToolSpec } from './types';

/** Default timeout: long enough for a test suite or a build, short enough not to stall a turn unnoticed. */
export const DEFAULT_COMMAND_TIMEOUT_S = 120;
/** Longest timeout the model may ask for; longer jobs belong in a terminal the user watches. */
export const MAX_COMMAND_TIMEOUT_S = 600;
/** Output kept (~7.5k tokens): test failures and build errors are at the head or the tail. */
export const MAX_COMMAND_OUTPUT_BYTES = 30_000;

const ANSI_ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

export interface RunCommandInput {
  command: string;
  timeout_s?: number;
}

const schema: ObjectSchema = {
  type: 'object',
  properties: {
    command: {
      type: 'string',
      description: 'Shell command, run in the workspace root. The user approves each command.',
      minLength: 1,
    },
    timeout_s: {
      type: 'integer',
      description:
        `Timeout in seconds (default ${DEFAULT_COMMAND_TIMEOUT_S}, max ${MAX_COMMAND_TIMEOUT_S}). The process is ` +
        'killed when it expires.',
      minimum: 1,
      maximum: MAX_COMMAND_TIMEOUT_S,
    },
  },
  required: ['command'],
  additionalProperties: false,
};

/** Remove terminal color and cursor codes: they cost tokens and mean nothing to the model. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI_ESCAPES, '');
}

/** The tool result text for a finished (or stopped) command. */
export function formatExecResult(r: ExecResult, timeoutS: number): string {
  let body = stripAnsi(r.head);
  if (r.omittedBytes > 0) {
    body +=
      `\n[… ${r.omittedBytes.toLocaleString('en-US')} bytes of output omitted (output capped at ` +
      `${MAX_COMMAND_OUTPUT_BYTES.toLocaleString('en-US')} bytes: first and last parts kept); redirect to a file ` +
      'and search it to see everything …]\n';
    body += stripAnsi(r.tail);
  }
  if (!body.trim()) body = '(no output)\n';
  else if (!body.endsWith('\n')) body += '\n';
  if (r.timedOut)
    return (
      `${body}[timed out after ${timeoutS} s; the process was killed. Pass a larger timeout_s (max ` +
      `${MAX_COMMAND_TIMEOUT_S}) if it needs longer.]`
    );
  if (r.aborted) return `${body}[cancelled by the user; the process was killed]`;
  if (r.exitCode === null) return `${body}[killed by signal ${r.signal ?? 'unknown'}]`;
  return `${body}[exit code ${r.exitCode}]`;
}

async function run(input: RunCommandInput, ctx: ToolContext): Promise<ToolResult> {
  const exec = ctx.workspace.exec?.bind(ctx.workspace);
  if (!exec) return fail('run_command is not available here: this host cannot run shell commands.');
  const timeoutS = input.timeout_s ?? DEFAULT_COMMAND_TIMEOUT_S;
  const approved = await ctx.approve({
    tool: 'run_command',
    command: input.command,
    cwd: ctx.workspace.root,
    timeoutMs: timeoutS * 1000,
  });
  if (!approved) return fail('denied by user: the command was not run. Ask the user, or continue without it.');
  if (ctx.signal?.aborted) return fail('cancelled: the user stopped this turn.');
  const r = await exec(input.command, {
    timeoutMs: timeoutS * 1000,
    maxOutputBytes: MAX_COMMAND_OUTPUT_BYTES,
    signal: ctx.signal,
  });
  const text = formatExecResult(r, timeoutS);
  return r.timedOut || r.aborted ? fail(text) : ok(text);
}

export const runCommandTool: ToolSpec<RunCommandInput> = {
  name: 'run_command',
  description:
    'Run a shell command in the workspace root (non-interactive: stdin is closed). The user must approve each ' +
    'command. ' +
    `Returns stdout and stderr interleaved, capped at ${MAX_COMMAND_OUTPUT_BYTES.toLocaleString('en-US')} bytes ` +
    '(first and last parts kept), ' +
    `then the exit code. Default timeout ${DEFAULT_COMMAND_TIMEOUT_S} s.`,
  schema,
  requiresTrust: true,
  run,
};
