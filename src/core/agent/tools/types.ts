/** Contract between the agent loop and the tool executors. */
import type Anthropic from '@anthropic-ai/sdk';
import type { Session } from '../../session';
import type { Workspace } from '../workspace';
import type { ObjectSchema } from './schema';

/** What the user is asked to approve before a command runs. */
export interface ApprovalRequest {
  readonly tool: 'run_command';
  readonly command: string;
  /** Absolute directory the command runs in (the workspace root). */
  readonly cwd: string;
  readonly timeoutMs: number;
}

export interface ToolContext {
  readonly workspace: Workspace;
  readonly session: Session;
  /** Index of the model call whose tool_use blocks are being executed. */
  readonly callIndex: number;
  /** Ask the user; resolves true to allow. Only run_command asks. */
  readonly approve: (request: ApprovalRequest) => Promise<boolean>;
  /** Aborted when the user stops the turn. */
  readonly signal?: AbortSignal;
  /** Token estimate of a text (trim_tool_result records tokens before/after). */
  readonly tokens: (text: string) => number;
  /** Tools from outside the registry (MCP servers), executed by name. */
  readonly external?: ExternalTools;
}

/** A part of a rich tool result (an MCP tool may answer with images). */
export type ToolResultPart = Anthropic.TextBlockParam | Anthropic.ImageBlockParam;

/** The tool_result content for one call. */
export interface ToolResult {
  /**
   * The result as text (images as `[image]`): what logs and the CLI show; the model's content unless `blocks` is set.
   */
  readonly content: string;
  readonly is_error: boolean;
  /** Rich content sent to the model instead of `content` (text and image blocks). */
  readonly blocks?: readonly ToolResultPart[];
}

/**
 * A source of tools beyond the built-in ones (MCP servers). The loop offers its
 * definitions after the built-in tools and hands it calls to names it `has`.
 */
export interface ExternalTools {
  /**
   * The definitions to offer now. `cacheCold`: the prompt cache has expired, so
   * changes the user deferred to save the cache may be applied for free.
   */
  definitions(opts: { readonly cacheCold: boolean }): ToolDefinition[];
  has(name: string): boolean;
  /** Run one call; never throws (failures are is_error results naming the server). */
  execute(name: string, input: unknown, ctx: ToolContext): Promise<ToolResult>;
}

/** One tool: its API definition, its policy and its executor. */
export interface ToolSpec<I> {
  readonly name: string;
  readonly description: string;
  readonly schema: ObjectSchema;
  /** Writes files or runs commands: refused in an untrusted workspace. */
  readonly requiresTrust: boolean;
  /** Runs with input already validated against `schema`. May throw: the registry turns errors into is_error results. */
  run(input: I, ctx: ToolContext): Promise<ToolResult>;
}

export type ToolDefinition = Anthropic.Tool;

/** Successful result. */
export function ok(content: string): ToolResult {
  return { content, is_error: false };
}

/** Error result (is_error: true) for the model to read and act on. */
export function fail(content: string): ToolResult {
  return { content, is_error: true };
}
