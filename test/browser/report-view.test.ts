/**
 * The VS Code report view's webview bundle (dist/webview/report.js) in Chromium under
 * the panel's CSP, with `acquireVsCodeApi` stubbed: it announces `ready`, renders the
 * typed report snapshot, and a click on a session (or on a strategy's cost) asks the host
 * to open it with the chosen strategy.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot } from './helpers';
import { mClaudeReport } from './m-claude-report';

const BUNDLE = resolve('dist/webview/report.js');

/**
 * The panel's document (same CSP shape as webview-html.ts: nonce for the one module script, styles from the extension).
 */
const CSP = "default-src 'none'; style-src 'self' 'nonce-n1'; script-src 'nonce-n1'; connect-src 'none'";
const INDEX = `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="${CSP}">
<link rel="stylesheet" nonce="n1" href="/base.css"><link rel="stylesheet" nonce="n1" href="/report.css"></head>
<body class="tl-standalone vscode-light"><main id="app"></main><script type="module" nonce="n1" src="/report.js"></script></body></html>`;
const FILES: Readonly<Record<string, [string, string]>> = {
  '/': ['text/html', ''],
  '/report.js': ['text/javascript', BUNDLE],
  '/base.css': ['text/css', resolve('media/base.css')],
  '/report.css': ['text/css', resolve('media/report.css')],
};

function serveView(): Promise<Server> {
  const server = createServer((req, res) => {
    const f = FILES[req.url ?? ''];
    if (!f) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': f[0] }).end(f[1] ? readFileSync(f[1]) : INDEX);
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

describe('report view (webview)', () => {
  let browser: Browser;
  let server: Server;
  beforeAll(async () => {
    browser = await launchBrowser();
    server = await serveView();
  });
  afterAll(async () => {
    await browser?.close();
    server?.close();
  });

  it('renders the snapshot after ready, and a click opens the session with the chosen strategy', async () => {
    const report = mClaudeReport();
    const p = await browser.newPage({ viewport: { width: 1100, height: 1300 } });
    const errors: string[] = [];
    p.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    p.on('pageerror', (e) => errors.push(e.message));
    await p.exposeFunction('__hostReceive', (m: unknown) => {
      const msg = m as { type: string };
      if (msg.type === 'ready') void p.evaluate((r) => window.postMessage({ type: 'report', report: r }, '*'), report);
    });
    await p.addInitScript(() => {
      const sent: unknown[] = [];
      (window as unknown as { __sent: unknown[] }).__sent = sent;
      (window as unknown as { acquireVsCodeApi: () => unknown }).acquireVsCodeApi = () => ({
        postMessage: (m: unknown) => {
          sent.push(m);
          void (window as unknown as { __hostReceive: (m: unknown) => Promise<void> }).__hostReceive(m);
        },
      });
    });
    await p.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await p.locator('h1', { hasText: 'What would trimming have saved?' }).waitFor();
    expect(await p.locator('svg').count()).toBe(2);
    expect(await p.locator('table.sessions tr').count()).toBe(report.sessions.length + 1);
    await screenshot(p, 'report-view');
    await p.selectOption('#strategy', 'none');
    const name = report.sessions.find((r) => r.file.includes('343e3472'))!;
    await p.locator('button.link', { hasText: '343e3472' }).click();
    const sent = await p.evaluate(() => (window as unknown as { __sent: unknown[] }).__sent);
    expect(sent[0]).toEqual({ type: 'ready' });
    expect(sent[sent.length - 1]).toEqual({ type: 'openSession', file: name.file, strategy: 'none' });
    // A strategy's cost cell opens the session with that strategy, from the keyboard too.
    const cell = p
      .locator('table.sessions tr', { hasText: '343e3472' })
      .locator('button.strategy[data-strategy="default"]');
    await cell.focus();
    await cell.press('Enter');
    const after = await p.evaluate(() => (window as unknown as { __sent: unknown[] }).__sent);
    expect(after[after.length - 1]).toEqual({ type: 'openSession', file: name.file, strategy: 'default' });
    expect(errors).toEqual([]);
    await p.close();
  });
});
