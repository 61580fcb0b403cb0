/**
 * The Context Inspector as webview panels (editor tabs): one that follows the live
 * chat session, plus one per imported transcript. Panels are restored after a
 * window reload by the serializer; an import panel finds its file again by title.
 * While the live panel has no session it shows an empty state whose buttons run
 * commands (`runAction`, only the actions the host offered it); an import made then
 * is shown in that panel instead of a new tab.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { SnapshotStream } from '../../protocol/delta';
import { parseWebviewMessage, type HostMessage, type InspectorAction, type WebviewRequest } from '../../protocol';
import { INSPECTOR_ACTION_COMMANDS, type InspectorHandle, type InspectorSource } from './host-types';
import type { Log } from './log';
import { inspectorDocument } from './inspector-html';
import { webviewOptions } from './webview-html';

export const INSPECTOR_VIEW_TYPE = 'trimline.inspector';
const LIVE_TITLE = 'Context Inspector';
const PROXY_TITLE = 'Inspector: Terminal Agents';
const IMPORTS_KEY = 'trimline.inspectorImports';

/** A stored import tab: its file (older entries), or its file and the strategy it was opened with. */
type StoredImport = string | { file: string; strategy: string };

function importSource(stored: StoredImport): InspectorSource {
  return typeof stored === 'string'
    ? { kind: 'import', file: stored }
    : { kind: 'import', file: stored.file, strategy: stored.strategy };
}

export interface InspectorHandlers {
  ready(panel: InspectorHandle): Promise<void>;
  request(panel: InspectorHandle, request: WebviewRequest): Promise<unknown>;
  closed(panel: InspectorHandle): void;
}

class Panel implements InspectorHandle {
  ready = false;
  /** The actions of the empty state the panel shows (empty while it shows a session). */
  offered: ReadonlySet<InspectorAction> = new Set();
  /** Whether the last message sent was the empty state. */
  empty = false;
  /** What this panel's webview was last sent: snapshots after the first go as deltas against it. */
  readonly stream = new SnapshotStream();
  constructor(
    readonly panel: vscode.WebviewPanel,
    public source: InspectorSource,
  ) {}
  get visible(): boolean {
    return this.panel.visible;
  }
  post(message: HostMessage): void {
    if (!this.ready) return;
    if (message.type === 'empty' || message.type === 'snapshot') {
      this.empty = message.type === 'empty';
      this.offered = new Set(message.type === 'empty' ? message.actions : []);
    }
    if (message.type === 'empty') this.stream.reset();
    const sent = message.type === 'snapshot' ? this.stream.next(message.snapshot) : message;
    void this.panel.webview.postMessage(sent).then((delivered) => {
      // A message the webview never got (it was being disposed or reloaded): start over whole.
      if (!delivered) this.stream.reset();
    });
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
    const panel = vscode.window.createWebviewPanel(
      INSPECTOR_VIEW_TYPE,
      LIVE_TITLE,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
      this.options(),
    );
    this.attach(panel, { kind: 'live' });
  }

  /** Reveal the inspector of proxied sessions (terminal agents), or open it beside the editor. */
  openProxy(): void {
    const existing = [...this.panels].find((p) => p.source.kind === 'proxy');
    if (existing) {
      existing.panel.reveal(undefined, true);
      return;
    }
    const panel = vscode.window.createWebviewPanel(
      INSPECTOR_VIEW_TYPE,
      PROXY_TITLE,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      this.options(),
    );
    this.attach(panel, { kind: 'proxy' });
  }

  /**
   * Open an imported transcript: in the live panel if it shows the empty state, else in a
   * new tab; `strategy` (from the report view) replays it through that strategy instead of
   * the `trimline.strategy` setting (the tab's title names it).
   */
  openImport(file: string, strategy?: string): void {
    const title = `Inspector: ${path.basename(file)}${strategy ? ` (${strategy})` : ''}`;
    const source: InspectorSource = strategy ? { kind: 'import', file, strategy } : { kind: 'import', file };
    const imports: Record<string, StoredImport> = {
      ...this.storedImports(),
      [title]: strategy ? { file, strategy } : file,
    };
    void this.state.update(IMPORTS_KEY, imports);
    const empty = [...this.panels].find((p) => p.source.kind === 'live' && p.empty);
    if (!empty) {
      const panel = vscode.window.createWebviewPanel(
        INSPECTOR_VIEW_TYPE,
        title,
        { viewColumn: vscode.ViewColumn.Active },
        this.options(),
      );
      this.attach(panel, source);
      return;
    }
    // The empty live panel becomes the import's (restored as such after a reload: by its title).
    empty.source = source;
    empty.empty = false;
    empty.offered = new Set();
    empty.panel.title = title;
    empty.panel.reveal(undefined, false);
    this.log.info(`inspector: the empty live panel now shows ${file}`);
    if (empty.ready)
      this.handlers.ready(empty).catch((e: unknown) => this.log.error('inspector: first snapshot failed', e));
  }

  /** Imports open in tabs, by title (a file, or a file and the strategy it was opened with). */
  private storedImports(): Record<string, StoredImport> {
    return this.state.get<Record<string, StoredImport>>(IMPORTS_KEY, {});
  }

  /** Called by VS Code after a reload for every inspector tab that was open. */
  async deserializeWebviewPanel(panel: vscode.WebviewPanel): Promise<void> {
    const stored = panel.title === LIVE_TITLE ? undefined : this.storedImports()[panel.title];
    panel.webview.options = this.options();
    this.attach(
      panel,
      panel.title === PROXY_TITLE ? { kind: 'proxy' } : stored !== undefined ? importSource(stored) : { kind: 'live' },
    );
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
        if (p.source.kind === 'import') {
          const imports = { ...this.storedImports() };
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
      // A new webview, or one whose snapshot no longer fits the deltas: the next snapshot goes whole.
      p.ready = true;
      p.stream.reset();
      this.handlers.ready(p).catch((e: unknown) => this.log.error('inspector: first snapshot failed', e));
      return;
    }
    const { id, request } = msg;
    const handled = request.op === 'runAction' ? this.runAction(p, request.action) : this.handlers.request(p, request);
    handled.then(
      (result) => p.post({ type: 'response', id, ok: true, result }),
      (e: unknown) => {
        this.log.error(`inspector request ${request.op} failed`, e);
        p.post({ type: 'response', id, ok: false, error: e instanceof Error ? e.message : String(e) });
      },
    );
  }

  /** An empty-state button: runs its command, if the panel was offered that action. */
  private async runAction(p: Panel, action: InspectorAction): Promise<undefined> {
    if (!p.offered.has(action)) throw new Error(`"${action}" is not offered by this inspector`);
    this.log.info(`inspector: ${action} from the empty state`);
    await vscode.commands.executeCommand(INSPECTOR_ACTION_COMMANDS[action]);
    return undefined;
  }

  dispose(): void {
    for (const p of [...this.panels]) p.panel.dispose();
  }
}
