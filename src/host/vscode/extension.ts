/**
 * Extension entry (dist/extension.js). Activation stays light: views, commands,
 * the panel serializer, the status bar and the log are registered here; the agent,
 * engine, tokenizer and SDK live in dist/extension-core.js, required on first use
 * (a message from the chat or the inspector, or a command that needs a session).
 * Every disposable is registered once in `context.subscriptions`.
 */
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import { ROUTE_JOURNAL_FILE } from '../route/journal-name';
import { CHAT_VIEW_ID, ChatViewProvider } from './chat-view';
import type { Core, CreateCore } from './host-types';
import { INSPECTOR_VIEW_TYPE, InspectorPanels } from './inspector-panels';
import { Log } from './log';
import { REPORT_CACHE_FILE_NAME, ReportPanels } from './report-panel';
import { ApiKeyStore } from './secrets';
import { StatusBar } from './status-bar';

const started = performance.now();

export function activate(context: vscode.ExtensionContext): void {
  const t0 = performance.now();
  const log = new Log();
  const keys = new ApiKeyStore(context.secrets);
  const status = new StatusBar();
  context.subscriptions.push(log, status);

  let core: Core | undefined;
  const getCore = (): Core => {
    if (core) return core;
    const t = performance.now();
    // Loaded lazily: the bundle with the SDK and the tokenizer is only read when needed.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require('./extension-core.js') as { createCore: CreateCore };
    core = mod.createCore({
      context,
      log,
      keys,
      postChat: (e) => chat.postEvent(e),
      revealChat: () => chat.reveal(),
      inspectors: () => panels.handles(),
      openInspector: () => panels.openLive(),
      openImportInspector: (file) => panels.openImport(file),
      setStatus: (s) => status.set(s),
      setRouting: (url, agent) => {
        status.setRouting(url, agent);
        void vscode.commands.executeCommand('setContext', 'trimline.routing', url !== undefined);
      },
      openProxyInspector: () => panels.openProxy(),
    });
    context.subscriptions.push(core);
    log.info(`core loaded in ${Math.round(performance.now() - t)} ms`);
    return core;
  };

  const chat = new ChatViewProvider(context.extensionUri, log, {
    ready: () => getCore().chatReady(),
    request: (r) => getCore().chatRequest(r),
  });
  const panels = new InspectorPanels(context.extensionUri, context.workspaceState, log, {
    ready: (p) => getCore().inspectorReady(p),
    request: (p, r) => getCore().inspectorRequest(p, r),
    closed: (p) => core?.inspectorClosed(p),
  });

  const reportCache = vscode.Uri.joinPath(context.globalStorageUri, REPORT_CACHE_FILE_NAME).fsPath;
  const reports = new ReportPanels(
    context.extensionUri,
    log,
    { openInspector: (file, strategy) => panels.openImport(file, strategy) },
    reportCache,
  );

  const run = (name: string, fn: () => unknown): vscode.Disposable =>
    vscode.commands.registerCommand(name, async () => {
      try {
        await fn();
      } catch (e) {
        log.error(`${name} failed`, e);
        void vscode.window.showErrorMessage(`Trimline: ${e instanceof Error ? e.message : String(e)}`);
      }
    });

  context.subscriptions.push(
    panels,
    vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, chat, {
      webviewOptions: { retainContextWhenHidden: false },
    }),
    vscode.window.registerWebviewPanelSerializer(INSPECTOR_VIEW_TYPE, panels),
    run('trimline.newChat', async () => {
      await chat.reveal();
      await getCore().newChat();
    }),
    run('trimline.resumeSession', () => getCore().resumeSession()),
    run('trimline.openInspector', () => panels.openLive()),
    run('trimline.setApiKey', async () => {
      if (await keys.prompt()) void vscode.window.showInformationMessage('Trimline: API key saved in Secret Storage.');
    }),
    run('trimline.clearApiKey', async () => {
      await keys.clear();
      void vscode.window.showInformationMessage('Trimline: API key removed from Secret Storage.');
    }),
    run('trimline.importTranscript', () => getCore().importTranscript()),
    run('trimline.compactNow', () => getCore().compactNow()),
    run('trimline.exportSession', () => getCore().exportSession()),
    run('trimline.showLog', () => log.show()),
    reports,
    run('trimline.report', () => reports.run()),
    run('trimline.routeTerminals', () => getCore().routeTerminals()),
    run('trimline.stopRouting', () => getCore().stopRouting()),
    run('trimline.openProxyInspector', () => panels.openProxy()),
    run('trimline.pickProxiedSession', () => getCore().pickProxiedSession()),
    run('trimline.routeAgents', () => getCore().routeAgents()),
    run('trimline.stopRoutingAgents', () => getCore().stopRoutingAgents()),
    keys.onDidChange(() => core?.configChanged()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('trimline')) core?.configChanged();
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => core?.trustChanged()),
  );

  // Agents routed before VS Code closed point at the proxy's port: serve it again (the route's
  // undo record exists only while agents are routed; a plain stat keeps activation light).
  if (existsSync(vscode.Uri.joinPath(context.globalStorageUri, ROUTE_JOURNAL_FILE).fsPath)) {
    void getCore()
      .resumeAgentRouting()
      .catch((e: unknown) => log.error('route: resume failed', e));
  }

  const activateMs = performance.now() - t0;
  log.info(
    `Trimline ${String((context.extension.packageJSON as { version?: unknown }).version)} activated in ` +
      `${activateMs.toFixed(1)} ms (module evaluated ${(t0 - started).toFixed(1)} ms before activate)`,
  );
}

export function deactivate(): void {
  // Everything is in context.subscriptions.
}
