/** Status bar item: context used / window (%) and session cost; a click opens the inspector. */
import * as vscode from 'vscode';
import type { StatusInfo } from './host-types';

/** Above this share of the context window the item turns to the warning color. */
const WARN_FRACTION = 0.8;

function compact(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(n >= 10_000_000 ? 0 : 1)}M`;
  if (n >= 1000) return `${(n / 1000).toFixed(n >= 100_000 ? 0 : 1)}k`;
  return String(n);
}

function money(usd: number): string {
  return usd < 0.01 && usd > 0 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly routing: vscode.StatusBarItem;

  constructor() {
    this.item = vscode.window.createStatusBarItem('trimline.context', vscode.StatusBarAlignment.Right, 100);
    this.item.name = 'Trimline context';
    this.item.command = 'trimline.openInspector';
    this.routing = vscode.window.createStatusBarItem('trimline.routing', vscode.StatusBarAlignment.Right, 99);
    this.routing.name = 'Trimline terminal routing';
    this.routing.command = 'trimline.openProxyInspector';
  }

  /** Agents routed through the proxy at `url` (`agent`: the one the inspector shows), or not routed. */
  setRouting(url: string | undefined, agent?: string): void {
    if (!url) {
      this.routing.hide();
      return;
    }
    const port = new URL(url).port;
    this.routing.text = `$(plug) Trimline :${port}${agent ? ` · ${agent}` : ''}`;
    const from = agent ? `\n\nSession shown: from **${agent}**.` : '';
    this.routing.tooltip = new vscode.MarkdownString(
      `**Trimline proxy** at \`${url}\`\n\nNew terminals and routed agents send Anthropic API calls through ` +
        `it.${from} Click to open the inspector of terminal agents; run *Trimline: Stop Routing* to stop.`,
    );
    this.routing.accessibilityInformation = {
      label: `Trimline routes terminal agents through port ${port}. Opens their inspector.`,
    };
    this.routing.show();
  }

  set(info: StatusInfo | undefined): void {
    if (!info) {
      this.item.hide();
      return;
    }
    const share = info.contextWindow ? info.contextTokens / info.contextWindow : 0;
    const pct = Math.round(share * 100);
    const approx = info.calibrated ? '' : '~';
    this.item.text =
      `${info.busy ? '$(sync~spin)' : '$(layers)'} ` +
      `${approx}${compact(info.contextTokens)}/${compact(info.contextWindow)} (${pct}%) · ${money(info.cost)}`;
    const tip = new vscode.MarkdownString(
      `**Trimline context**\n\n` +
        `${approx}${info.contextTokens.toLocaleString('en-US')} of ${info.contextWindow.toLocaleString('en-US')} ` +
        `tokens in the next request (${pct}% of the window)` +
        `${info.calibrated ? '' : ', estimated'}.\n\nSession cost: ${money(info.cost)}.\n\nClick to open the ` +
        'context inspector.',
    );
    this.item.tooltip = tip;
    this.item.accessibilityInformation = {
      label:
        `Trimline context ${pct} percent of the window used, session cost ${money(info.cost)}. Opens the context ` +
        'inspector.',
    };
    this.item.backgroundColor =
      share >= WARN_FRACTION ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
    this.routing.dispose();
  }
}
