/**
 * A synthetic 5,000-block session renders with a bounded DOM while scrolling (its speed is the bench's:
 * test/bench/inspector-page.ts).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bigSession } from './fixtures';
import { domSize, focused, launchBrowser, openInspector, screenshot, serve, type Served } from './helpers';

/** Row elements allowed in the DOM: the viewport's rows plus the overscan, never the session. */
const MAX_ROWS = 100;

describe('virtualized grid', () => {
  let browser: Browser;
  let s: Served;
  beforeAll(async () => {
    browser = await launchBrowser();
    s = await serve(bigSession(5000), 'default');
  });
  afterAll(async () => {
    await browser?.close();
    await s?.server.close();
  });

  it('renders 5,000 blocks with a DOM that grows with the viewport, not the session', async () => {
    const blocks = s.inspector.snapshot().rows.length;
    expect(blocks).toBeGreaterThanOrEqual(5000);
    const w = await openInspector(browser, s.url, { height: 900 });
    const { page } = w;
    expect(await page.textContent('.count')).toBe(`${blocks.toLocaleString('en-US')} blocks`);
    const initial = await domSize(page);
    expect(initial.rows).toBeLessThanOrEqual(MAX_ROWS);
    expect(initial.rows).toBeGreaterThan(10);

    // Scroll through the whole session in steps (its speed is measured in the bench, not here).
    const scroll = await page.evaluate(async () => {
      const el = document.querySelector('.grid-scroll')!;
      let maxRows = 0;
      let minRows = Infinity;
      const step = Math.ceil(el.scrollHeight / 60);
      for (let y = 0; y < el.scrollHeight + step; y += step) {
        el.scrollTop = Math.min(y, el.scrollHeight);
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        const rendered = document.querySelectorAll('.grid-spacer .grid-row').length;
        maxRows = Math.max(maxRows, rendered);
        minRows = Math.min(minRows, rendered);
      }
      return { maxRows, minRows, elements: document.querySelectorAll('*').length, scrollHeight: el.scrollHeight };
    });
    expect(scroll.maxRows).toBeLessThanOrEqual(MAX_ROWS);
    expect(scroll.scrollHeight).toBeGreaterThan(blocks * 29);
    // Every step rendered rows (the grid follows the scroll).
    expect(scroll.minRows).toBeGreaterThan(10);
    // At the bottom the last row is on screen.
    const lastId = s.inspector.snapshot().rows.at(-1)!.blockId;
    expect(await page.locator(`.grid-row[data-block="${lastId}"]`).count()).toBe(1);
    await screenshot(page, 'virtual-5000-bottom');

    // Keyboard: Home and End across 5,000 rows keep the DOM bounded.
    await page.focus('.grid-spacer .grid-row[tabindex="0"]');
    await page.keyboard.press('Home');
    expect((await focused(page)).rowIndex).toBe('2');
    await page.keyboard.press('End');
    expect((await focused(page)).block).toBe(lastId);
    await page.keyboard.press('PageUp');
    await page.keyboard.press('PageUp');
    const after = await domSize(page);
    expect(after.rows).toBeLessThanOrEqual(MAX_ROWS);

    // Filtering 5,000 rows stays bounded too.
    await page.click('vscode-text-field.f-search');
    await page.keyboard.type('npm test');
    await page.waitForFunction(() => / of /.test(document.querySelector('.count')?.textContent ?? ''));
    expect((await domSize(page)).rows).toBeLessThanOrEqual(MAX_ROWS);
    await screenshot(page, 'virtual-5000-filtered');
    console.log(
      `5,000-block session: ${blocks} rows; DOM ${initial.rows} row elements / ${initial.elements} elements initially, ` +
        `at most ${scroll.maxRows} rows / ${scroll.elements} elements while scrolling; after Home/End/PageUp ${after.rows} rows`,
    );
    expect(w.errors).toEqual([]);
    await page.close();
  });
});
