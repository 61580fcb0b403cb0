/** `trimline report --html` in Chromium: the page renders its charts and tables with no request leaving it. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportHtml } from '../../src/core/report';
import { launchBrowser, screenshot } from './helpers';
import { mClaudeReport } from './m-claude-report';

describe('report HTML in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('shows both charts and the tables, loads nothing from outside the file', async () => {
    const rep = mClaudeReport();
    const file = join(mkdtempSync(join(tmpdir(), 'trimline-html-')), 'report.html');
    writeFileSync(file, reportHtml(rep));
    const page = await browser.newPage({ viewport: { width: 1100, height: 1400 } });
    const requests: string[] = [];
    const errors: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.goto(pathToFileURL(file).href);
    expect(await page.locator('svg').count()).toBe(2);
    // One bar per series (recorded, none, default) for each charted session.
    const bars = await page.locator('figure').first().locator('rect[height="8"]').count();
    expect(bars).toBe(3 * Math.min(20, rep.sessions.filter((r) => r.fit.status === 'anchored').length));
    // Header, the sessions of 3 calls or more, one line for the others when there are any, TOTAL.
    const shown = rep.sessions.filter((r) => r.calls >= 3).length;
    const folded = shown < rep.sessions.length ? 1 : 0;
    const sessionRows = page.locator('table').first().locator(':scope > tbody > tr, :scope > tr');
    expect(await sessionRows.count()).toBe(shown + folded + 2);
    expect(await page.locator('tr.folded').count()).toBe(folded);
    expect(await page.locator('tr.total').count()).toBe(1);
    await expect.poll(() => page.locator('h2', { hasText: 'Top offenders' }).count()).toBe(1);
    expect(requests.filter((u) => !u.startsWith('file:'))).toEqual([]);
    expect(errors).toEqual([]);
    await screenshot(page, 'report-html');
    await page.close();
  });
});
