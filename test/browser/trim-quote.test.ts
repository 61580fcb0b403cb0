/**
 * Price before the click (issue 29): the trim editor of a live session quotes the trim in
 * dollars as the user types (the rewrite now, the saving per call, the break-even), from the
 * host's one pricer, before Trim is pressed. Saves trim-editor.png (in docs/screenshots when
 * TRIMLINE_DOCS_SCREENSHOTS=1).
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type Demo } from '../../src/host/standalone/demo';
import { fmtUsd } from '../../src/protocol/format';
import { isActionPrice } from '../../src/protocol/prices';
import { launchBrowser, openInspector, revealRow, ROW, SCREENSHOTS, statusMatching } from './helpers';

describe('trim editor: the live quote', () => {
  let browser: Browser;
  let demo: Demo;
  beforeAll(async () => {
    browser = await launchBrowser();
    demo = await startDemo({ fast: true, port: 0, strategy: 'none', log: () => undefined });
    await demo.done;
  });
  afterAll(async () => {
    await browser?.close();
    await demo?.close();
  });

  it('shows the rewrite, the saving per call and the break-even in dollars while typing, before Trim', async () => {
    const w = await openInspector(browser, demo.url, { width: 1200, height: 700 });
    const { page } = w;
    const rows = demo.inspector.snapshot()!.rows;
    const summary = 'The cart total is the sum of line prices minus bulk discounts.';
    const priceOf = (blockId: string): unknown =>
      demo.inspector.handle({ op: 'price', action: { op: 'trim', blockId, text: summary } });
    // A result early enough that trimming it rewrites cached tokens after it (all three figures show),
    // the one that breaks even soonest.
    const results = rows.filter((r) => r.kind === 'tool_result' && r.sent && r.cached && r.tokens > 100);
    const candidates = results.flatMap((r) => {
      const p = priceOf(r.blockId);
      const full = isActionPrice(p) && p.rewriteCost > 0 && p.tokensPerCall > 0 && p.breakEvenCalls !== null;
      return full ? [{ r, at: p.breakEvenCalls! }] : [];
    });
    expect(candidates.length).toBeGreaterThan(0);
    const target = candidates.sort((a, b) => a.at - b.at)[0].r;
    const callsBefore = demo.loop.session.calls.length;
    await revealRow(page, target.blockId, rows.indexOf(target));
    await page.click(`${ROW(target.blockId)} .row-btn.trim`);
    await page.waitForSelector(`${ROW(target.blockId)} .trim-text`);
    await page.click(`${ROW(target.blockId)} .trim-text`);
    await page.keyboard.type(summary);
    // The quote the host gives for this very text (the one pricer), shown before any click on Trim.
    const price = priceOf(target.blockId);
    expect(isActionPrice(price)).toBe(true);
    if (!isActionPrice(price)) return;
    expect(price.tokensPerCall).toBeGreaterThan(0);
    const quote = `${ROW(target.blockId)} .trim-quote`;
    await page.waitForFunction(
      ([sel, saving]) => (document.querySelector(`${sel} .quote-saving`)?.textContent ?? '').includes(saving),
      [quote, `Saves ${fmtUsd(price.savingPerCall)} per call`] as const,
      { timeout: 10_000 },
    );
    // The rewrite figure is the host's for this text; token counts refined in the background between the
    // page's quote and this check may move it by a rounding step, so it is compared within 10%.
    const rewrite = (await page.textContent(`${quote} .quote-rewrite`)) ?? '';
    const shown = /^Rewrite now: \$([\d.]+) extra/.exec(rewrite);
    expect(shown, rewrite).not.toBeNull();
    const now = priceOf(target.blockId);
    const host = isActionPrice(now) ? now.rewriteCost : price.rewriteCost;
    expect(Math.abs(Number(shown![1]) - host)).toBeLessThanOrEqual(Math.max(0.001, host * 0.1));
    const breakEven = await page.textContent(`${quote} .quote-break-even`);
    expect(breakEven).toMatch(/^(Breaks even (at once|after \d+ calls?)|Never breaks even) /);
    expect(breakEven).toMatch(/ \(about \d+ more expected\)$/);
    // Nothing was applied: the block is still sent verbatim and no call was made.
    expect(demo.inspector.snapshot()!.rows.find((r) => r.blockId === target.blockId)?.state).toBe('verbatim');
    expect(demo.loop.session.calls.length).toBe(callsBefore);
    // The committed screenshot is refreshed on demand (TRIMLINE_DOCS_SCREENSHOTS=1), not by every test run.
    const dir = process.env.TRIMLINE_DOCS_SCREENSHOTS ? resolve(process.cwd(), 'docs/screenshots') : SCREENSHOTS;
    mkdirSync(dir, { recursive: true });
    await page.locator(`${ROW(target.blockId)}`).screenshot({ path: resolve(dir, 'trim-editor.png') });
    // Trim (a trim that will not pay back asks first: apply it), then Restore: a restore is not asked
    // whether it "pays back"; it applies and states what it adds per call and what the rewrite costs.
    await page.click(`${ROW(target.blockId)} .trim-apply`);
    const confirm = '.price-confirm:not([hidden]) .price-apply';
    const asked = await page.waitForSelector(confirm, { timeout: 3_000 }).catch(() => undefined);
    if (asked) await asked.click();
    await statusMatching(page, /^Trimmed/);
    await page.waitForSelector(`${ROW(target.blockId)} .row-btn.restore`);
    await page.click(`${ROW(target.blockId)} .row-btn.restore`);
    const restored = await statusMatching(page, /^Restored/);
    expect(restored).toMatch(/Adds [\d.]+k? tokens \(\$[\d.]+\) to every later call, and rewrites .*; about /);
    expect(restored).toMatch(/; about \d+ more calls? (is|are) expected\./);
    expect(await page.isVisible('.price-confirm')).toBe(false);
    expect(demo.inspector.snapshot()!.rows.find((r) => r.blockId === target.blockId)?.state).toBe('verbatim');
    expect(w.errors).toEqual([]);
    await page.close();
  });
});
