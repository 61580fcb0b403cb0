/**
 * MCP servers for `trimline run`: `--mcp-config F` (repeatable; VS Code's
 * `servers` or Claude Code's `mcpServers` format) and their approvals
 * (`--approve-mcp` approves every call; on a terminal each call is asked, with
 * "a" for always this server; otherwise calls are denied with a note).
 */
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import {
  McpToolSource,
  parseMcpConfig,
  mergeServers,
  resolveServers,
  type McpApproval,
  type McpApprovalRequest,
} from '../core/mcp';
import { jsonTerminalSafe, terminalSafeLine } from '../protocol/safe-text';
import { UsageError } from './common';

/** Characters of a call's input shown in the approval question. */
const INPUT_PREVIEW_CHARS = 300;

/** Where diagnostics go (the run printer's `note`). */
type Note = (text: string) => void;

/** Read and resolve the servers of the given files; problems end the run with one line each. */
export function loadMcpServers(
  files: readonly string[],
  workspace: string,
  env: NodeJS.ProcessEnv,
): ReturnType<typeof resolveServers>['servers'] {
  const parsed = files.map((file) => {
    let doc: unknown;
    try {
      doc = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      throw new UsageError(`run: --mcp-config ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    return parseMcpConfig(doc, file);
  });
  const merged = mergeServers(parsed);
  // The CLI keeps no secret store to prompt `${input:…}` into: such servers are reported (use `${env:NAME}`).
  const { servers, problems } = resolveServers(merged.servers, { workspaceFolder: workspace, env, inputs: new Map() });
  const all = [
    ...merged.problems,
    ...problems.map((p) =>
      /input ".*" has no value/.test(p) ? `${p} (the CLI does not prompt for inputs: use \${env:NAME})` : p,
    ),
  ];
  if (all.length) throw new UsageError(`run: ${all.join('; ')}`);
  return servers;
}

/** The approval policy of MCP calls in the CLI. */
export function mcpApprover(auto: boolean, note: Note): (r: McpApprovalRequest) => Promise<McpApproval> {
  if (auto) return async () => 'server';
  if (!process.stdin.isTTY) {
    return async (r) => {
      note(`${r.apiName} denied (no terminal to ask; pass --approve-mcp to allow MCP tools)`);
      return 'deny';
    };
  }
  return (r) =>
    new Promise<McpApproval>((resolve) => {
      const input = JSON.stringify(r.input) ?? '';
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      const preview = input.length > INPUT_PREVIEW_CHARS ? `${input.slice(0, INPUT_PREVIEW_CHARS)}…` : input;
      // The tool and server names come from the server: the question goes through the terminal sanitizer.
      rl.question(
        `Run MCP tool ${terminalSafeLine(r.tool)} of server "${terminalSafeLine(r.server)}"?\n  ` +
          `${jsonTerminalSafe(preview)}\n[y/N/a = always this server] `,
        (answer) => {
          rl.close();
          const a = answer.trim().toLowerCase();
          resolve(a === 'a' || a === 'always' ? 'server' : /^y(es)?$/.test(a) ? 'once' : 'deny');
        },
      );
    });
}

/** Start the servers (a server that cannot start is reported and offers no tools). */
export async function startMcp(
  files: readonly string[],
  workspace: string,
  auto: boolean,
  note: Note,
): Promise<McpToolSource | undefined> {
  if (!files.length) return undefined;
  const servers = loadMcpServers(files, workspace, process.env);
  const source = new McpToolSource(servers, { approve: mcpApprover(auto, note), log: note });
  await source.start();
  for (const c of source.connections) {
    note(
      c.state === 'ready'
        ? `MCP server "${c.config.name}": ${c.tools.length} tools`
        : `MCP server "${c.config.name}" is not available: ${c.lastError ?? c.state}`,
    );
  }
  return source;
}
