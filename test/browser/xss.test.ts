/**
 * Transcript and tool content is only ever text: an XSS corpus inside a session never executes or renders as markup.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { xssSession, XSS_PAYLOADS } from './fixtures';
import { focused, launchBrowser, openInspector, screenshot, serve, statusMatching, type Served } from './helpers';

describe('XSS corpus inside tool results', () => {
  let browser: Browser;
  let s: Served;
  beforeAll(async () => {
    browser = await launchBrowser();
    s = await serve(xssSession(), 'none');
  });
  afterAll(async () => {
    await browser?.close();
    await s?.server.close();
  });

  it('renders every payload as text and nothing executes, in rows, details, originals, findings, diff and search', async () => {
    const w = await openInspector(browser, s.url);
    const { page } = w;
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    const rows = s.inspector.snapshot().rows;
    // Expand every row from the keyboard so every preview is rendered in full.
    await page.focus('.grid-spacer .grid-row[tabindex="0"]');
    for (let i = 0; i < rows.length; i++) {
      await page.keyboard.press('Enter');
      await page.keyboard.press('ArrowDown');
    }
    // Trim one payload result with a payload as the user's own summary, then look at its original.
    await page.keyboard.press('Home');
    const target = rows.find((r) => r.kind === 'tool_result')!;
    for (let i = 0; i < rows.length && (await focused(page)).block !== target.blockId; i++)
      await page.keyboard.press('ArrowDown');
    await page.keyboard.press('t');
    await page.waitForFunction(() => document.activeElement?.tagName.toLowerCase() === 'vscode-text-area');
    await page.keyboard.type(XSS_PAYLOADS[1] + XSS_PAYLOADS[4]);
    await page.keyboard.press('Control+Enter');
    await statusMatching(page, /^Trimmed/);
    await page.waitForSelector('.original-text');
    // Search with a payload, visit findings and the diff.
    await page.click('vscode-text-field.f-search');
    await page.keyboard.type('<img src=x onerror=');
    await page.waitForFunction(() => / of /.test(document.querySelector('.count')?.textContent ?? ''));
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
    await page.click('#tab-findings');
    await page.click('#tab-diff');
    await page.waitForSelector('.diff-cols');
    await page.click('#tab-context');
    await page.focus('.grid-spacer .grid-row[tabindex="0"]');
    await page.keyboard.press('Home');
    await page.waitForTimeout(300);
    await screenshot(page, 'xss');

    const probe = await page.evaluate(() => ({
      xss: (window as unknown as Record<string, unknown>).__xss,
      scripts: document.querySelectorAll('script').length,
      injected: document.querySelectorAll(
        'img, iframe, details, math, textarea, object, embed, a[href], #xss-link, #xss-style-attr, [onerror], [onload], [ontoggle], [onclick]',
      ).length,
      styles: document.querySelectorAll('style, [style*="position:fixed"]').length,
      foreignSvg: [...document.querySelectorAll('svg')].filter((e) => !e.classList.contains('chart-svg')).length,
      bodyVisible: getComputedStyle(document.body).display !== 'none',
      text: [...document.querySelectorAll('.preview, pre.text, .finding-msg')].map((e) => e.textContent).join('\n'),
      title: document.querySelector('.title')?.textContent,
    }));
    expect(probe.xss).toBeUndefined();
    expect(w.dialogs).toEqual([]);
    expect(w.errors).toEqual([]);
    expect(probe.scripts).toBe(1);
    expect(probe.injected).toBe(0);
    expect(probe.styles).toBe(0);
    expect(probe.foreignSvg).toBe(0);
    expect(probe.bodyVisible).toBe(true);
    // The payloads are on screen, literally.
    expect(probe.text).toContain('<script>window.__xss = "script"</script>');
    expect(probe.text).toContain('<img src=x onerror="window.__xss = \'img\'">');
    expect(probe.text).toContain('<a href="javascript:window.__xss = \'link\'" id="xss-link">click me</a>');
    expect(probe.title).toBe('xss-<img src=x onerror=alert(1)>.json');
    expect(requests.filter((u) => !u.startsWith(s.server.url))).toEqual([]);
    expect(w.cspViolations).toEqual([]);
    // What the host sends is the payload as data too.
    expect(JSON.stringify(s.inspector.nextRequest.body)).toContain('onerror');
    await page.close();
  });
});
