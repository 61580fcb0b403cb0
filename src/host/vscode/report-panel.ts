/**
 * "Trimline: What Would Trimming Have Saved?": scans Claude Code's projects
 * directory (or folders the user picks) with a cancellable progress
 * notification, then shows the report in a webview panel under the same CSP,
 * nonce and typed-protocol rules as the inspector. Clicking a session opens
 * it in the inspector replayed through the strategy the user chose (the
 * view's selector, or the strategy's cell in the session's row).
 */
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import { parseReportWebviewMessage, type ReportHostMessage } from '../../protocol/report';
import type { Report } from '../../protocol/report-types';
import type { Log } from './log';
import { webviewHtml, webviewOptions } from './webview-html';

export const REPORT_VIEW_TYPE = 'trimline.report';
const TITLE = 'What Would Trimming Have Saved?';
/** The report's per-file cache, under the extension's globalStorage. */
export const REPORT_CACHE_FILE_NAME = 'report-cache.json';
/** Strategies priced in the editor: the baseline and the default pipeline. */
const STRATEGIES: readonly string[] = ['none', 'default'];

type ReportCore = typeof import('./report-core');

export interface ReportPanelHooks {
  /** Open a transcript in the inspector. */
  openInspector(file: string, strategy: string): void;
}

export class ReportPanels implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private last: Report | undefined;
  private ready = false;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: Log,
    private readonly hooks: ReportPanelHooks,
    /** The per-file cache (in the extension's globalStorage): a second run reads only what changed. */
    private readonly cacheFile: string,
  ) {}

  /** The command: pick the folder when the default one is missing, scan with progress, show. */
  async run(paths?: string[]): Promise<void> {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const core = require('./report-core.js') as ReportCore;
    let roots = paths ?? [core.defaultProjectsDir()];
    if (!paths && !existsSync(roots[0])) {
      const picked = await vscode.window.showOpenDialog({
        canSelectFolders: true,
        canSelectMany: true,
        openLabel: 'Report on these folders',
        title: `No Claude Code projects at ${roots[0]}: pick transcript folders`,
      });
      if (!picked?.length) return;
      roots = picked.map((u) => u.fsPath);
    }
    const run = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: 'Trimline: reading recorded sessions',
        cancellable: true,
      },
      (progress, token) => {
        let last = 0;
        return core.runEditorReport({
          paths: roots,
          strategies: STRATEGIES,
          cacheFile: this.cacheFile,
          onFile: (done, total) => {
            const pct = (100 * done) / Math.max(1, total);
            progress.report({ increment: pct - last, message: `${done}/${total} files` });
            last = pct;
            return !token.isCancellationRequested;
          },
        });
      },
    );
    const report = run.report;
    this.log.info(
      `report: ${report.totals.sessions} sessions, ${report.totals.calls} calls, ${report.skipped.length} ` +
        `skipped; ${run.fromCache} of ${run.files} files unchanged (from the cache ${this.cacheFile})`,
    );
    if (run.cacheError) this.log.warn(`report: the cache could not be written: ${run.cacheError}`);
    this.show(report);
  }

  private show(report: Report): void {
    this.last = report;
    if (!this.panel) {
      this.ready = false;
      const panel = vscode.window.createWebviewPanel(REPORT_VIEW_TYPE, TITLE, vscode.ViewColumn.Active, {
        ...webviewOptions(this.extensionUri),
        retainContextWhenHidden: false,
        enableFindWidget: true,
      });
      panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'inspector.svg');
      panel.webview.html = webviewHtml(panel.webview, this.extensionUri, {
        title: TITLE,
        script: 'dist/webview/report.js',
        styles: ['media/base.css', 'media/report.css'],
      });
      const subs = [
        panel.webview.onDidReceiveMessage((raw: unknown) => this.onMessage(raw)),
        panel.onDidDispose(() => {
          this.panel = undefined;
          for (const s of subs) s.dispose();
        }),
      ];
      this.panel = panel;
    } else {
      this.panel.reveal();
      this.post();
    }
  }

  private post(): void {
    if (!this.panel || !this.ready || !this.last) return;
    const msg: ReportHostMessage = { type: 'report', report: this.last };
    void this.panel.webview.postMessage(msg);
  }

  private onMessage(raw: unknown): void {
    const msg = parseReportWebviewMessage(raw);
    if (!msg) {
      this.log.warn('report: ignored a malformed message');
      return;
    }
    if (msg.type === 'ready') {
      this.ready = true;
      this.post();
      return;
    }
    // Only a session of the report shown, with a strategy it priced (the webview is not trusted with paths).
    const report = this.last;
    if (!report || !report.sessions.some((r) => r.file === msg.file) || !report.strategies.includes(msg.strategy)) {
      this.log.warn(`report: ignored openSession of ${msg.file} with ${msg.strategy} (not in the report shown)`);
      return;
    }
    this.log.info(`report: opening ${msg.file} in the inspector with strategy ${msg.strategy}`);
    this.hooks.openInspector(msg.file, msg.strategy);
  }

  dispose(): void {
    this.panel?.dispose();
  }
}
