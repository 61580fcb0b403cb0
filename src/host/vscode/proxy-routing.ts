/**
 * "Route Terminal Agents Through Trimline": the proxy (src/host/proxy) runs in the extension
 * host, and new integrated terminals get `ANTHROPIC_BASE_URL` pointing at it through the
 * extension's environmentVariableCollection, so Claude Code or any SDK program started there
 * shows its live context in the inspector. "Stop Routing" closes the proxy and removes the
 * variable. The collection is not persistent: after a reload no terminal points at a dead port.
 * The inspector panel of terminal agents gets its snapshots and sends its actions through this
 * host (postMessage), never over HTTP, so it needs no access token; the proxy's own browser
 * inspector on the port needs the per-launch token (src/host/access-token.ts), which is never
 * shown here, so other local accounts cannot read or steer the proxied sessions.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ProxyEngine, SessionState } from '../../core/proxy/proxy-engine';
import type { HostMessage, WebviewRequest } from '../../protocol';
import { CLIENT_LABELS, type ClientKind } from '../../core/proxy/client-kind';
import { SessionFollower } from '../../core/proxy/session-list';
import { startProxy, type ProxyHandle } from '../proxy/server';
import type { CoreDeps, InspectorHandle } from './host-types';

/** Pushes to the proxy's inspector panels are coalesced to this interval. */
const PUSH_MS = 200;

export interface RoutingSettings {
  readonly strategy: string;
  readonly upstream: string | undefined;
  /** trimline.proxy.cacheDiagnostics: ask the API why calls miss the cache. */
  readonly cacheDiagnostics?: boolean;
}

export class ProxyRouting implements vscode.Disposable {
  private proxy?: ProxyHandle;
  private timer?: NodeJS.Timeout;
  /** The session the panel shows: the one the user picked, else the most recently active. */
  private readonly follower = new SessionFollower();

  constructor(
    private readonly deps: CoreDeps,
    private readonly settings: () => RoutingSettings,
  ) {}

  get url(): string | undefined {
    return this.proxy?.url;
  }

  get engine(): ProxyEngine | undefined {
    return this.proxy?.engine;
  }

  /** Starts the proxy (on `port` when given: the one routed agents' settings name) and routes new terminals. */
  async start(port?: number): Promise<string> {
    if (this.proxy) return this.proxy.url;
    const s = this.settings();
    const journalDir = path.join(this.deps.context.globalStorageUri.fsPath, 'proxy-sessions');
    this.proxy = await startProxy({
      port,
      strategy: s.strategy,
      upstream: s.upstream || undefined,
      journalDir,
      log: (line) => this.deps.log.info(`proxy: ${line}`),
      onChange: () => this.schedule(),
      cacheDiagnostics: s.cacheDiagnostics,
      notice: (line) => this.deps.log.warn(`proxy: ${line}`),
    });
    const env = this.deps.context.environmentVariableCollection;
    env.persistent = false;
    env.description = new vscode.MarkdownString(
      `Trimline routes Anthropic API calls of new terminals through its proxy at \`${this.proxy.url}\` (strategy ` +
        `\`${s.strategy}\`), so their context shows in the Context Inspector.`,
    );
    env.replace('ANTHROPIC_BASE_URL', this.proxy.url);
    this.deps.log.info(
      `proxy: routing terminals through ${this.proxy.url} to ${this.proxy.upstream.origin} (strategy ${s.strategy})`,
    );
    this.deps.setRouting(this.proxy.url);
    return this.proxy.url;
  }

  async stop(): Promise<void> {
    this.deps.context.environmentVariableCollection.clear();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const p = this.proxy;
    this.proxy = undefined;
    this.deps.setRouting(undefined);
    await p?.close();
    this.push();
    this.deps.log.info('proxy: routing stopped');
  }

  /** The session the inspector shows: the one the user picked, else the most recently active. */
  private current(): SessionState | undefined {
    const engine = this.proxy?.engine;
    return this.follower.current(engine);
  }

  /** The snapshot of the session the proxy inspector shows, or the empty state. */
  message(): HostMessage {
    const snapshot = this.current()?.inspector.snapshot();
    return snapshot ? { type: 'snapshot', snapshot } : { type: 'empty', actions: [] };
  }

  /** Let the user pick which proxied session the inspector shows (or go back to following the latest). */
  async pick(): Promise<boolean> {
    const engine = this.proxy?.engine;
    if (!engine) throw new Error('Not routing: run "Trimline: Route Terminal Agents Through Trimline" first.');
    type Item = vscode.QuickPickItem & { id?: string };
    const items: Item[] = [
      { label: '$(pulse) Follow the most recently active session', picked: this.follower.followed === undefined },
    ];
    for (const e of [...engine.sessions.all()].sort((a, b) => b.lastSeen - a.lastSeen)) {
      const st = engine.state(e.id);
      const calls = e.session.calls.length;
      const from = e.client ? `${CLIENT_LABELS[e.client]} · ` : '';
      items.push({
        id: e.id,
        label: st?.inspector.snapshot()?.title ?? e.id,
        description: `${from}${calls} call${calls === 1 ? '' : 's'} · ${e.session.messages.length} messages`,
        detail: `${e.id} · last call ${new Date(e.lastSeen).toLocaleTimeString()}`,
        picked: this.follower.followed === e.id,
      });
    }
    const choice = await vscode.window.showQuickPick(items, {
      title: 'Proxied sessions (terminal agents)',
      placeHolder: 'Which session should the inspector of terminal agents show?',
    });
    if (!choice) return false;
    this.follower.followed = choice.id;
    this.push();
    return true;
  }

  handle(req: WebviewRequest): unknown {
    if (req.op === 'sessions') return this.follower.list(this.proxy?.engine);
    if (req.op === 'follow') {
      const result = this.follower.follow(this.proxy?.engine, req.id);
      this.push();
      return result;
    }
    const st = this.current();
    if (!st) throw new Error('No proxied session yet: run Claude Code or an SDK program in a new terminal.');
    const result = st.inspector.handle(req);
    this.deps.log.info(
      `proxy inspector: ${req.op}${'blockId' in req ? ` ${req.blockId}` : ''} (applies to the client's next call)`,
    );
    this.push();
    return result;
  }

  push(): void {
    const msg = this.message();
    for (const p of this.panels()) p.post(msg);
    const client = this.current()?.entry.client;
    if (this.proxy) this.deps.setRouting(this.proxy.url, client && CLIENT_LABELS[client]);
    for (const l of this.listeners) l(this.clients());
  }

  /** Called after each push with the agents whose sessions the proxy has seen. */
  readonly listeners: ((clients: ReadonlySet<ClientKind>) => void)[] = [];

  /** The agents whose sessions the proxy has seen this run. */
  clients(): ReadonlySet<ClientKind> {
    const out = new Set<ClientKind>();
    for (const e of this.proxy?.engine.sessions.all() ?? []) if (e.client) out.add(e.client);
    return out;
  }

  private panels(): InspectorHandle[] {
    return this.deps.inspectors().filter((p) => p.source.kind === 'proxy' && p.visible);
  }

  /** A proxied call started or ended: refresh the open panels (coalesced). */
  private schedule(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.push();
    }, PUSH_MS);
  }

  dispose(): void {
    void this.stop();
  }
}
