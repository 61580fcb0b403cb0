import { describe, expect, it } from 'vitest';
import { escapeAttr, inspectorCsp, inspectorHtml } from '../../../src/core/inspect';
import { parseHostMessage, parseWebviewMessage } from '../../../src/protocol';

describe('inspectorHtml', () => {
  const o = {
    cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
    nonce: 'abcdEFGH1234ijklMNOP',
    scriptUri: 'https://x/dist/webview/inspector.js',
    styleUri: 'https://x/dist/webview/inspector.css',
  };

  it('has a strict CSP: nonce scripts only, no inline code, no eval, nothing else loaded', () => {
    const csp = inspectorCsp(o);
    expect(csp).toBe(
      `default-src 'none'; script-src 'nonce-abcdEFGH1234ijklMNOP'; style-src ${o.cspSource} 'nonce-abcdEFGH1234ijklMNOP'; base-uri 'none'; form-action 'none'`,
    );
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    expect(inspectorCsp({ ...o, connectSrc: "'self'" })).toContain("connect-src 'self'");
  });

  it('puts the same nonce on the script, the stylesheet and the toolkit meta, in the meta CSP too', () => {
    const html = inspectorHtml(o);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="${escapeAttr(inspectorCsp(o))}" />`);
    expect(html).toContain(`<script type="module" nonce="${o.nonce}" src="${o.scriptUri}"></script>`);
    expect(html).toContain(`<link rel="stylesheet" nonce="${o.nonce}" href="${o.styleUri}" />`);
    expect(html).toContain(`<meta property="csp-nonce" content="${o.nonce}" />`);
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).not.toMatch(/ on[a-z]+=|style="/);
  });

  it('escapes attribute values and refuses weak nonces', () => {
    expect(inspectorHtml({ ...o, title: '"><script>x</script>' })).toContain(
      '<title>&quot;&gt;&lt;script&gt;x&lt;/script&gt;</title>',
    );
    expect(inspectorHtml({ ...o, scriptUri: 'a"b' })).toContain('src="a&quot;b"');
    expect(() => inspectorHtml({ ...o, nonce: 'short' })).toThrow(/nonce/);
    expect(() => inspectorHtml({ ...o, nonce: `${'a'.repeat(20)}' 'unsafe-inline` })).toThrow(/nonce/);
  });
});

describe('protocol guards', () => {
  it('parseWebviewMessage accepts exactly the declared shapes', () => {
    expect(parseWebviewMessage({ type: 'ready' })).toEqual({ type: 'ready' });
    expect(parseWebviewMessage({ type: 'request', id: 3, request: { op: 'trim', blockId: 'm1.0', text: '' } })).toEqual(
      { type: 'request', id: 3, request: { op: 'trim', blockId: 'm1.0', text: undefined } },
    );
    expect(parseWebviewMessage({ type: 'request', id: 4, request: { op: 'diff', call: 2 } })).toEqual({
      type: 'request',
      id: 4,
      request: { op: 'diff', call: 2 },
    });
    for (const bad of [
      null,
      '{"type":"ready"}',
      { type: 'request', id: 1.5, request: { op: 'compact' } },
      { type: 'request', id: 1, request: { op: 'pin' } },
      { type: 'request', id: 1, request: { op: 'pin', blockId: 'x'.repeat(300) } },
      { type: 'request', id: 1, request: { op: 'trim', blockId: 'a', text: 5 } },
      { type: 'request', id: 1, request: { op: 'diff', call: -1 } },
      { type: 'request', id: 1, request: { op: 'eval', code: 'x' } },
    ]) {
      expect(parseWebviewMessage(bad)).toBeUndefined();
    }
  });

  it('parseHostMessage checks the envelope the webview relies on', () => {
    expect(parseHostMessage({ type: 'response', id: 1, ok: true, result: { message: 'x' } })).toBeDefined();
    expect(parseHostMessage({ type: 'response', id: 1, ok: false, error: 'nope' })).toBeDefined();
    expect(parseHostMessage({ type: 'response', id: 1, ok: false })).toBeUndefined();
    expect(parseHostMessage({ type: 'theme', kind: 'dark' })).toBeDefined();
    expect(parseHostMessage({ type: 'theme', kind: 'purple' })).toBeUndefined();
    expect(parseHostMessage({ type: 'snapshot', snapshot: { rows: 'x' } })).toBeUndefined();
    expect(parseHostMessage({ type: 'html', html: '<script>' })).toBeUndefined();
  });
});
