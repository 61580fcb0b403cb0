/**
 * MCP server configuration: the formats users already have, read into one shape.
 *
 * - VS Code's `.vscode/mcp.json`: `{ "inputs": [...], "servers": { name: {...} } }`,
 *   with `${workspaceFolder}`, `${env:NAME}` and `${input:ID}` in string values;
 * - Claude Code's `.mcp.json`: `{ "mcpServers": { name: {...} } }`, with `${NAME}`
 *   and `${NAME:-default}` from the environment;
 * - the `trimline.mcpServers` setting and `trimline run --mcp-config F`: either format.
 *
 * A server is stdio (`command`, `args`, `env`, `cwd`) or HTTP (`type: "http"` or
 * `"sse"`, `url`, `headers`). Parsing is pure: files are read by the host or CLI,
 * inputs are asked for by the host, and every value that came from `env`,
 * `headers` or an input is listed in `secrets` so logs and results can redact it.
 */

import { secretValues } from './redact';

/** How long a tool call may take before the server counts as hung (issue 11: 60 s by default). */
export const DEFAULT_MCP_TIMEOUT_MS = 60_000;

export type McpTransportConfig =
  | {
      readonly kind: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      readonly env: Readonly<Record<string, string>>;
      readonly cwd?: string;
    }
  | {
      readonly kind: 'http';
      readonly url: string;
      readonly headers: Readonly<Record<string, string>>;
      readonly sse: boolean;
    };

/** One server, variables resolved. */
export interface McpServerConfig {
  readonly name: string;
  readonly transport: McpTransportConfig;
  /** Per-call timeout. */
  readonly timeoutMs: number;
  /** Where it was configured (file or setting), for messages. */
  readonly origin: string;
  /** Values to redact wherever this server's output is written down. */
  readonly secrets: readonly string[];
}

/** A VS Code `inputs` entry: asked once, kept in SecretStorage. */
export interface McpInputSpec {
  readonly id: string;
  readonly description: string;
  readonly password: boolean;
  readonly default?: string;
}

/** A server as written, before variables are resolved. */
export interface RawMcpServer {
  readonly name: string;
  readonly body: Readonly<Record<string, unknown>>;
  readonly origin: string;
}

export interface ParsedMcpConfig {
  readonly servers: readonly RawMcpServer[];
  readonly inputs: readonly McpInputSpec[];
  readonly problems: readonly string[];
}

/** What `${…}` may refer to. */
export interface VariableContext {
  readonly workspaceFolder?: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Values of `${input:ID}` (asked by the host beforehand). */
  readonly inputs: ReadonlyMap<string, string>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Servers and inputs of one config document (either format); problems are reported, not thrown. */
export function parseMcpConfig(doc: unknown, origin: string): ParsedMcpConfig {
  const problems: string[] = [];
  if (!isObject(doc)) return { servers: [], inputs: [], problems: [`${origin}: expected a JSON object`] };
  const table = isObject(doc.servers) ? doc.servers : isObject(doc.mcpServers) ? doc.mcpServers : undefined;
  if (!table) problems.push(`${origin}: no "servers" (VS Code) or "mcpServers" (Claude Code) object`);
  const servers: RawMcpServer[] = [];
  for (const [name, body] of Object.entries(table ?? {})) {
    if (isObject(body)) servers.push({ name, body, origin });
    else problems.push(`${origin}: server ${JSON.stringify(name)} is not an object`);
  }
  const inputs: McpInputSpec[] = [];
  for (const i of Array.isArray(doc.inputs) ? doc.inputs : []) {
    if (!isObject(i) || typeof i.id !== 'string') continue;
    inputs.push({
      id: i.id,
      description: typeof i.description === 'string' ? i.description : i.id,
      password: i.password === true,
      ...(typeof i.default === 'string' ? { default: i.default } : {}),
    });
  }
  return { servers, inputs, problems };
}

const VARIABLE = /\$\{([^}]+)\}/g;

/** Input ids a raw server refers to (`${input:ID}` anywhere in its strings). */
export function inputIdsOf(server: RawMcpServer): string[] {
  const ids = new Set<string>();
  for (const m of JSON.stringify(server.body).matchAll(VARIABLE))
    if (m[1].startsWith('input:')) ids.add(m[1].slice('input:'.length));
  return [...ids];
}

/**
 * One string with its variables resolved. Unknown variables stay as written
 * (the server then reports what it got); `used` collects input values.
 */
export function resolveString(value: string, ctx: VariableContext, used: string[] = []): string {
  return value.replace(VARIABLE, (whole, expr: string) => {
    if (expr === 'workspaceFolder') return ctx.workspaceFolder ?? whole;
    if (expr === 'userHome') return ctx.env.HOME ?? ctx.env.USERPROFILE ?? whole;
    if (expr.startsWith('env:')) return ctx.env[expr.slice(4)] ?? '';
    if (expr.startsWith('input:')) {
      const v = ctx.inputs.get(expr.slice(6));
      if (v === undefined) return whole;
      used.push(v);
      return v;
    }
    // Claude Code: ${NAME} and ${NAME:-default}.
    const m = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/.exec(expr);
    if (m) return ctx.env[m[1]] ?? m[2] ?? whole;
    return whole;
  });
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function stringMap(v: unknown, ctx: VariableContext, used: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isObject(v)) return out;
  for (const [k, x] of Object.entries(v))
    if (typeof x === 'string' || typeof x === 'number') out[k] = resolveString(String(x), ctx, used);
  return out;
}

/** Per-server timeout: `timeout` (ms, as Claude Code and VS Code write it), else the default. */
function timeoutOf(body: Readonly<Record<string, unknown>>, fallback: number): number {
  const t = body.timeout;
  return typeof t === 'number' && Number.isFinite(t) && t > 0 ? t : fallback;
}

/** A raw server with variables resolved, or a problem naming it. */
export function resolveServer(
  raw: RawMcpServer,
  ctx: VariableContext,
  defaultTimeoutMs = DEFAULT_MCP_TIMEOUT_MS,
): McpServerConfig | { readonly problem: string } {
  const b = raw.body;
  const used: string[] = [];
  const type = typeof b.type === 'string' ? b.type : undefined;
  const where = `${raw.origin}: server ${JSON.stringify(raw.name)}`;
  let transport: McpTransportConfig;
  if (
    type === 'http' ||
    type === 'sse' ||
    type === 'streamable-http' ||
    (type === undefined && typeof b.url === 'string')
  ) {
    if (typeof b.url !== 'string') return { problem: `${where}: "url" is missing` };
    const headers = stringMap(b.headers, ctx, used);
    transport = { kind: 'http', url: resolveString(b.url, ctx, used), headers, sse: type === 'sse' };
    // A header's value and its words: `Bearer <token>` hides the token even when a server echoes it alone.
    for (const v of Object.values(headers)) used.push(v, ...v.split(/\s+/));
  } else if (type === undefined || type === 'stdio') {
    if (typeof b.command !== 'string' || !b.command) return { problem: `${where}: "command" is missing` };
    const env = stringMap(b.env, ctx, used);
    // Relative paths in a server's args mean the project, as in VS Code and Claude Code: it runs in the workspace
    // folder.
    const cwd = typeof b.cwd === 'string' ? resolveString(b.cwd, ctx, used) : ctx.workspaceFolder;
    transport = {
      kind: 'stdio',
      command: resolveString(b.command, ctx, used),
      args: stringList(b.args).map((a) => resolveString(a, ctx, used)),
      env,
      ...(cwd ? { cwd } : {}),
    };
    used.push(...Object.values(env));
  } else {
    return { problem: `${where}: unsupported type ${JSON.stringify(type)} (stdio, http or sse)` };
  }
  const unresolved = /\$\{input:([^}]+)\}/.exec(JSON.stringify(transport));
  if (unresolved) return { problem: `${where}: input ${JSON.stringify(unresolved[1])} has no value` };
  return {
    name: raw.name,
    transport,
    timeoutMs: timeoutOf(b, defaultTimeoutMs),
    origin: raw.origin,
    secrets: secretValues(used),
  };
}

/**
 * Servers from several documents, first definition of a name wins (the order of
 * the sources is the precedence: workspace files before the user's setting).
 */
export function mergeServers(configs: readonly ParsedMcpConfig[]): {
  servers: RawMcpServer[];
  inputs: McpInputSpec[];
  problems: string[];
} {
  const byName = new Map<string, RawMcpServer>();
  const inputs = new Map<string, McpInputSpec>();
  const problems: string[] = [];
  for (const c of configs) {
    problems.push(...c.problems);
    for (const s of c.servers) {
      if (byName.has(s.name))
        problems.push(
          `${s.origin}: server ${JSON.stringify(s.name)} is also defined in ${byName.get(s.name)!.origin}; that ` +
            'one is used',
        );
      else byName.set(s.name, s);
    }
    for (const i of c.inputs) if (!inputs.has(i.id)) inputs.set(i.id, i);
  }
  return { servers: [...byName.values()], inputs: [...inputs.values()], problems };
}

/** Resolve every server; the ones that cannot be resolved become problems. */
export function resolveServers(
  raws: readonly RawMcpServer[],
  ctx: VariableContext,
  defaultTimeoutMs = DEFAULT_MCP_TIMEOUT_MS,
): { servers: McpServerConfig[]; problems: string[] } {
  const servers: McpServerConfig[] = [];
  const problems: string[] = [];
  for (const r of raws) {
    const s = resolveServer(r, ctx, defaultTimeoutMs);
    if ('problem' in s) problems.push(s.problem);
    else servers.push(s);
  }
  return { servers, problems };
}
