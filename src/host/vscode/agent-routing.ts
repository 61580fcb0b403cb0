/**
 * "Route VS Code Agents…": lists the agents installed in this VS Code with what routing would
 * change for each (src/core/route/plan.ts), writes the settings of the ones the user picks so
 * they point at the proxy, and "Stop Routing VS Code Agents" restores every file as it was. The
 * undo record is journaled under the extension's global storage before any change, so a restore
 * works after a crash or a restart; while a record exists the proxy is started again on its port
 * when VS Code starts, so routed agents never point at a dead port.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { AGENTS, agentInfo, AUTO_IMPORT_SETTING, type AgentId, type RouteScope } from '../../core/route/agents';
import { settleImport, type RouteRecord } from '../../core/route/journal';
import { planAgent, planAgents, type AgentPlan, type RoutePaths } from '../../core/route/plan';
import { CLIENT_LABELS, type ClientKind } from '../../core/proxy/client-kind';
import { applyRoute, readRecord, readText, restoreRoute, writeDurably, writeRecord } from '../route/files';
import type { CoreDeps } from './host-types';
import type { ProxyRouting } from './proxy-routing';

/** How often and how long a restart waits for Roo and Kilo to import the profile (2 minutes). */
const IMPORT_WATCH_MS = 2_000;
const IMPORT_WATCH_TRIES = 60;

/** The VS Code version whose chat reads Anthropic-format Custom Endpoint models from chatLanguageModels.json. */
const CUSTOM_ENDPOINT_SINCE: readonly [number, number] = [1, 122];

/** The extension of an agent, if installed (ids match case-insensitively). */
function extensionOf(agent: AgentId): vscode.Extension<unknown> | undefined {
  return agentInfo(agent)
    .extensions.map((id) => vscode.extensions.getExtension(id))
    .find((e) => e !== undefined);
}

function atLeast(version: string, [major, minor]: readonly [number, number]): boolean {
  const [a, b] = version.split('.').map((x) => Number.parseInt(x, 10));
  return a > major || (a === major && b >= minor);
}

/** Agents whose first request the user is told about (routed by hand, or needing a reload). */
const ANNOUNCED: readonly ClientKind[] = ['cline', 'roo', 'kilo', 'copilot', 'continue', 'claude-code'];

export class AgentRouting {
  /** Agents routed this run whose traffic has not arrived yet. */
  private readonly awaiting = new Set<ClientKind>();

  constructor(
    private readonly deps: CoreDeps,
    private readonly routing: ProxyRouting,
  ) {
    routing.listeners.push((seen) => this.arrived(seen));
  }

  /** Where the undo record and Trimline's own agent files live. */
  private get dir(): string {
    return this.deps.context.globalStorageUri.fsPath;
  }

  private paths(): RoutePaths {
    // globalStorageUri is <user dir>/globalStorage/<publisher.name>: the user dir is two up.
    const workspace = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const userDir = path.resolve(this.dir, '..', '..');
    return { userDir, workspace, home: os.homedir(), dataDir: path.join(this.dir, 'route'), host: 'vscode' };
  }

  /** A route was journaled before VS Code last closed: serve its port again. */
  async resume(): Promise<void> {
    const record = readRecord(this.dir);
    if (!record || this.routing.url) return;
    const port = Number(new URL(record.url).port);
    try {
      await this.routing.start(port);
      this.deps.log.info(`route: agents routed through ${record.url} (restored after a restart)`);
      this.watchImports();
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      void vscode.window.showWarningMessage(
        `Trimline: routed agents point at ${record.url}, which could not be served again (${why}). ` +
          'Run "Trimline: Stop Routing VS Code Agents" to restore their settings.',
      );
    }
  }

  /** Until Roo and Kilo have started (and imported the profile), look again now and then. */
  private watchImports(): void {
    let tries = 0;
    const timer = setInterval(() => {
      if (this.settleImports() || ++tries >= IMPORT_WATCH_TRIES) clearInterval(timer);
    }, IMPORT_WATCH_MS);
    this.deps.context.subscriptions.push({ dispose: () => clearInterval(timer) });
  }

  /**
   * Roo and Kilo import the auto-import file on every start, replacing the profile of that name
   * (and a key the user entered in it): once one has started, its auto-import setting goes back
   * to what it was. Returns true when nothing is left to wait for.
   */
  settleImports(): boolean {
    const first = readRecord(this.dir);
    if (!first) return true;
    let record: RouteRecord = first;
    let waiting = false;
    for (const agent of ['roo', 'kilo'] as const) {
      const key = AUTO_IMPORT_SETTING[agent];
      const change = record.changes.find((c) => c.keys?.some((k) => k.path[0] === key));
      if (!change) continue;
      const ext = extensionOf(agent);
      if (!ext?.isActive) {
        waiting = true;
        continue;
      }
      const current = readText(change.file);
      const settled = current === null ? undefined : settleImport(record, change.file, key, current);
      if (!settled) continue;
      // The file first: a crash before the record is written leaves a key-level restore that is still right.
      writeDurably(change.file, settled.text);
      writeRecord(this.dir, settled.record);
      record = settled.record;
      this.deps.log.info(`route: ${agentInfo(agent).name} imported the profile; ${key} is back to its value`);
    }
    return !waiting;
  }

  async route(): Promise<void> {
    if (!vscode.workspace.isTrusted) throw new Error('Routing agents is off in Restricted Mode: trust the workspace.');
    // Copilot's Custom Endpoint models (chatLanguageModels.json) are the workbench's own since 1.122,
    // whether or not an extension of that id is listed.
    const present = (a: (typeof AGENTS)[number]): boolean =>
      extensionOf(a.id) !== undefined || (a.id === 'copilot' && atLeast(vscode.version, CUSTOM_ENDPOINT_SINCE));
    const installed = AGENTS.filter(present);
    if (installed.length === 0) {
      const names = AGENTS.map((a) => a.name).join(', ');
      void vscode.window.showInformationMessage(`Trimline: none of the agents it can route (${names}) is installed.`);
      return;
    }
    const scope = await this.pickScope();
    if (!scope) return;
    const record = readRecord(this.dir);
    const url = await this.routing.start(record ? Number(new URL(record.url).port) : undefined);
    const p = this.paths();
    type Item = vscode.QuickPickItem & { plan?: AgentPlan; scope?: RouteScope };
    const items: Item[] = installed.map((a) => {
      try {
        const at = a.scopes.length === 0 || a.scopes.includes(scope) ? scope : a.scopes[0];
        const plan = planAgent(a.id, at, url, p, readText);
        const where = a.scopes.length === 0 ? 'by hand' : a.scopes.includes(scope) ? scope : `${a.scopes[0]} only`;
        return { label: a.name, description: where, detail: plan.summary, plan, scope: at };
      } catch (e) {
        const detail = e instanceof Error ? e.message : String(e);
        return { label: `$(warning) ${a.name}`, description: 'cannot be routed', detail };
      }
    });
    const picked = await vscode.window.showQuickPick(items, {
      title: `Route VS Code agents through Trimline (${url})`,
      placeHolder: 'Pick the agents to route; each line says what changes',
      canPickMany: true,
      matchOnDetail: true,
    });
    const chosen = (picked ?? []).flatMap((i) => (i.plan && i.scope ? [{ agent: i.plan.agent, scope: i.scope }] : []));
    if (chosen.length === 0) return;
    // Planned again together: two agents' settings in one file both land.
    const plans = planAgents(chosen, url, p, readText);
    const record2 = applyRoute(
      this.dir,
      url,
      scope,
      plans.flatMap((pl) => pl.changes),
    );
    const routed = plans.map((pl) => pl.agent).join(', ');
    this.deps.log.info(`route: ${routed} → ${url}; ${record2.changes.length} file(s) journaled in ${this.dir}`);
    for (const pl of plans) this.awaiting.add(pl.agent as ClientKind);
    await this.explain(plans, url);
  }

  private async pickScope(): Promise<RouteScope | undefined> {
    const ws = vscode.workspace.workspaceFolders?.[0];
    if (!ws) return 'user';
    const pick = await vscode.window.showQuickPick(
      [
        { label: 'User', description: 'every window', scope: 'user' as const },
        { label: 'Workspace', description: ws.name, scope: 'workspace' as const },
      ],
      {
        title: 'Route VS Code agents: where to write their settings',
        placeHolder: 'Agents whose setting exists only for the user are routed there either way',
      },
    );
    return pick?.scope;
  }

  /** What the user still does by hand, with the URL to copy. */
  private async explain(plans: readonly AgentPlan[], url: string): Promise<void> {
    const steps = plans.filter((pl) => pl.steps.length > 0);
    const names = plans.map((pl) => agentInfo(pl.agent).name).join(', ');
    if (steps.length === 0) {
      void vscode.window.showInformationMessage(`Trimline: routed ${names} through ${url}.`);
      return;
    }
    const numbered = (xs: readonly string[]): string => xs.map((s, i) => `${i + 1}. ${s}`).join('\n');
    const detail = steps.map((pl) => `${agentInfo(pl.agent).name}:\n${numbered(pl.steps)}`).join('\n\n');
    const reload = plans.some((pl) => pl.agent === 'roo' || pl.agent === 'kilo');
    const buttons = ['Copy URL', ...(reload ? ['Reload Window'] : [])];
    const title = `Trimline: routed ${names} through ${url}. Left to do:`;
    const choice = await vscode.window.showInformationMessage(title, { modal: true, detail }, ...buttons);
    if (choice === 'Copy URL') await vscode.env.clipboard.writeText(url);
    if (choice === 'Reload Window') await vscode.commands.executeCommand('workbench.action.reloadWindow');
  }

  /** The first request of an agent routed this run: say it arrived. */
  private arrived(seen: ReadonlySet<ClientKind>): void {
    for (const c of ANNOUNCED) {
      if (!this.awaiting.has(c) || !seen.has(c)) continue;
      this.awaiting.delete(c);
      this.deps.log.info(`route: first request from ${CLIENT_LABELS[c]} arrived`);
      const msg = `Trimline: ${CLIENT_LABELS[c]}'s requests now arrive through Trimline.`;
      void vscode.window.showInformationMessage(msg, 'Open Inspector').then((pick) => {
        if (pick) this.deps.openProxyInspector();
      });
    }
  }

  /** Whether agents' settings point at the proxy now (a route is journaled). */
  routed(): boolean {
    return readRecord(this.dir) !== undefined;
  }

  /** Restores every routed file, then stops the proxy. */
  async stop(): Promise<void> {
    const report = restoreRoute(this.dir);
    this.awaiting.clear();
    await this.routing.stop();
    if (!report) {
      void vscode.window.showInformationMessage('Trimline: no VS Code agent is routed.');
      return;
    }
    const conflicts = report.conflicts.length ? `; ${report.conflicts.join('; ')}` : '';
    this.deps.log.info(`route: restored ${report.restored.join(', ') || 'nothing'}${conflicts}`);
    const msg = `Trimline: restored ${report.restored.length} file(s) as they were before routing.`;
    if (report.conflicts.length) void vscode.window.showWarningMessage(`${msg} ${report.conflicts.join('; ')}`);
    else void vscode.window.showInformationMessage(msg);
  }
}
