/**
 * The Context Inspector as webview panels (editor tabs): one that follows the live
 * chat session, plus one per imported transcript. Panels are restored after a
 * window reload by the serializer; an import panel finds its file again by title.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { parseWebviewMessage, type HostMessage, type WebviewRequest } from '../../protocol';
import type { InspectorHandle, InspectorSource } from './host-types';
import type { Log } from './log';
import { inspectorDocument } from './inspector-html';
import { webviewOptions } from './webview-html';

export const INSPECTOR_VIEW_TYPE = 'trimline.inspector';
const LIVE_TITLE = 'Context Inspector';
const IMPORTS_KEY = 'trimline.inspectorImports';

export interface InspectorHandlers {
  ready(panel: InspectorHandle): Promise<void>;
  request(panel: InspectorHandle, request: WebviewRequest): Promise<unknown>;
  closed(panel: InspectorHandle): void;
}

class Panel implements InspectorHandle {
  ready = false;
  constructor(
    readonly panel: vscode.WebviewPanel,
    readonly source: InspectorSource,
  ) {}
  get visible(): boolean {
    return this.panel.visible;
  }
  post(message: HostMessage): void {
    if (this.ready) void this.panel.webview.postMessage(message);
  }
}

export class InspectorPanels implements vscode.WebviewPanelSerializer, vscode.Disposable {
  private readonly panels = new Set<Panel>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly state: vscode.Memento,
    private readonly log: Log,
    private readonly handlers: InspectorHandlers,
  ) {}

  handles(): readonly InspectorHandle[] {
    return [...this.panels];
  }

  /** Reveal the live inspector, or open it beside the editor. */
  openLive(): void {
    const existing = [...this.panels].find((p) => p.source.kind === 'live');
    if (existing) {
      existing.panel.reveal(undefined, true);
      return;
    }
    const panel = vscode.window.createWebviewPanel(INSPECTOR_VIEW_TYPE, LIVE_TITLE, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false }, this.options());
    this.attach(panel, { kind: 'live' });
  }

  openImport(file: string): void {
    const title = `Inspector: ${path.basename(file)}`;
    const panel = vscode.window.createWebviewPanel(INSPECTOR_VIEW_TYPE, title, { viewColumn: vscode.ViewColumn.Active }, this.options());
    const imports = { ...this.state.get<Record<string, string>>(IMPORTS_KEY, {}), [title]: file };
    void this.state.update(IMPORTS_KEY, imports);
    this.attach(panel, { kind: 'import', file });
  }

  /** Called by VS Code after a reload for every inspector tab that was open. */
  async deserializeWebviewPanel(panel: vscode.WebviewPanel): Promise<void> {
    const file = panel.title === LIVE_TITLE ? undefined : this.state.get<Record<string, string>>(IMPORTS_KEY, {})[panel.title];
    panel.webview.options = this.options();
    this.attach(panel, file ? { kind: 'import', file } : { kind: 'live' });
  }

  private options(): vscode.WebviewPanelOptions & vscode.WebviewOptions {
    return { ...webviewOptions(this.extensionUri), retainContextWhenHidden: false, enableFindWidget: true };
  }

  private attach(panel: vscode.WebviewPanel, source: InspectorSource): void {
    const p = new Panel(panel, source);
    this.panels.add(p);
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'inspector.svg');
    panel.webview.html = inspectorDocument(panel.webview, this.extensionUri);
    const subs: vscode.Disposable[] = [
      panel.webview.onDidReceiveMessage((raw: unknown) => this.onMessage(p, raw)),
      panel.onDidDispose(() => {
        this.panels.delete(p);
        for (const s of subs) s.dispose();
        if (source.kind === 'import') {
          const imports = { ...this.state.get<Record<string, string>>(IMPORTS_KEY, {}) };
          delete imports[panel.title];
          void this.state.update(IMPORTS_KEY, imports);
        }
        this.handlers.closed(p);
      }),
    ];
  }

  private onMessage(p: Panel, raw: unknown): void {
    const msg = parseWebviewMessage(raw);
    if (!msg) {
      this.log.warn('inspector: ignored a malformed message');
      return;
    }
    if (msg.type === 'ready') {
      p.ready = true;
      this.handlers.ready(p).catch((e: unknown) => this.log.error('inspector: first snapshot failed', e));
      return;
    }
    const { id, request } = msg;
    this.handlers.request(p, request).then(
      (result) => p.post({ type: 'response', id, ok: true, result }),
      (e: unknown) => {
        this.log.error(`inspector request ${request.op} failed`, e);
        p.post({ type: 'response', id, ok: false, error: e instanceof Error ? e.message : String(e) });
      },
    );
  }

  dispose(): void {
    for (const p of [...this.panels]) p.panel.dispose();
  }
}
