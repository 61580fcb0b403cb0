/**
 * The routing commands of the extension: terminals through the local proxy (its inspector
 * panel, its sessions, stopping it) and VS Code agents through it (agent-routing.ts). The
 * proxy's settings are `trimline.proxy.*`, read when routing starts.
 */
import * as vscode from 'vscode';
import type { HostMessage, WebviewRequest } from '../../protocol';
import { AgentRouting } from './agent-routing';
import type { CoreDeps } from './host-types';
import { ProxyRouting } from './proxy-routing';

export class RoutingCommands {
  private readonly routing: ProxyRouting;
  private readonly agents: AgentRouting;

  constructor(private readonly deps: CoreDeps) {
    this.routing = new ProxyRouting(deps, () => {
      const cfg = vscode.workspace.getConfiguration('trimline.proxy');
      return {
        strategy: cfg.get<string>('strategy') || 'none',
        upstream: cfg.get<string>('upstream') || undefined,
        cacheDiagnostics: cfg.get<boolean>('cacheDiagnostics') ?? false,
      };
    });
    this.agents = new AgentRouting(deps, this.routing);
  }

  /** What the proxy inspector shows first. */
  inspectorMessage(): HostMessage {
    return this.routing.message();
  }

  /** A request of the proxy inspector. */
  inspectorRequest(req: WebviewRequest): unknown {
    if (req.op === 'setStrategy')
      throw new Error("The proxy's strategy is the setting trimline.proxy.strategy (restart routing to apply it).");
    return this.routing.handle(req);
  }

  async routeTerminals(): Promise<void> {
    if (!vscode.workspace.isTrusted)
      throw new Error('Routing terminals is off in Restricted Mode: trust the workspace first.');
    const url = await this.routing.start();
    this.deps.openProxyInspector();
    void vscode.window
      .showInformationMessage(
        `Trimline: new terminals send Anthropic API calls through ${url}. ` +
          'Start Claude Code (or any SDK program) in a new terminal to see its context.',
        'New Terminal',
      )
      .then((pick) => {
        if (pick) vscode.window.createTerminal({ name: 'Trimline-routed' }).show();
      });
  }

  async pickProxiedSession(): Promise<void> {
    if (await this.routing.pick()) this.deps.openProxyInspector();
  }

  async stopRouting(): Promise<void> {
    if (!this.routing.url) {
      void vscode.window.showInformationMessage('Trimline: terminals are not routed through Trimline.');
      return;
    }
    await this.routing.stop();
    const agents = this.agents.routed()
      ? ' VS Code agents routed through it point at a closed port: run "Trimline: Stop Routing VS Code Agents".'
      : '';
    void vscode.window.showInformationMessage(
      'Trimline: routing stopped. ' +
        `Terminals opened while routing keep the old ANTHROPIC_BASE_URL until they are closed.${agents}`,
    );
  }

  routeAgents(): Promise<void> {
    return this.agents.route();
  }

  stopRoutingAgents(): Promise<void> {
    return this.agents.stop();
  }

  resumeAgentRouting(): Promise<void> {
    return this.agents.resume();
  }

  dispose(): void {
    this.routing.dispose();
  }
}
