/**
 * MCP servers as a tool source of the agent (`ExternalTools`).
 *
 * - Offers each server's tools as `mcp__<server>__<tool>` with the server's own
 *   description and schema, after the built-in tools, in server then tool order.
 * - Runs a call only after approval: once, or "always for this server in this
 *   session" (remembered here); never in an untrusted workspace (Restricted Mode).
 * - Failures (start, timeout, crash) become is_error results naming the server.
 * - Switches: the user may switch a server or one tool off (or on again). Since
 *   a change of `tools` rewrites the whole prompt cache, a switch is either
 *   applied now or deferred until the cache has expired (`definitions({ cacheCold })`).
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { fail, type ExternalTools, type ToolContext, type ToolDefinition, type ToolResult } from '../agent/tools/types';
import type { McpServerConfig } from './config';
import { McpCallError, McpConnection } from './connection';
import { convertToolResult } from './convert';
import { mcpToolName } from './naming';

/** What the user is asked before an MCP tool runs. */
export interface McpApprovalRequest {
  readonly server: string;
  readonly tool: string;
  /** The name the model used (`mcp__server__tool`). */
  readonly apiName: string;
  readonly input: unknown;
}

/** once: this call; server: every call to this server for the rest of the session; deny: not this call. */
export type McpApproval = 'once' | 'server' | 'deny';

export interface McpToolSourceOptions {
  /** Asked before a call to a server not yet approved for the session. Default: deny. */
  readonly approve?: (r: McpApprovalRequest) => Promise<McpApproval>;
  /** Lines for the Trimline log (servers' stderr, connections, failures), secrets redacted. */
  readonly log?: (line: string) => void;
  /** The offered definitions may have changed (a server's list, a switch applied). */
  readonly onChange?: () => void;
}

/** A switch of a server (tool undefined) or of one tool. */
export interface McpSwitch {
  readonly server: string;
  readonly tool?: string;
  readonly enabled: boolean;
}

/** One offered tool, resolved to its server. */
export interface McpEntry {
  readonly server: McpConnection;
  readonly tool: Tool;
  readonly apiName: string;
}

export const RESTRICTED_TEXT =
  'MCP tools do not run in Restricted Mode: this workspace is not trusted (VS Code Workspace Trust). Tell the ' +
  'user; they can trust the workspace with the "Manage Workspace Trust" command.';

const DENY = async (): Promise<McpApproval> => 'deny';

/** The API definition of an MCP tool: its own description and input schema, under its offered name. */
export function toolDefinitionOf(apiName: string, tool: Tool): ToolDefinition {
  const description = tool.description ?? tool.title;
  return {
    name: apiName,
    ...(description ? { description } : {}),
    input_schema: structuredClone(tool.inputSchema) as ToolDefinition['input_schema'],
  };
}

/** Key of a switch target. */
const key = (server: string, tool?: string): string => (tool === undefined ? server : `${server}\u0000${tool}`);

export class McpToolSource implements ExternalTools {
  readonly connections: readonly McpConnection[];
  private readonly approve: (r: McpApprovalRequest) => Promise<McpApproval>;
  private readonly approvedServers = new Set<string>();
  private readonly off = new Set<string>();
  private pending: McpSwitch[] = [];
  private byName = new Map<string, McpEntry>();

  constructor(
    servers: readonly McpServerConfig[],
    private readonly opts: McpToolSourceOptions = {},
  ) {
    this.approve = opts.approve ?? DENY;
    const log = opts.log ?? (() => {});
    this.connections = servers.map((s) => new McpConnection(s, { log, onToolsChanged: () => this.changed() }));
  }

  private changed(): void {
    this.reindex();
    this.opts.onChange?.();
  }

  /** Start every server not running yet and list its tools; failures are logged and leave that server without tools. */
  async start(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.connect().catch(() => undefined)));
    this.reindex();
  }

  /** Every listed tool (switched off or not), in offered order. */
  entries(): McpEntry[] {
    return this.connections.flatMap((server) =>
      server.tools.map((tool) => ({ server, tool, apiName: mcpToolName(server.config.name, tool.name) })),
    );
  }

  private reindex(): void {
    this.byName = new Map(this.entries().map((e) => [e.apiName, e]));
  }

  /** Whether a server or tool is switched on now (pending switches not counted). */
  isEnabled(server: string, tool?: string): boolean {
    return !this.off.has(key(server)) && (tool === undefined || !this.off.has(key(server, tool)));
  }

  /** Switches waiting for the cache to expire (or for `applyPending`). */
  pendingSwitches(): readonly McpSwitch[] {
    return this.pending;
  }

  /** Switch a server or tool; `now`: apply at once (rewrites the prompt cache), else at the cache's expiry. */
  setEnabled(s: McpSwitch, now: boolean): void {
    this.pending = this.pending.filter((p) => key(p.server, p.tool) !== key(s.server, s.tool));
    if (now) this.apply(s);
    // Deferred only when it changes something: the target's own switch is not already where it is asked to be.
    else if (this.off.has(key(s.server, s.tool)) === s.enabled) this.pending.push(s);
    this.opts.onChange?.();
  }

  /** Apply every deferred switch now (the user confirmed the cache rewrite). */
  applyPending(): void {
    for (const s of this.pending.splice(0)) this.apply(s);
    this.opts.onChange?.();
  }

  private apply(s: McpSwitch): void {
    if (s.enabled) this.off.delete(key(s.server, s.tool));
    else this.off.add(key(s.server, s.tool));
  }

  definitions(opts: { readonly cacheCold: boolean }): ToolDefinition[] {
    if (opts.cacheCold && this.pending.length) {
      for (const s of this.pending.splice(0)) this.apply(s);
    }
    return this.entries()
      .filter((e) => this.isEnabled(e.server.config.name, e.tool.name))
      .map((e) => toolDefinitionOf(e.apiName, e.tool));
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  async execute(name: string, input: unknown, ctx: ToolContext): Promise<ToolResult> {
    const entry = this.byName.get(name);
    if (!entry) return fail(`unknown tool ${JSON.stringify(name)}: no connected MCP server offers it now.`);
    const server = entry.server.config.name;
    if (!ctx.workspace.trusted) return fail(RESTRICTED_TEXT);
    if (!this.isEnabled(server, entry.tool.name))
      return fail(`${name} is switched off for this session by the user; do not call it.`);
    const args =
      typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
    if (!this.approvedServers.has(server)) {
      const answer = await this.approve({ server, tool: entry.tool.name, apiName: name, input });
      if (answer === 'deny') return fail(`denied by user: ${name} was not run. Ask the user, or continue without it.`);
      if (answer === 'server') this.approvedServers.add(server);
    }
    if (ctx.signal?.aborted) return fail('cancelled: the user stopped this turn.');
    try {
      const result = await entry.server.callTool(entry.tool.name, args, ctx.signal);
      return convertToolResult(result, entry.server.config.secrets);
    } catch (e) {
      return fail(
        e instanceof McpCallError
          ? e.message
          : `MCP server "${server}" failed: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
  }

  /** A new chat session: approvals "for this session" and switches are forgotten; the servers keep running. */
  newSession(): void {
    this.approvedServers.clear();
    this.off.clear();
    this.pending = [];
    this.opts.onChange?.();
  }

  /** Stop every server. */
  async close(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.close()));
  }
}
