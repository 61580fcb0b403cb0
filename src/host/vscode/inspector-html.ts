/**
 * The inspector panel's HTML: the shared inspector document (src/core/inspect/html.ts,
 * the same as the standalone server's, strict CSP with a nonce) pointed at the bundles
 * through webview URIs.
 */
import * as vscode from 'vscode';
import { inspectorHtml } from '../../core/inspect/html';
import { nonce } from './webview-html';

export function inspectorDocument(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const uri = (...parts: string[]): string =>
    webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...parts)).toString();
  return inspectorHtml({
    cspSource: webview.cspSource,
    nonce: nonce(),
    scriptUri: uri('dist', 'webview', 'inspector.js'),
    styleUri: uri('dist', 'webview', 'inspector.css'),
    title: 'Context Inspector',
  });
}
