/** The inspector renders a real transcript, in all three themes, under its CSP. */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openInspector, screenshot, serve, type Served } from './helpers';

const FILE = '343e3472-b9b6-4561-ade0-21d1a4730c11.jsonl';

describe('inspector in a browser: a real transcript', () => {
  let browser: Browser;
  let s: Served;
  beforeAll(async () => {
    browser = await launchBrowser();
    s = await serve(FILE);
  });
  afterAll(async () => {
    await browser?.close();
    await s?.server.close();
  });

  it('renders header, chart, composition, findings and the rows of the replayed session', async () => {
    const w = await openInspector(browser, s.url, { theme: 'light' });
    const { page } = w;
    const snap = s.inspector.snapshot();
    expect(await page.textContent('.title')).toBe(FILE);
    expect(await page.textContent('.count')).toBe(`${snap.rows.length} blocks`);
    expect(await page.getAttribute('.grid', 'aria-rowcount')).toBe(
      String(snap.rows.length + 1 + (snap.rows.some((r) => r.cached) ? 1 : 0)),
    );
    // The first rows show what the model sees, as text.
    const first = snap.rows[0];
    expect(await page.textContent(`.grid-row[data-block="${first.blockId}"] .preview`)).toBe(
      first.preview.replace(/\s+/g, ' ').trim().slice(0, 200),
    );
    expect(await page.textContent(`.grid-row[data-block="${first.blockId}"] .state`)).toBe(first.state);
    // Header numbers come from the snapshot.
    expect(await page.textContent('.cards .card:nth-child(2) .card-value')).toBe(
      `${(snap.cache.hitRatio * 100).toFixed(1)}% hits`,
    );
    expect(await page.getAttribute('.gauge', 'aria-valuenow')).toBe(String(snap.totals.sentTokens));
    expect(await page.locator('.comp-legend li').count()).toBe(snap.composition.length);
    expect(await page.locator('.chart-svg path.series-sent').count()).toBe(1);
    expect(await page.textContent('#tab-findings .tab-count')).toBe(` ${snap.findings.length}`);
    // ARIA structure.
    expect(await page.locator('[role=treegrid] [role=row][aria-rowindex]').count()).toBeGreaterThan(10);
    expect(await page.locator('[role=status]').count()).toBeGreaterThan(0);
    // Context, Findings, Diff, and "System & tools": the transcript's inferred system prompt and tools (issue 26).
    await page.waitForSelector('#tab-head');
    expect(await page.locator('[role=tablist] [role=tab]').count()).toBe(4);
    expect(await page.locator('.head-list .head-row').count()).toBeGreaterThan(0);
    expect(await page.locator('.head-list .head-row').first().textContent()).toContain('inferred');
    await screenshot(page, 'render-light');
    expect(w.errors).toEqual([]);
    expect(w.cspViolations).toEqual([]);
    expect(w.console.filter((m) => m.startsWith('error'))).toEqual([]);
    await page.close();
  });

  for (const theme of ['dark', 'high-contrast'] as const) {
    it(`looks right in the ${theme} theme`, async () => {
      const w = await openInspector(browser, s.url, { theme });
      const bg = await w.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      expect(bg).toBe(theme === 'dark' ? 'rgb(31, 31, 31)' : 'rgb(0, 0, 0)');
      // Toolkit controls picked up the theme (a dark dropdown, not the default colours of a light page).
      const dd = await w.page.evaluate(() =>
        getComputedStyle(document.querySelector('vscode-dropdown')!).getPropertyValue('--dropdown-background').trim(),
      );
      expect(dd).toBe(theme === 'dark' ? '#313131' : '#000000');
      await screenshot(w.page, `render-${theme}`);
      expect(w.cspViolations).toEqual([]);
      await w.page.close();
    });
  }

  it('is served with a strict CSP that blocks inline script and inline handlers (and has no unsafe-eval)', async () => {
    const w = await openInspector(browser, s.url);
    const { page } = w;
    const res = await page.request.get(s.url);
    const csp = res.headers()['content-security-policy'];
    const nonce = /<script type="module" nonce="([^"]+)"/.exec(await res.text())![1];
    expect(csp).toBe(
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'self' 'nonce-${nonce}'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
    const meta = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
    expect(meta).toContain("default-src 'none'");
    const outcome = await page.evaluate(async () => {
      const win = window as unknown as Record<string, unknown>;
      const s = document.createElement('script');
      s.textContent = 'window.__inline = 1';
      document.body.append(s);
      const b = document.createElement('button');
      b.setAttribute('onclick', 'window.__handler = 1');
      document.body.append(b);
      b.click();
      await new Promise((r) => setTimeout(r, 50));
      s.remove();
      b.remove();
      return { inline: win.__inline, handler: win.__handler };
    });
    expect(outcome).toEqual({ inline: undefined, handler: undefined });
    // eval is refused by policy (no 'unsafe-eval'); the bundle never calls it (test tools' own evaluation bypasses CSP,
    // so it is not probed here).
    expect(csp).not.toMatch(/unsafe-eval|unsafe-inline/);
    expect(w.cspViolations.length).toBeGreaterThanOrEqual(2);
    await page.close();
  });
});
