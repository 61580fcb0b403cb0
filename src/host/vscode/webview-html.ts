/**
 * The HTML document of a webview: strict CSP (no inline code, scripts only with a
 * fresh nonce, resources only from the extension), VS Code theme variables through
 * the stylesheet, one module script.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

export interface WebviewDocument {
  title: string;
  /** Extension-relative paths. */
  script: string;
  styles: string[];
}

export function nonce(): string {
  return randomBytes(18).toString('base64').replace(/[+/=]/g, '');
}

function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, doc: WebviewDocument): string {
  const n = nonce();
  const uri = (rel: string): string =>
    escapeAttr(webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...rel.split('/'))).toString());
  const csp = [
    "default-src 'none'",
    `img-src ${webview.cspSource} data:`,
    `style-src ${webview.cspSource} 'nonce-${n}'`,
    `font-src ${webview.cspSource}`,
    `script-src 'nonce-${n}'`,
    "connect-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttr(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${doc.styles.map((s) => `<link rel="stylesheet" nonce="${n}" href="${uri(s)}">`).join('\n')}
<title>${escapeAttr(doc.title)}</title>
</head>
<body>
<main id="app" aria-label="${escapeAttr(doc.title)}"></main>
<script type="module" nonce="${n}" src="${uri(doc.script)}"></script>
</body>
</html>`;
}

/** Webview options: scripts on, resources only from the bundles and media. */
export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return {
    enableScripts: true,
    enableCommandUris: false,
    localResourceRoots: [
      vscode.Uri.joinPath(extensionUri, 'dist', 'webview'),
      vscode.Uri.joinPath(extensionUri, 'media'),
    ],
  };
}
