/**
 * Browser-test plumbing: Debian's Chromium driven by playwright-core, the standalone
 * inspector server started in-process on a transcript, and a page that records every
 * console message, page error, dialog and CSP violation.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { importTranscript } from '../../src/core/import';
import type { ImportedSession } from '../../src/core/session/types';
import { ReplayInspector, startInspectorServer, type InspectorServer } from '../../src/host/standalone';

export const CHROMIUM = '/usr/bin/chromium';
export const TRANSCRIPTS = resolve(process.cwd(), 'test/fixtures/transcripts/m-claude');
export const SCREENSHOTS = resolve(process.cwd(), 'test-results/screenshots');

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

export interface Served {
  server: InspectorServer;
  inspector: ReplayInspector;
  url: string;
}

/** Replay a transcript (file name in the shared set, or an imported session) and serve its inspector. */
export async function serve(source: string | ImportedSession, strategy = 'default'): Promise<Served> {
  const imp = typeof source === 'string' ? importTranscript(resolve(TRANSCRIPTS, source)) : source;
  const inspector = new ReplayInspector(imp, { strategy });
  const server = await startInspectorServer(inspector, {
    root: process.cwd(),
    mutates: (r) => ReplayInspector.mutates(r),
  });
  return { server, inspector, url: server.pageUrl };
}

export interface Watched {
  page: Page;
  console: string[];
  errors: string[];
  dialogs: string[];
  cspViolations: string[];
}

/**
 * Open the inspector at `url` (the address its server printed, with its token) and wait for the first snapshot to be
 * rendered (or for `waitFor`).
 */
export async function openInspector(
  browser: Browser,
  url: string,
  opts: {
    theme?: string;
    width?: number;
    height?: number;
    waitFor?: string;
    beforeLoad?: (page: Page) => Promise<void>;
  } = {},
): Promise<Watched> {
  const page = await browser.newPage({ viewport: { width: opts.width ?? 1400, height: opts.height ?? 900 } });
  const w: Watched = { page, console: [], errors: [], dialogs: [], cspViolations: [] };
  page.on('console', (m) => {
    w.console.push(`${m.type()}: ${m.text()}`);
    if (/Content Security Policy|Refused to/i.test(m.text())) w.cspViolations.push(m.text());
  });
  page.on('pageerror', (e) => w.errors.push(e.message));
  page.on('dialog', (d) => {
    w.dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) =>
      console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  await opts.beforeLoad?.(page);
  const address = new URL(url);
  if (opts.theme) address.searchParams.set('theme', opts.theme);
  await page.goto(address.href);
  await page.waitForSelector(opts.waitFor ?? '.grid-spacer .grid-row', { timeout: 30_000 });
  return w;
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = resolve(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

/** The status line's text once it matches `re` (actions announce their effect there). */
export async function statusMatching(page: Page, re: RegExp): Promise<string> {
  await page.waitForFunction(
    (src) => new RegExp(src).test(document.querySelector('.status')?.textContent ?? ''),
    re.source,
    { timeout: 15_000 },
  );
  return (await page.textContent('.status')) ?? '';
}

export const ROW = (blockId: string): string => `.grid-spacer .grid-row[data-block="${blockId}"]`;

/** Scroll the grid until the row of `blockId` is rendered (rows outside the viewport are not in the DOM). */
export async function revealRow(page: Page, blockId: string, index: number, rowHeight = 30): Promise<void> {
  await page.evaluate(
    (y) => {
      const el = document.querySelector('.grid-scroll');
      if (el) el.scrollTop = y;
    },
    Math.max(0, index * rowHeight - 120),
  );
  await page.waitForSelector(ROW(blockId), { timeout: 10_000 });
}

/** The focused element's block id and class (what keyboard focus is on). */
export function focused(
  page: Page,
): Promise<{ block?: string; cls: string; tag: string; rowIndex?: string; expanded?: string }> {
  return page.evaluate(() => {
    const a = document.activeElement as HTMLElement | null;
    return {
      block: a?.dataset.block,
      cls: a?.className ?? '',
      tag: a?.tagName.toLowerCase() ?? '',
      rowIndex: a?.getAttribute('aria-rowindex') ?? undefined,
      expanded: a?.getAttribute('aria-expanded') ?? undefined,
    };
  });
}

/** Row elements in the DOM and all elements in the document. */
export function domSize(page: Page): Promise<{ rows: number; elements: number }> {
  return page.evaluate(() => ({
    rows: document.querySelectorAll('.grid-spacer .grid-row').length,
    elements: document.querySelectorAll('*').length,
  }));
}

/** VS Code's webview API, recording what the page posts; the page gets VS Code's theme variables. */
export async function vscodeApi(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { __posted: unknown[]; __state?: unknown; acquireVsCodeApi: () => unknown };
    w.__posted = [];
    w.acquireVsCodeApi = () => ({
      postMessage: (m: unknown) => w.__posted.push(JSON.parse(JSON.stringify(m))),
      getState: () => w.__state,
      setState: (s: unknown) => (w.__state = s),
    });
    document.addEventListener('DOMContentLoaded', () => document.body.classList.add('tl-standalone', 'vscode-dark'));
  });
}
