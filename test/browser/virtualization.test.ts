/** A synthetic 5,000-block session renders with a bounded DOM while scrolling (its speed is the bench's: test/bench/inspector-page.ts). */
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
    const t0 = Date.now();
    const w = await openInspector(browser, s.url, { height: 900 });
    const firstRender = Date.now() - t0;
    const { page } = w;
    expect(await page.textContent('.count')).toBe(`${blocks.toLocaleString('en-US')} blocks`);
    const initial = await domSize(page);
    expect(initial.rows).toBeLessThanOrEqual(MAX_ROWS);
    expect(initial.rows).toBeGreaterThan(10);

    // Scroll through the whole session in steps; measure the frame after each step.
    const scroll = await page.evaluate(async () => {
      const el = document.querySelector('.grid-scroll')!;
      // Long animation frames (> 50 ms, Chromium's LoAF API) while scrolling: jank, if any.
      const long: number[] = [];
      const obs = new PerformanceObserver((list) => list.getEntries().forEach((e) => long.push(e.duration)));
      obs.observe({ type: 'long-animation-frame', buffered: false });
      const frames: number[] = [];
      let maxRows = 0;
      let minRows = Infinity;
      const step = Math.ceil(el.scrollHeight / 60);
      for (let y = 0; y < el.scrollHeight + step; y += step) {
        const t = performance.now();
        el.scrollTop = Math.min(y, el.scrollHeight);
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        frames.push(performance.now() - t);
        const rendered = document.querySelectorAll('.grid-spacer .grid-row').length;
        maxRows = Math.max(maxRows, rendered);
        minRows = Math.min(minRows, rendered);
      }
      obs.disconnect();
      frames.sort((a, b) => a - b);
      return { longFrames: long.length, longestFrame: Math.max(0, ...long), steps: frames.length, median: frames[frames.length >> 1], p95: frames[Math.floor(frames.length * 0.95)], maxRows, minRows, elements: document.querySelectorAll('*').length, scrollHeight: el.scrollHeight };
    });
    expect(scroll.maxRows).toBeLessThanOrEqual(MAX_ROWS);
    expect(scroll.scrollHeight).toBeGreaterThan(blocks * 29);
    // Every step rendered rows (the grid follows the scroll); its speed is measured in the bench, not asserted here.
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

    // Filtering 5,000 rows is immediate and stays bounded too.
    const tf = Date.now();
    await page.click('vscode-text-field.f-search');
    await page.keyboard.type('npm test');
    await page.waitForFunction(() => / of /.test(document.querySelector('.count')?.textContent ?? ''));
    const filterMs = Date.now() - tf;
    expect((await domSize(page)).rows).toBeLessThanOrEqual(MAX_ROWS);
    await screenshot(page, 'virtual-5000-filtered');
    console.log(
      `5,000-block session: ${blocks} rows; first paint ${firstRender} ms (page load, 2.5 MB snapshot, first render); DOM ${initial.rows} row elements / ${initial.elements} elements initially, ` +
        `at most ${scroll.maxRows} rows / ${scroll.elements} elements while scrolling; scroll step (2 frames) median ${scroll.median.toFixed(1)} ms, p95 ${scroll.p95.toFixed(1)} ms over ${scroll.steps} steps, ${scroll.longFrames} long frames (longest ${scroll.longestFrame.toFixed(0)} ms); ` +
        `after Home/End/PageUp ${after.rows} rows; search typed and applied in ${filterMs} ms`,
    );
    expect(w.errors).toEqual([]);
    await page.close();
  });
});
