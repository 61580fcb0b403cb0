/** Shared by the MCP tests: the workflow fixture server's config and a tool context on a real session and workspace. */
import os from 'node:os';
import path from 'node:path';
import { NodeWorkspace } from '../../../src/core/agent/node-workspace';
import type { ToolContext } from '../../../src/core/agent/tools/types';
import type { McpServerConfig } from '../../../src/core/mcp/config';
import { Session } from '../../../src/core/session/session';

export const REPO = path.resolve(__dirname, '../../..');
export const WORKFLOW_SERVER = path.join(REPO, 'test/fixtures/mcp/workflow-server.mjs');
/** The bin of @modelcontextprotocol/server-everything (a server nobody here wrote). */
export const EVERYTHING_SERVER = path.join(REPO, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

/** The workflow fixture as a stdio server (with `--faults`: crash, hang, show_env, add_tool). */
export function workflowServer(
  opts: { name?: string; faults?: boolean; timeoutMs?: number; env?: Record<string, string> } = {},
): McpServerConfig {
  const env = opts.env ?? {};
  return {
    name: opts.name ?? 'workflow',
    transport: {
      kind: 'stdio',
      command: process.execPath,
      args: [WORKFLOW_SERVER, ...(opts.faults ? ['--faults'] : [])],
      env,
    },
    timeoutMs: opts.timeoutMs ?? 60_000,
    origin: 'test',
    secrets: Object.values(env),
  };
}

export function toolContext(opts: { trusted?: boolean; signal?: AbortSignal } = {}): ToolContext {
  return {
    workspace: new NodeWorkspace(os.tmpdir(), { trusted: opts.trusted ?? true }),
    session: new Session(),
    callIndex: 0,
    approve: async () => false,
    signal: opts.signal,
    tokens: (t) => Math.ceil(t.length / 4),
  };
}
