/**
 * The heavy core of the extension (dist/extension-core.js), created on first use:
 * the live chat session, approvals, the workspace adapter, inspector backends
 * (live session; imported transcripts in import-inspectors.ts) and the session commands;
 * routing commands are in routing-commands.ts.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ChatEvent, HostMessage, WebviewRequest } from '../../protocol';
import { Approvals, PROPOSED_SCHEME } from './approvals';
import { ImportInspectors } from './import-inspectors';
import { ChatTranscript } from './chat-transcript';
import { readSettings, type TrimlineSettings } from './config-map';
import { LIVE_EMPTY_ACTIONS, type Core, type CoreDeps, type InspectorHandle } from './host-types';
import { LiveSession } from './live-session';
import { McpHost } from './mcp-host';
import { totalInput } from '../../core/session/types';
import { compactSession, exportSession, loadTranscript, pickSession, pickTranscript } from './session-commands';
import { RoutingCommands } from './routing-commands';
import { VscodeWorkspace } from './workspace-adapter';

const LAST_SESSION_KEY = 'trimline.lastSessionId';
/** Snapshots are pushed at most this often while the agent works (each is a full typed object). */
const SNAPSHOT_THROTTLE_MS = 150;

export const RESTRICTED_NOTICE =
  'Restricted Mode: this workspace is not trusted, so Trimline can read and search files ' +
  'but edit_file, write_file and run_command are off. ' +
  'Trust the workspace ("Manage Workspace Trust") to turn them on.';

class TrimlineCore implements Core {
  private live?: LiveSession;
  private opening?: Promise<LiveSession>;
  private readonly transcript: ChatTranscript;
  private readonly approvals: Approvals;
  private readonly mcp: McpHost;
  private readonly workspace?: VscodeWorkspace;
  private readonly imports: ImportInspectors;
  private readonly disposables: vscode.Disposable[] = [];
  private snapshotTimer?: NodeJS.Timeout;
  private readonly routing: RoutingCommands;

  constructor(private readonly deps: CoreDeps) {
    const { log } = deps;
    this.routing = new RoutingCommands(deps);
    this.imports = new ImportInspectors(() => this.settings(), log);
    this.transcript = new ChatTranscript((e) => deps.postChat(e));
    this.approvals = new Approvals(
      (e) => this.transcript.push(e),
      () => this.settings().approval,
      (line) => log.info(line),
    );
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (folder) {
      this.workspace = new VscodeWorkspace(folder.uri, {
        approveEdit: this.approvals.edit,
        onEdited: (p) => log.info(`${p.isNew ? 'created' : 'edited'} ${p.path} (undoable edit, saved)`),
      });
    }
    this.mcp = new McpHost(folder?.uri.fsPath, {
      secrets: deps.context.secrets,
      log,
      approvals: this.approvals,
      changed: () => this.changed(false),
    });
    this.disposables.push(
      this.approvals,
      this.mcp,
      vscode.workspace.registerTextDocumentContentProvider(PROPOSED_SCHEME, this.approvals),
    );
  }

  private settings(): TrimlineSettings {
    const cfg = vscode.workspace.getConfiguration('trimline');
    return readSettings((k) => cfg.get(k));
  }

  private get dir(): string {
    const base = this.deps.context.storageUri ?? this.deps.context.globalStorageUri;
    return path.join(base.fsPath, 'sessions');
  }

  private workspaceEvent(): ChatEvent {
    if (!this.workspace)
      return {
        kind: 'workspace',
        trusted: vscode.workspace.isTrusted,
        notice: 'Open a folder to let Trimline work on its files.',
      };
    return vscode.workspace.isTrusted
      ? { kind: 'workspace', trusted: true }
      : { kind: 'workspace', trusted: false, notice: RESTRICTED_NOTICE };
  }

  private async open(sessionId?: string): Promise<LiveSession> {
    if (!this.workspace) throw new Error('Open a folder first: Trimline works on the files of a workspace folder.');
    const workspace = this.workspace;
    const opening = LiveSession.open(
      {
        dir: this.dir,
        workspace,
        approvals: this.approvals,
        log: this.deps.log,
        transcript: this.transcript,
        settings: () => this.settings(),
        apiKey: async () => (await this.deps.keys.get()).key,
        mcpTools: () => this.mcp.tools(),
        changed: (busy) => this.changed(busy),
      },
      sessionId,
    );
    this.opening = opening;
    try {
      const live = await opening;
      this.live?.close();
      this.live = live;
      void this.deps.context.workspaceState.update(LAST_SESSION_KEY, live.sessionId);
      this.changed(false);
      return live;
    } finally {
      this.opening = undefined;
    }
  }

  private async session(): Promise<LiveSession> {
    return this.live ?? (await (this.opening ?? this.open()));
  }

  private replayChat(): void {
    const status: ChatEvent = this.live ? this.live.statusEvent() : { kind: 'status', busy: false, title: 'New chat' };
    this.transcript.replay(status, this.workspaceEvent());
  }

  /** Status bar now; inspector snapshots soon (coalesced while the agent streams). */
  private changed(busy: boolean): void {
    this.deps.setStatus(this.live?.status(busy));
    if (this.snapshotTimer) return;
    this.snapshotTimer = setTimeout(() => {
      this.snapshotTimer = undefined;
      this.pushLive();
    }, SNAPSHOT_THROTTLE_MS);
  }

  private pushLive(): void {
    const panels = this.deps.inspectors().filter((p) => p.source.kind === 'live' && p.visible);
    if (!panels.length) return;
    const msg = this.liveSnapshot();
    const mcp = this.mcpMessage();
    for (const p of panels) {
      p.post(msg);
      if (mcp) p.post(mcp);
    }
  }

  /** The inspector's MCP section (tokens per server and tool definition), when servers run. */
  private mcpMessage(): HostMessage | undefined {
    const loop = this.live?.loop;
    const tokens = (t: string): number => (loop ? loop.engine.tokens.text(t).tokens : Math.ceil(t.length / 4));
    const toolsTokens = (loop?.session.tools ?? []).reduce((sum, d) => sum + tokens(JSON.stringify(d)), 0);
    const last = loop?.session.calls.at(-1)?.usage;
    const info = this.mcp.inspectorInfo(
      tokens,
      toolsTokens,
      last ? totalInput(last) : 0,
      loop?.config.model ?? this.settings().model,
    );
    return info ? { type: 'mcp', info } : undefined;
  }

  /** The live session's snapshot, or the empty state (with what to do) while it has none. */
  private liveSnapshot(): HostMessage {
    const snapshot = this.live?.inspector.snapshot();
    return snapshot ? { type: 'snapshot', snapshot } : { type: 'empty', actions: [...LIVE_EMPTY_ACTIONS] };
  }

  /** After a reload: reopen the session the chat showed last (once, whoever asks first). */
  private async restoreLast(): Promise<void> {
    if (this.opening) {
      await this.opening.catch(() => undefined);
      return;
    }
    const last = this.deps.context.workspaceState.get<string>(LAST_SESSION_KEY);
    if (this.live || !last || !this.workspace) return;
    try {
      await this.open(last);
    } catch (e) {
      this.deps.log.warn(`could not restore session ${last}: ${e instanceof Error ? e.message : String(e)}`);
      void this.deps.context.workspaceState.update(LAST_SESSION_KEY, undefined);
    }
  }

  async chatReady(): Promise<void> {
    await this.restoreLast();
    this.replayChat();
  }

  async chatRequest(req: WebviewRequest): Promise<unknown> {
    switch (req.op) {
      case 'send':
        await (await this.session()).send(req.text);
        return undefined;
      case 'stop':
        this.live?.stop();
        return undefined;
      case 'retry':
        await (await this.session()).retry();
        return undefined;
      case 'approve':
        this.approvals.answer(req.requestId, req.approved, req.always);
        return undefined;
      case 'showDiff':
        await this.approvals.showDiff(req.requestId);
        return undefined;
      case 'newChat':
        await this.newChat();
        return undefined;
      case 'resume':
        await this.resumeSession();
        return undefined;
      case 'openInspector':
        this.deps.openInspector();
        return undefined;
      case 'setApiKey':
        if (await this.deps.keys.prompt()) this.configChanged();
        return undefined;
      case 'compact':
        await this.compactNow();
        return undefined;
      default:
        throw new Error(`${req.op} is not a chat request`);
    }
  }

  async inspectorReady(panel: InspectorHandle): Promise<void> {
    if (panel.source.kind === 'proxy') {
      panel.post(this.routing.inspectorMessage());
      return;
    }
    if (panel.source.kind === 'live') {
      await this.restoreLast();
      panel.post(this.liveSnapshot());
      const mcp = this.mcpMessage();
      if (mcp) panel.post(mcp);
      return;
    }
    this.imports.ready(panel);
  }

  async inspectorRequest(panel: InspectorHandle, req: WebviewRequest): Promise<unknown> {
    if (panel.source.kind === 'proxy') return this.routing.inspectorRequest(req);
    if (panel.source.kind === 'import') return this.imports.request(panel, req);
    if (req.op === 'setStrategy') {
      await vscode.workspace
        .getConfiguration('trimline')
        .update('strategy', req.spec, vscode.ConfigurationTarget.Global);
      return { message: `Strategy set to ${req.spec}: it applies from the next turn.` };
    }
    if (req.op === 'mcpSwitch' || req.op === 'mcpApply') {
      const result = this.mcp.handle(req);
      this.changed(this.live?.running ?? false);
      return result;
    }
    const live = this.live;
    if (!live) throw new Error('No session yet: send a prompt in the Trimline chat first.');
    const result = live.inspector.handle(req);
    if (req.op !== 'originals' && req.op !== 'diff' && req.op !== 'price' && req.op !== 'head') {
      live.overlaysChanged();
      this.deps.log.info(`inspector: ${req.op}${'blockId' in req ? ` ${req.blockId}` : ''}`);
      this.changed(live.running);
      this.pushLive();
    }
    return result;
  }

  inspectorClosed(panel: InspectorHandle): void {
    this.imports.closed(panel);
  }

  async newChat(): Promise<void> {
    if (this.live) {
      this.live.stop();
      this.live.close();
      this.live = undefined;
    }
    this.approvals.denyAll();
    this.transcript.clear();
    void this.deps.context.workspaceState.update(LAST_SESSION_KEY, undefined);
    this.replayChat();
    this.deps.setStatus(undefined);
    this.pushLive();
  }

  async resumeSession(): Promise<void> {
    const id = await pickSession(this.dir, this.live?.sessionId);
    if (!id || id === this.live?.sessionId) return;
    if (this.live?.running) this.live.stop();
    await this.open(id);
    await this.deps.revealChat();
    this.replayChat();
    this.pushLive();
  }

  async compactNow(): Promise<void> {
    if (!this.live) throw new Error('No session to compact: start a chat first.');
    const message = await compactSession(this.live, this.deps.log);
    if (!message) return;
    this.transcript.push({ kind: 'notice', text: message });
    this.changed(false);
    this.pushLive();
  }

  async exportSession(): Promise<void> {
    if (!this.live) throw new Error('No session to export: start a chat first.');
    await exportSession(this.live, this.deps.log);
  }

  async importTranscript(): Promise<void> {
    const file = await pickTranscript();
    if (!file) return;
    loadTranscript(file); // fail here, with the parser's one-line message, rather than in an empty panel
    this.deps.openImportInspector(file);
  }

  // The routing commands (routing-commands.ts).
  readonly routeTerminals = (): Promise<void> => this.routing.routeTerminals();
  readonly pickProxiedSession = (): Promise<void> => this.routing.pickProxiedSession();
  readonly stopRouting = (): Promise<void> => this.routing.stopRouting();
  readonly routeAgents = (): Promise<void> => this.routing.routeAgents();
  readonly stopRoutingAgents = (): Promise<void> => this.routing.stopRoutingAgents();
  readonly resumeAgentRouting = (): Promise<void> => this.routing.resumeAgentRouting();

  configChanged(): void {
    this.live?.markStale();
    this.deps.log.info('settings or API key changed: applied from the next turn');
  }

  trustChanged(): void {
    this.mcp.markDirty('workspace trust');
    this.deps.postChat(this.workspaceEvent());
    this.deps.log.info(`workspace trust: ${vscode.workspace.isTrusted ? 'trusted' : 'restricted'}`);
  }

  dispose(): void {
    if (this.snapshotTimer) clearTimeout(this.snapshotTimer);
    this.live?.close();
    this.routing.dispose();
    for (const d of this.disposables) d.dispose();
  }
}

export function createCore(deps: CoreDeps): Core {
  return new TrimlineCore(deps);
}
