/**
 * The grid a page patched from live deltas is the grid a fresh page draws from the
 * whole snapshot: after agent calls (new rows, recalibrated counts), a filter typed
 * between them and a pin, a page that followed every delta and a page opened at the
 * end, put in the same state (filter, expanded row, selection, scroll), render the
 * same rows: their text, states, token numbers, breakpoint markers, order, positions,
 * the row count and the selection.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openInspector, ROW } from './helpers';
import { useLiveSession } from './live-suite';

const BLOCKS = 3000;

/** What the grid shows, row by row (top to bottom), with everything a row carries. */
function dumpGrid(page: Page): Promise<unknown> {
  return page.evaluate(() => {
    const spacer = document.querySelector('.grid-spacer') as HTMLElement;
    const y = (el: HTMLElement): number => Number(/translateY\((-?[\d.]+)px\)/.exec(el.style.transform)?.[1] ?? NaN);
    const items = [...spacer.children].map((c) => c as HTMLElement).sort((a, b) => y(a) - y(b));
    return {
      count: document.querySelector('.count')?.textContent,
      rowcount: document.querySelector('.grid')?.getAttribute('aria-rowcount'),
      height: spacer.style.height,
      tools: [...document.querySelectorAll('.f-tool vscode-option')].map((o) => o.textContent),
      items: items.map((el) => ({
        y: y(el),
        block: el.dataset.block,
        cls: el.className,
        index: el.getAttribute('aria-rowindex'),
        label: el.getAttribute('aria-label'),
        expanded: el.getAttribute('aria-expanded'),
        tab: el.tabIndex,
        keys: el.getAttribute('aria-keyshortcuts'),
        cells: [...el.querySelectorAll('.cells > .c')].map((c) => [
          c.textContent,
          ...[...c.querySelectorAll('[title]')].map((t) => t.getAttribute('title')),
        ]),
        buttons: [...el.querySelectorAll('.row-btn')].map(
          (b) => `${(b as HTMLElement).hidden ? 'hidden' : 'shown'} ${b.getAttribute('aria-label')}`,
        ),
        detail: el.querySelector('.detail:not([hidden])')?.textContent ?? null,
      })),
    };
  });
}

/** Click a row (or a part of it) that is rendered, in view or in the overscan. */
async function clickIn(page: Page, blockId: string, selector = ''): Promise<void> {
  await page.waitForSelector(ROW(blockId), { state: 'attached' });
  await page.evaluate(
    ([row, sel]) => {
      const el = document.querySelector(row) as HTMLElement;
      ((sel ? el.querySelector(sel) : el) as HTMLElement).dispatchEvent(new MouseEvent('click', { bubbles: true }));
    },
    [ROW(blockId), selector] as const,
  );
}

async function scrollTo(page: Page, top: number): Promise<void> {
  await page.evaluate(async (t) => {
    (document.querySelector('.grid-scroll') as HTMLElement).scrollTop = t;
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  }, top);
}

async function search(page: Page, text: string): Promise<void> {
  await page.click('vscode-text-field.f-search');
  await page.keyboard.type(text);
  await page.waitForFunction(() => / of /.test(document.querySelector('.count')?.textContent ?? ''));
}

describe('live updates render what a whole snapshot renders', () => {
  const suite = useLiveSession(BLOCKS);

  it('a page patched by deltas equals a fresh page, filter, expanded row and selection included', async () => {
    const { browser, live, server } = suite;
    const a = await openInspector(browser, server.pageUrl, { height: 700 });
    const deltas = (): Promise<number> => a.page.evaluate(() => performance.getEntriesByName('trimline:delta').length);
    const update = async (change: () => void): Promise<void> => {
      const before = await deltas();
      change();
      server.broadcast();
      await a.page.waitForFunction((n) => performance.getEntriesByName('trimline:delta').length > n, before, {
        timeout: 30_000,
      });
    };
    // Near the bottom, where new rows arrive: one Bash result expanded, a row selected.
    const rows0 = live.inspector.snapshot()!.rows;
    const bash = rows0.filter((r) => r.kind === 'tool_result' && r.tool === 'Bash');
    const opened = bash.at(-2)!;
    const selected = rows0.filter((r) => r.tool === 'Bash').at(-1)!;
    const prepare = async (page: Page): Promise<void> => {
      await page.focus('.grid-spacer .grid-row[tabindex="0"]');
      await page.keyboard.press('End');
      await clickIn(page, opened.blockId, '.c-ref');
      await scrollTo(page, 1e9);
      await clickIn(page, selected.blockId);
    };
    await prepare(a.page);

    for (let i = 0; i < 3; i++) await update(() => live.step());
    await search(a.page, 'Bash');
    for (let i = 0; i < 3; i++) await update(() => live.step());
    const pinned = live.inspector
      .snapshot()!
      .rows.filter((r) => r.kind === 'tool_result' && r.tool === 'Bash')
      .at(-3)!;
    await update(() => live.inspector.handle({ op: 'pin', blockId: pinned.blockId }));
    for (let i = 0; i < 2; i++) await update(() => live.step());
    expect(await a.page.evaluate(() => performance.getEntriesByName('trimline:snapshot').length)).toBe(1);

    // A page opened now, brought to the same state.
    const b = await openInspector(browser, server.pageUrl, { height: 700 });
    await search(b.page, 'Bash');
    await prepare(b.page);
    const top = await a.page.evaluate(() => (document.querySelector('.grid-scroll') as HTMLElement).scrollTop);
    await scrollTo(a.page, top);
    await scrollTo(b.page, top);

    const [da, db] = [await dumpGrid(a.page), await dumpGrid(b.page)];
    expect(da).toEqual(db);
    // The dump is not trivially equal: the pin, the expanded row and the selection are in it.
    const shown = JSON.stringify(da);
    expect(shown).toContain(pinned.blockId);
    expect(shown).toContain('state-pinned');
    expect(shown).toContain('"expanded":"true"');
    expect(shown).toContain('"tab":0');
    expect(shown).toMatch(/of [\d,]+ blocks/);
    // And unfiltered: every row again, the same on both pages.
    for (const p of [a.page, b.page]) {
      await p.click('vscode-text-field.f-search');
      await p.keyboard.press('Control+A');
      await p.keyboard.press('Backspace');
      await p.waitForFunction(() => !/ of /.test(document.querySelector('.count')?.textContent ?? ''));
      await scrollTo(p, top + 3000);
    }
    expect(await dumpGrid(a.page)).toEqual(await dumpGrid(b.page));
    expect(a.errors).toEqual([]);
    expect(b.errors).toEqual([]);
    await a.page.close();
    await b.page.close();
  });
});
