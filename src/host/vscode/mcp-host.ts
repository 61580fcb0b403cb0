/**
 * MCP servers in VS Code: where they come from, their inputs, their lifetime.
 *
 * Sources, first definition of a name wins: the workspace's `.vscode/mcp.json`
 * (VS Code's format), its `.mcp.json` (Claude Code's), then the
 * `trimline.mcpServers` setting. `${input:ID}` values are asked once (a password
 * box when the input says so) and kept in SecretStorage, never in settings; they
 * and every `env`/header value are masked in the log. In Restricted Mode no
 * server starts (a workspace's config would run its commands) and no MCP tool runs.
 * Servers start with the first chat and are restarted for the next chat after
 * their config files or the setting change.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import {
  inputIdsOf,
  mcpInventory,
  McpToolSource,
  mergeServers,
  parseJsonc,
  parseMcpConfig,
  resolveServers,
  toolSwitchCost,
  type McpInputSpec,
  type ParsedMcpConfig,
} from '../../core/mcp';
import { modelPrice } from '../../core/models';
import type { ActionResult, McpInspectorInfo, McpRequest } from '../../protocol';
import type { Approvals } from './approvals';
import type { Log } from './log';

/** Workspace files read, in precedence order (VS Code's own file first). */
export const MCP_CONFIG_FILES = ['.vscode/mcp.json', '.mcp.json'] as const;
/** SecretStorage key of an input's value. */
const INPUT_SECRET_PREFIX = 'trimline.mcp.input.';

export interface McpHostDeps {
  readonly secrets: vscode.SecretStorage;
  readonly log: Log;
  readonly approvals: Approvals;
  /** The offered tools (or a switch) changed: the inspector should refresh. */
  readonly changed: () => void;
}

/** One config document from a workspace file, or nothing when the file is absent; unreadable JSON is a problem. */
function readConfigFile(folder: string, rel: string): ParsedMcpConfig | undefined {
  const file = path.join(folder, rel);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    return parseMcpConfig(parseJsonc(text), rel);
  } catch (e) {
    return {
      servers: [],
      inputs: [],
      problems: [`${rel}: invalid JSON: ${e instanceof Error ? e.message : String(e)}`],
    };
  }
}

export class McpHost implements vscode.Disposable {
  private source?: McpToolSource;
  private starting?: Promise<McpToolSource | undefined>;
  private dirty = false;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly folder: string | undefined,
    private readonly deps: McpHostDeps,
  ) {
    if (folder) {
      for (const rel of MCP_CONFIG_FILES) {
        const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, rel));
        w.onDidChange(() => this.markDirty(rel));
        w.onDidCreate(() => this.markDirty(rel));
        w.onDidDelete(() => this.markDirty(rel));
        this.disposables.push(w);
      }
    }
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('trimline.mcpServers')) this.markDirty('setting trimline.mcpServers');
      }),
    );
  }

  /** A config changed (or trust was granted): the next chat starts the servers afresh. */
  markDirty(why: string): void {
    this.dirty = true;
    this.deps.log.info(`MCP: ${why} changed; servers restart with the next chat`);
  }

  /** The current tool source (undefined before the first chat or without servers). */
  get current(): McpToolSource | undefined {
    return this.source;
  }

  /** The tool source for a new chat session: started once, restarted after a config change. */
  async tools(): Promise<McpToolSource | undefined> {
    if (this.dirty && !this.starting) {
      this.dirty = false;
      const old = this.source;
      this.source = undefined;
      await old?.close();
    }
    // Approvals and switches hold for one chat session: a new chat starts from none.
    if (this.source) {
      this.source.newSession();
      // Servers that could not start (or have stopped) get another try with each new chat.
      await this.source.start();
      return this.source;
    }
    this.starting ??= this.start().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private configs(): ParsedMcpConfig[] {
    const out: ParsedMcpConfig[] = [];
    for (const rel of this.folder ? MCP_CONFIG_FILES : []) {
      const c = readConfigFile(this.folder!, rel);
      if (c) out.push(c);
    }
    const setting = vscode.workspace.getConfiguration('trimline').get<unknown>('mcpServers');
    if (setting && typeof setting === 'object' && Object.keys(setting).length)
      out.push(parseMcpConfig({ servers: setting }, 'setting trimline.mcpServers'));
    return out;
  }

  private async start(): Promise<McpToolSource | undefined> {
    const { log } = this.deps;
    if (!vscode.workspace.isTrusted) {
      log.info('MCP: servers are off in Restricted Mode (trust the workspace to start them)');
      return undefined;
    }
    const merged = mergeServers(this.configs());
    for (const p of merged.problems) log.warn(`MCP: ${p}`);
    if (!merged.servers.length) return undefined;
    const inputs = await this.inputValues(merged.inputs, new Set(merged.servers.flatMap(inputIdsOf)));
    const { servers, problems } = resolveServers(merged.servers, {
      workspaceFolder: this.folder,
      env: process.env,
      inputs,
    });
    for (const p of problems) log.warn(`MCP: ${p}`);
    log.addSecrets(
      'mcp',
      servers.flatMap((s) => s.secrets),
    );
    const source = new McpToolSource(servers, {
      approve: this.deps.approvals.mcp,
      log: (l) => log.info(l),
      onChange: () => this.deps.changed(),
    });
    await source.start();
    for (const c of source.connections) {
      if (c.state === 'ready') log.info(`MCP server "${c.config.name}" (${c.config.origin}): ${c.tools.length} tools`);
      else log.warn(`MCP server "${c.config.name}" (${c.config.origin}) is not available: ${c.lastError ?? c.state}`);
    }
    this.source = source;
    return source;
  }

  /** Values of the inputs servers use: from SecretStorage, else asked once and stored. Cancelled ones stay unset. */
  private async inputValues(specs: readonly McpInputSpec[], used: ReadonlySet<string>): Promise<Map<string, string>> {
    const values = new Map<string, string>();
    for (const id of used) {
      const key = `${INPUT_SECRET_PREFIX}${id}`;
      let value = await this.deps.secrets.get(key);
      if (value === undefined) {
        const spec = specs.find((s) => s.id === id);
        value = await vscode.window.showInputBox({
          title: `MCP server input: ${spec?.description ?? id}`,
          prompt: 'Kept in VS Code Secret Storage for Trimline; never written to settings or the log.',
          password: spec?.password ?? true,
          value: spec?.default,
          ignoreFocusOut: true,
        });
        if (value !== undefined) await this.deps.secrets.store(key, value);
      }
      if (value !== undefined) values.set(id, value);
    }
    return values;
  }

  /**
   * The inspector's MCP section: tokens per server and definition, and the price of
   * applying pending switches now (`prefixTokens`: the last call's input, the cached prefix).
   */
  inspectorInfo(
    tokens: (text: string) => number,
    toolsTokens: number,
    prefixTokens: number,
    model: string,
  ): McpInspectorInfo | undefined {
    const source = this.source;
    if (!source) return undefined;
    const servers = mcpInventory(source, tokens).map((s) => ({ ...s, tools: s.tools.map((t) => ({ ...t })) }));
    // Tokens the pending switches take out of every request (negative when they put tools back).
    let removed = 0;
    for (const p of source.pendingSwitches()) {
      const server = servers.find((s) => s.name === p.server);
      const tools = server?.tools.filter((t) => p.tool === undefined || t.name === p.tool) ?? [];
      for (const t of tools) removed += p.enabled ? -t.tokens : t.enabled ? t.tokens : 0;
    }
    const info: McpInspectorInfo = { servers, toolsTokens };
    if (!source.pendingSwitches().length || !prefixTokens) return info;
    const c = toolSwitchCost(prefixTokens, removed, modelPrice(model));
    return { ...info, applyNow: { ...c, breakEvenCalls: Number.isFinite(c.breakEvenCalls) ? c.breakEvenCalls : null } };
  }

  /** A switch from the inspector. */
  handle(req: McpRequest): ActionResult {
    const source = this.source;
    if (!source)
      throw new Error(
        'No MCP servers are running: configure them in .vscode/mcp.json, .mcp.json or trimline.mcpServers, then ' +
          'start a chat.',
      );
    if (req.op === 'mcpApply') {
      source.applyPending();
      this.deps.log.info('MCP: pending tool switches applied now (the prompt cache is rewritten on the next call)');
      return { message: 'Applied: the next call rewrites the prompt cache with the new tool list.' };
    }
    source.setEnabled(
      { server: req.server, ...(req.tool !== undefined ? { tool: req.tool } : {}), enabled: req.enabled },
      req.now,
    );
    const what = `${req.tool ? `tool ${req.tool} of ` : ''}MCP server ${req.server}`;
    this.deps.log.info(
      `MCP: ${what} switched ${req.enabled ? 'on' : 'off'} ${req.now ? 'now' : 'at the cache expiry'}`,
    );
    return {
      message:
        `${what} switched ${req.enabled ? 'on' : 'off'} ` +
        (req.now
          ? 'now (the next call rewrites the prompt cache).'
          : 'when the prompt cache expires (no extra cost); "Apply now" does it at once.'),
    };
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
    void this.source?.close();
    this.source = undefined;
  }
}
