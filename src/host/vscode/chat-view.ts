/**
 * The Chat webview view in the Trimline activity-bar container. It owns the
 * webview plumbing only: HTML with CSP, message validation, one response per
 * request id. What a request does is decided by the core, loaded on first need.
 */
import * as vscode from 'vscode';
import { parseWebviewMessage, type ChatEvent, type HostMessage, type WebviewRequest } from '../../protocol';
import type { Log } from './log';
import { webviewHtml, webviewOptions } from './webview-html';

export const CHAT_VIEW_ID = 'trimline.chat';

export interface ChatHandlers {
  ready(): Promise<void>;
  request(request: WebviewRequest): Promise<unknown>;
}

export class ChatViewProvider implements vscode.WebviewViewProvider {
  private view?: vscode.WebviewView;
  private ready = false;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: Log,
    private readonly handlers: ChatHandlers,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.ready = false;
    view.webview.options = webviewOptions(this.extensionUri);
    view.webview.html = webviewHtml(view.webview, this.extensionUri, {
      title: 'Trimline Chat',
      script: 'dist/webview/chat.js',
      styles: ['media/chat.css'],
    });
    const subs: vscode.Disposable[] = [
      view.webview.onDidReceiveMessage((raw: unknown) => this.onMessage(raw)),
      view.onDidDispose(() => {
        if (this.view === view) {
          this.view = undefined;
          this.ready = false;
        }
        for (const s of subs) s.dispose();
      }),
    ];
  }

  private onMessage(raw: unknown): void {
    const msg = parseWebviewMessage(raw);
    if (!msg) {
      this.log.warn('chat view: ignored a malformed message');
      return;
    }
    if (msg.type === 'ready') {
      this.ready = true;
      this.handlers.ready().catch((e: unknown) => this.log.error('chat view: restoring the session failed', e));
      return;
    }
    const { id, request } = msg;
    this.handlers.request(request).then(
      (result) => this.post({ type: 'response', id, ok: true, result }),
      (e: unknown) => {
        const error = e instanceof Error ? e.message : String(e);
        this.log.error(`chat request ${request.op} failed`, e);
        this.post({ type: 'response', id, ok: false, error });
      },
    );
  }

  private post(message: HostMessage): void {
    if (this.view && this.ready) void this.view.webview.postMessage(message);
  }

  postEvent(event: ChatEvent): void {
    this.post({ type: 'chat', event });
  }

  get isReady(): boolean {
    return this.ready;
  }

  async reveal(): Promise<void> {
    if (this.view) this.view.show(true);
    else await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
  }
}
