/** The protocol's MCP part (issue 11): approvals of MCP tool calls, the inspector's Tools tab and its switches. */
/**
 * An approval card for an MCP tool call: `detail` is the call's input as JSON; "always" approves the server for the
 * session.
 */
export interface McpApprovalInfo {
  server: string;
  tool: string;
}

/** Tokens of one MCP tool definition (sent on every call) and its switch. */
export interface McpToolView {
  name: string;
  apiName: string;
  tokens: number;
  enabled: boolean;
  /** Switched, waiting for the prompt cache to expire. */
  pending: boolean;
}

export interface McpServerView {
  name: string;
  origin: string;
  state: 'idle' | 'connecting' | 'ready' | 'failed' | 'closed';
  error?: string;
  enabled: boolean;
  pending: boolean;
  /** Tokens of its enabled tools' definitions. */
  tokens: number;
  tools: McpToolView[];
}

/** The inspector's MCP section: servers, their definitions' tokens, and what applying pending switches now costs. */
export interface McpInspectorInfo {
  servers: McpServerView[];
  /** Tokens of all tool definitions sent (built-in and MCP). */
  toolsTokens: number;
  /** Pending switches applied now instead of at the cache's expiry (USD; calls until it pays off, null: never). */
  applyNow?: { rewriteUsd: number; savedPerCallUsd: number; breakEvenCalls: number | null };
}

/**
 * Switch a server (no tool) or a tool; `now`: rewrite the cache at once, else at its expiry. `mcpApply`: apply pending
 * switches now.
 */
export type McpRequest =
  { op: 'mcpSwitch'; server: string; tool?: string; enabled: boolean; now: boolean } | { op: 'mcpApply' };
