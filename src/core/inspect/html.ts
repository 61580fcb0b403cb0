/**
 * The inspector's HTML document, the same for both hosts (VS Code webview panel and
 * the standalone server), with a strict Content-Security-Policy: no inline script or
 * style without the nonce, no eval, nothing loaded from elsewhere. The webview builds
 * all of its UI with DOM APIs; transcript content only ever becomes text nodes.
 */
import { bidiVisible } from '../../protocol/safe-text';

export interface InspectorHtmlOptions {
  /** Origin the host serves resources from (VS Code: `webview.cspSource`; standalone: `'self'`). */
  cspSource: string;
  /** Fresh per response: base64 or hex, at least 128 bits. */
  nonce: string;
  scriptUri: string;
  styleUri: string;
  /** Optional separate toolkit bundle (the inspector bundle already includes the toolkit controls it uses). */
  toolkitUri?: string;
  /** Extra `connect-src` for a host that talks over HTTP (standalone: `'self'`); VS Code needs none. */
  connectSrc?: string;
  title?: string;
}

const NONCE = /^[A-Za-z0-9+/=_-]{16,}$/;

/** The policy for the document (also sent as a `Content-Security-Policy` header by the standalone server). */
export function inspectorCsp(o: Pick<InspectorHtmlOptions, 'cspSource' | 'nonce' | 'connectSrc'>): string {
  if (!NONCE.test(o.nonce)) throw new Error('inspectorCsp: the nonce must be 16+ base64/hex characters');
  const parts = ["default-src 'none'", `script-src 'nonce-${o.nonce}'`, `style-src ${o.cspSource} 'nonce-${o.nonce}'`];
  if (o.connectSrc) parts.push(`connect-src ${o.connectSrc}`);
  parts.push("base-uri 'none'", "form-action 'none'");
  return parts.join('; ');
}

/** Escape a value for a double-quoted HTML attribute. */
export function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * The whole document. The body is empty until the script has the first snapshot.
 * `csp-nonce` lets the toolkit's FAST runtime nonce the one probe <style> it creates
 * (its component styles use constructable stylesheets, which the CSP does not govern).
 */
export function inspectorHtml(o: InspectorHtmlOptions): string {
  const csp = inspectorCsp(o);
  const n = escapeAttr(o.nonce);
  const toolkit = o.toolkitUri
    ? `\n    <script type="module" nonce="${n}" src="${escapeAttr(o.toolkitUri)}"></script>`
    : '';
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta http-equiv="Content-Security-Policy" content="${escapeAttr(csp)}" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta property="csp-nonce" content="${n}" />
    <title>${escapeAttr(bidiVisible(o.title ?? 'Trimline: context inspector'))}</title>
    <link rel="stylesheet" nonce="${n}" href="${escapeAttr(o.styleUri)}" />${toolkit}
    <script type="module" nonce="${n}" src="${escapeAttr(o.scriptUri)}"></script>
  </head>
  <body>
    <div id="app" class="app" aria-busy="true"><p class="loading">Loading the context inspector…</p></div>
  </body>
</html>
`;
}
