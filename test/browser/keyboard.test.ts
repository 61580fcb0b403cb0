/** Keyboard-only operation: Tab into the grid, move with the arrows, expand, pin/trim/restore with shortcuts. */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolResultText } from '../../src/core/session';
import { sentToolResult } from '../unit/inspect/helpers';
import {
  domSize,
  focused,
  launchBrowser,
  openInspector,
  screenshot,
  serve,
  statusMatching,
  type Served,
} from './helpers';

describe('keyboard-only operation', () => {
  let browser: Browser;
  let s: Served;
  let page: Page;
  const press = (key: string, times = 1) =>
    (async () => {
      for (let i = 0; i < times; i++) await page.keyboard.press(key);
    })();

  beforeAll(async () => {
    browser = await launchBrowser();
    s = await serve('343e3472-b9b6-4561-ade0-21d1a4730c11.jsonl');
    page = (await openInspector(browser, s.url)).page;
  });
  afterAll(async () => {
    await browser?.close();
    await s?.server.close();
  });

  it('Tab reaches the grid (one tab stop), arrows move, Home/End jump, focus is visible', async () => {
    let tabs = 0;
    while (!(await focused(page)).cls.includes('grid-row') && tabs < 40) {
      await page.keyboard.press('Tab');
      tabs++;
    }
    const first = await focused(page);
    expect(first.cls).toContain('grid-row');
    expect(first.rowIndex).toBe('2');
    const ring = await page.evaluate(() => getComputedStyle(document.activeElement!).boxShadow);
    expect(ring).not.toBe('none');
    await press('ArrowDown', 3);
    expect((await focused(page)).rowIndex).toBe('5');
    await press('ArrowUp');
    expect((await focused(page)).rowIndex).toBe('4');
    await press('End');
    const last = await focused(page);
    expect(Number(last.rowIndex)).toBe(Number(await page.getAttribute('.grid', 'aria-rowcount')));
    expect(last.block).toBe(s.inspector.snapshot().rows.at(-1)!.blockId);
    await press('PageUp');
    expect(Number((await focused(page)).rowIndex)).toBeLessThan(Number(last.rowIndex));
    await press('Home');
    expect((await focused(page)).rowIndex).toBe('2');
    // Roving tabindex: exactly one row is tabbable; Tab leaves the grid, Shift+Tab comes back to the same row.
    expect(await page.locator('.grid-spacer .grid-row[tabindex="0"]').count()).toBe(1);
    await press('ArrowDown', 2);
    const here = (await focused(page)).block;
    await press('Tab');
    expect((await focused(page)).cls).not.toContain('grid-row');
    await page.keyboard.press('Shift+Tab');
    expect((await focused(page)).block).toBe(here);
  });

  it('Enter expands and collapses; Right/Left too', async () => {
    await press('Enter');
    expect((await focused(page)).expanded).toBe('true');
    expect(await domSize(page).then((d) => d.rows)).toBeGreaterThan(0);
    await press('Enter');
    expect((await focused(page)).expanded).toBe('false');
    await press('ArrowRight');
    expect((await focused(page)).expanded).toBe('true');
    await press('ArrowLeft');
    expect((await focused(page)).expanded).toBe('false');
  });

  it('t opens the trim editor, Ctrl+Enter trims; r restores; p pins and unpins — all from the keyboard', async () => {
    const rows = s.inspector.snapshot().rows;
    const target = rows.filter((r) => r.kind === 'tool_result' && r.state === 'verbatim').at(-1)!;
    const block = s.inspector.imp.messages.flatMap((m) => m.blocks).find((b) => b.id === target.blockId)!;
    const id = block.toolUseId!;
    await press('Home');
    for (let i = 0; i < rows.length + 2 && (await focused(page)).block !== target.blockId; i++)
      await press('ArrowDown');
    expect((await focused(page)).block).toBe(target.blockId);
    // Hints are visible on the buttons and in the toolbar.
    expect(await page.isVisible('.hints')).toBe(true);
    await press('t');
    await page.waitForFunction(() => document.activeElement?.tagName.toLowerCase() === 'vscode-text-area');
    await page.keyboard.type('kbd summary');
    await screenshot(page, 'keyboard-trim');
    await page.keyboard.press('Control+Enter');
    await statusMatching(page, /^Trimmed/);
    expect(sentToolResult(s.inspector.nextRequest, id)).toContain('kbd summary');
    await page.waitForFunction(
      (b) => (document.activeElement as HTMLElement | null)?.dataset.block === b,
      target.blockId,
    );
    await press('r');
    await statusMatching(page, /^Restored/);
    expect(sentToolResult(s.inspector.nextRequest, id)).toBe(toolResultText(block.param));
    await press('p');
    await statusMatching(page, /^Pinned/);
    expect(s.inspector.snapshot().rows.find((r) => r.blockId === target.blockId)!.state).toBe('pinned');
    await press('p');
    await statusMatching(page, /^Unpinned/);
    // Escape cancels the editor without trimming.
    await press('t');
    await page.waitForFunction(() => document.activeElement?.tagName.toLowerCase() === 'vscode-text-area');
    await press('Escape');
    await page.waitForFunction(
      (b) => (document.activeElement as HTMLElement | null)?.dataset.block === b,
      target.blockId,
    );
    expect(s.inspector.snapshot().rows.find((r) => r.blockId === target.blockId)!.state).toBe('verbatim');
  });

  it('/ focuses the search; typing filters the rows; the tabs work with arrows', async () => {
    await press('/');
    await page.keyboard.type('powercfg');
    const expected = s.inspector
      .snapshot()
      .rows.filter((r) => `${r.preview} ${r.why ?? ''}`.toLowerCase().includes('powercfg')).length;
    // The filter follows each keystroke: wait for the count of the whole word (a first letter alone matches more rows).
    await page
      .waitForFunction(
        (n) => new RegExp(`^${n} of \\d+ blocks`).test(document.querySelector('.count')?.textContent ?? ''),
        expected,
        { timeout: 5000 },
      )
      .catch(() => undefined);
    const shown = Number((await page.textContent('.count'))!.split(' ')[0]);
    expect(shown).toBe(expected);
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
    await page.waitForFunction(() => !/ of /.test(document.querySelector('.count')?.textContent ?? ''));
    await page.focus('#tab-context');
    await press('ArrowRight');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('tab-findings');
    expect(await page.isVisible('#panel-findings')).toBe(true);
    await press('ArrowLeft');
    expect(await page.isVisible('#panel-context')).toBe(true);
  });
});
