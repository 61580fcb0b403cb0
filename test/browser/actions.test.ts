/** Pin, trim and restore through the UI change the next request the host would send. */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolResultText } from '../../src/core/session';
import type { InspectorRow, RequestDiff } from '../../src/protocol';
import { sentToolResult } from '../unit/inspect/helpers';
import {
  launchBrowser,
  openInspector,
  revealRow,
  ROW,
  screenshot,
  serve,
  statusMatching,
  type Served,
} from './helpers';

describe('inspector actions through the UI', () => {
  let browser: Browser;
  let s: Served;
  let page: Page;
  const rowOf = (blockId: string): InspectorRow => s.inspector.snapshot().rows.find((r) => r.blockId === blockId)!;
  const indexOf = (blockId: string): number => s.inspector.snapshot().rows.findIndex((r) => r.blockId === blockId);
  const original = (blockId: string): string => toolResultText(s.inspector.snapshot() && rowParam(blockId));
  const rowParam = (blockId: string) =>
    s.inspector.imp.messages.flatMap((m) => m.blocks).find((b) => b.id === blockId)!.param;
  const toolUseId = (blockId: string): string => {
    const p = rowParam(blockId);
    return p.type === 'tool_result' ? p.tool_use_id : '';
  };
  const stateShown = (blockId: string) => page.textContent(`${ROW(blockId)} .state`);

  beforeAll(async () => {
    browser = await launchBrowser();
    s = await serve('343e3472-b9b6-4561-ade0-21d1a4730c11.jsonl');
    page = (await openInspector(browser, s.url)).page;
  });
  afterAll(async () => {
    await browser?.close();
    await s?.server.close();
  });

  it('Trim with an own summary, then Restore', async () => {
    const target = s.inspector
      .snapshot()
      .rows.filter((r) => r.kind === 'tool_result' && r.state === 'verbatim' && r.sent)
      .sort((a, b) => b.tokens - a.tokens)[0];
    const before = s.inspector.snapshot().cost.nextRequest;
    const nextCard = await page.textContent('.cards .card:nth-child(4) .card-value');
    await revealRow(page, target.blockId, indexOf(target.blockId));
    await page.click(`${ROW(target.blockId)} .row-btn.trim`);
    await page.waitForSelector(`${ROW(target.blockId)} .trim-text`);
    await page.click(`${ROW(target.blockId)} .trim-text`);
    await page.keyboard.type('UI summary: exit code 0, the timeout is set');
    await screenshot(page, 'actions-trim-editor');
    await page.click(`${ROW(target.blockId)} .trim-apply`);
    expect(await statusMatching(page, /^Trimmed/)).toMatch(/Next request \$[\d.]+ → \$[\d.]+\./);
    // The host's next request carries the user's summary; the UI shows the new state and price.
    expect(sentToolResult(s.inspector.nextRequest, toolUseId(target.blockId))).toContain(
      'UI summary: exit code 0, the timeout is set',
    );
    expect(rowOf(target.blockId)).toMatchObject({ state: 'trimmed', by: 'user' });
    expect(await stateShown(target.blockId)).toBe('trimmed');
    expect(s.inspector.snapshot().cost.nextRequest).not.toBe(before);
    expect(await page.textContent('.cards .card:nth-child(4) .card-value')).not.toBe(nextCard);
    // Expanding shows the original (loaded with the `originals` request).
    await page.waitForSelector(`${ROW(target.blockId)} .original-text`);
    expect(await page.textContent(`${ROW(target.blockId)} .original-text`)).toContain(
      original(target.blockId).slice(0, 40),
    );
    await screenshot(page, 'actions-trimmed');
    await page.click(`${ROW(target.blockId)} .row-btn.restore`);
    await statusMatching(page, /^Restored/);
    expect(sentToolResult(s.inspector.nextRequest, toolUseId(target.blockId))).toBe(original(target.blockId));
    expect(await stateShown(target.blockId)).toBe('verbatim');
  });

  it('Pin brings back a result the strategy summarized; Unpin hands it back', async () => {
    const target = s.inspector
      .snapshot()
      .rows.find((r) => r.kind === 'tool_result' && r.state !== 'verbatim' && r.by?.startsWith('strategy:'))!;
    expect(sentToolResult(s.inspector.nextRequest, toolUseId(target.blockId))).not.toBe(original(target.blockId));
    await revealRow(page, target.blockId, indexOf(target.blockId));
    await page.click(`${ROW(target.blockId)} .row-btn.pin`);
    await statusMatching(page, /^Pinned/);
    expect(sentToolResult(s.inspector.nextRequest, toolUseId(target.blockId))).toBe(original(target.blockId));
    expect(await stateShown(target.blockId)).toBe('pinned');
    expect(await page.textContent(`${ROW(target.blockId)} .row-btn.pin .label`)).toBe('Unpin');
    await page.click(`${ROW(target.blockId)} .row-btn.pin`);
    await statusMatching(page, /^Unpinned/);
    expect(await stateShown(target.blockId)).toBe(target.state);
    expect(sentToolResult(s.inspector.nextRequest, toolUseId(target.blockId))).not.toBe(original(target.blockId));
  });

  it('switches the strategy from the dropdown (the transcript is replayed)', async () => {
    await page.click('vscode-dropdown.strategy');
    await page.click('vscode-dropdown.strategy vscode-option[value="none"]');
    await statusMatching(page, /^Replayed \d+ calls with strategy none/);
    expect(s.inspector.snapshot().strategy).toBe('none');
    await page.waitForFunction(() => !document.querySelector('.grid-spacer .state.s-summarized'));
    expect(s.inspector.snapshot().rows.every((r) => r.state === 'verbatim')).toBe(true);
    await page.click('vscode-dropdown.strategy');
    await page.click('vscode-dropdown.strategy vscode-option[value="default"]');
    await statusMatching(page, /strategy default/);
  });

  it('shows the call-to-call diff and jumps from a ref to its row', async () => {
    await page.click('#tab-diff');
    await page.waitForSelector('.diff-cols');
    const next = s.inspector.snapshot().callIndex;
    const summary = new RegExp(`^#${next} vs call ${next - 1}: \\d+ unchanged, \\d+ added`);
    expect(await page.textContent('.diff-summary')).toMatch(summary);
    // Each changed block says where its text changed.
    const d = s.inspector.handle({ op: 'diff' }) as RequestDiff;
    expect(await page.locator('.diff-edits .edit').count()).toBe(d.edits?.length ?? 0);
    await page.click('vscode-dropdown.diff-call');
    await page.click('vscode-dropdown.diff-call vscode-option[value="16"]');
    await page.waitForFunction(() =>
      /^#16 vs call 15/.test(document.querySelector('.diff-summary')?.textContent ?? ''),
    );
    await screenshot(page, 'actions-diff');
    const link = page.locator('.ref-link:not([disabled])').first();
    const ref = (await link.textContent())!.split(' · ')[0];
    await link.click();
    expect(await page.getAttribute('#tab-context', 'aria-selected')).toBe('true');
    const focusedRef = await page.evaluate(() => document.activeElement?.querySelector('.ref')?.textContent);
    expect(focusedRef).toBe(ref);
  });

  it("runs a finding's one-click action", async () => {
    // Make a large result stand out (strategy "none" keeps everything), then trim it from the findings.
    await page.click('vscode-dropdown.strategy');
    await page.click('vscode-dropdown.strategy vscode-option[value="none"]');
    await statusMatching(page, /strategy none/);
    const f = s.inspector.snapshot().findings.find((x) => x.action && x.action.kind === 'trim');
    expect(f).toBeDefined();
    await page.click('#tab-findings');
    await screenshot(page, 'actions-findings');
    await page.click(`vscode-button.finding-action[data-finding="${f!.id}"]`);
    await statusMatching(page, /^Trimmed/);
    expect(rowOf(f!.action!.blockId!).state).toBe('trimmed');
    expect(s.inspector.snapshot().findings.some((x) => x.id === f!.id)).toBe(false);
  });
});
