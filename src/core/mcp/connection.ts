/**
 * One MCP server, on the official SDK client: connected on first use, its
 * tools listed (and refreshed on `tools/list_changed`), its calls bounded by a
 * timeout. A server that exits, crashes or hangs is closed; the next use starts
 * it again. Stdio servers' stderr goes to the log, line by line, secrets redacted.
 *
 * HTTP servers: Streamable HTTP first; if that handshake fails, the SDK's SSE
 * transport (the fallback the SDK documents for servers of protocol 2024-11-05).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from './config';
import { redact } from './redact';

/** How Trimline introduces itself to servers. */
export const MCP_CLIENT_INFO = { name: 'trimline', version: '0.1.0' } as const;
/** Longest stderr line kept in the log (a server dumping a blob must not flood it). */
const MAX_LOG_LINE_CHARS = 2_000;
/**
 * The handshake and the first tools/list get at least this long, whatever the call
 * timeout: starting a server (`npx` may download it first) takes longer than one call.
 */
export const MIN_START_TIMEOUT_MS = 30_000;
/** Pages of tools/list read at most (a server that pages forever must not hang the start). */
const MAX_TOOL_PAGES = 50;

export type ConnectionState = 'idle' | 'connecting' | 'ready' | 'failed' | 'closed';

export interface ConnectionHooks {
  /** A line for the Trimline log (already redacted). */
  readonly log: (line: string) => void;
  /** The server's tool list changed (list_changed, or different after a restart). */
  readonly onToolsChanged: () => void;
}

/** Why a call failed, in words for the model (they name the server). */
export class McpCallError extends Error {
  constructor(
    message: string,
    readonly kind: 'start' | 'timeout' | 'closed' | 'protocol' | 'cancelled',
  ) {
    super(message);
  }
}

/** The message of anything thrown. */
function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export class McpConnection {
  private client?: Client;
  private connecting?: Promise<Client>;
  private listed: Tool[] = [];
  state: ConnectionState = 'idle';
  lastError?: string;

  constructor(
    readonly config: McpServerConfig,
    private readonly hooks: ConnectionHooks,
  ) {}

  private get startTimeoutMs(): number {
    return Math.max(this.config.timeoutMs, MIN_START_TIMEOUT_MS);
  }

  /** The tools listed last (empty before the first connection). */
  get tools(): readonly Tool[] {
    return this.listed;
  }

  private log(line: string): void {
    // One log line per event: multi-line errors (an HTML error page) are folded.
    const clean = redact(line, this.config.secrets).replace(/\s*\n\s*/g, ' ');
    this.hooks.log(
      `[mcp ${this.config.name}] ` +
        `${clean.length > MAX_LOG_LINE_CHARS ? `${clean.slice(0, MAX_LOG_LINE_CHARS)}…` : clean}`,
    );
  }

  /** Connected client (starting the server if needed). Rejects with a McpCallError of kind 'start'. */
  connect(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private newClient(): Client {
    const client = new Client(MCP_CLIENT_INFO, {
      capabilities: {},
      listChanged: {
        tools: {
          onChanged: (error, tools) => {
            if (error) return this.log(`tools/list_changed: refresh failed: ${error.message}`);
            if (tools) this.setTools(tools);
          },
        },
      },
    });
    client.onerror = (e) => this.log(`error: ${e.message}`);
    return client;
  }

  private stdioTransport(): Transport {
    const t = this.config.transport;
    if (t.kind !== 'stdio') throw new Error('not a stdio server');
    const transport = new StdioClientTransport({
      command: t.command,
      args: [...t.args],
      env: { ...getDefaultEnvironment(), ...t.env },
      cwd: t.cwd,
      stderr: 'pipe',
    });
    let pending = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString('utf8')).split(/\r?\n/);
      pending = lines.pop() ?? '';
      for (const l of lines) if (l.trim()) this.log(l);
    });
    return transport;
  }

  /** Connect `client` over `transport` within the server's timeout; a failed handshake leaves no process behind. */
  private async handshake(client: Client, transport: Transport): Promise<void> {
    try {
      await client.connect(transport, { timeout: this.startTimeoutMs });
    } catch (e) {
      await client.close().catch(() => {});
      throw e;
    }
  }

  private async open(): Promise<Client> {
    this.state = 'connecting';
    const t = this.config.transport;
    try {
      let client = this.newClient();
      if (t.kind === 'stdio') {
        await this.handshake(client, this.stdioTransport());
      } else {
        const requestInit: RequestInit = { headers: { ...t.headers } };
        const url = new URL(t.url);
        try {
          if (t.sse) throw new Error('configured as sse');
          await this.handshake(client, new StreamableHTTPClientTransport(url, { requestInit }));
        } catch (e) {
          if (!t.sse) this.log(`Streamable HTTP failed (${messageOf(e)}); trying the SSE transport`);
          client = this.newClient();
          await this.handshake(client, new SSEClientTransport(url, { requestInit }));
        }
      }
      client.onclose = () => this.closed(client);
      this.client = client;
      this.state = 'ready';
      this.lastError = undefined;
      const server = client.getServerVersion();
      this.log(`connected${server ? ` to ${server.name} ${server.version}` : ''}`);
      const before = JSON.stringify(this.listed);
      this.listed = await this.listAll(client);
      if (before !== '[]' && before !== JSON.stringify(this.listed)) this.hooks.onToolsChanged();
      return client;
    } catch (e) {
      this.state = 'failed';
      this.lastError = redact(messageOf(e), this.config.secrets);
      this.log(`could not start: ${this.lastError}`);
      throw new McpCallError(`MCP server "${this.config.name}" could not be started: ${this.lastError}`, 'start');
    }
  }

  private async listAll(client: Client): Promise<Tool[]> {
    const out: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const r = await client.listTools(cursor ? { cursor } : undefined, { timeout: this.startTimeoutMs });
      out.push(...r.tools);
      cursor = r.nextCursor;
      if (!cursor) break;
    }
    return out;
  }

  private setTools(tools: Tool[]): void {
    if (JSON.stringify(tools) === JSON.stringify(this.listed)) return;
    this.listed = tools;
    this.log(`tools changed: ${tools.length} tools`);
    this.hooks.onToolsChanged();
  }

  /** The transport closed (the process exited or the HTTP session ended): the next use reconnects. */
  private closed(client: Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.state = 'closed';
    this.log('connection closed; the server is started again on its next use');
  }

  /**
   * Call one tool. Rejects with McpCallError (naming the server) when the server
   * cannot be started, times out (it is then stopped), closes mid-call or the
   * call is cancelled; a tool's own failure is a result with isError, not a rejection.
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<CallToolResult | { toolResult: unknown }> {
    const client = await this.connect();
    try {
      return await client.callTool({ name, arguments: args }, undefined, { timeout: this.config.timeoutMs, signal });
    } catch (e) {
      throw this.callFailure(e, signal);
    }
  }

  private callFailure(e: unknown, signal?: AbortSignal): McpCallError {
    const server = `MCP server "${this.config.name}"`;
    if (signal?.aborted)
      return new McpCallError(
        `cancelled: the user stopped this turn (${server} was told to cancel the call).`,
        'cancelled',
      );
    const msg = redact(messageOf(e), this.config.secrets);
    if (e instanceof McpError && e.code === ErrorCode.RequestTimeout) {
      void this.close();
      return new McpCallError(
        `${server} did not answer within ${this.config.timeoutMs / 1000} s: the call was abandoned and the ` +
          'server stopped; it is started again on its next use.',
        'timeout',
      );
    }
    if (e instanceof McpError && e.code === ErrorCode.ConnectionClosed) {
      return new McpCallError(
        `${server} closed the connection during the call (it exited or crashed); it is started again on its next use.`,
        'closed',
      );
    }
    if (e instanceof McpError) return new McpCallError(`${server} refused the call: ${msg}`, 'protocol');
    void this.close();
    return new McpCallError(`${server} failed during the call: ${msg}; it is started again on its next use.`, 'closed');
  }

  /** Stop the server (stdio: the process is ended) or end the HTTP session. */
  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (this.state === 'ready') this.state = 'closed';
    await client?.close().catch(() => {});
  }
}
