/**
 * The offline demo after its scripted prompts: the inspector takes another prompt itself,
 * so a trim made there shows on a real next call (its verdict names the Trimline edit), and
 * closing the demo removes its copy of the sample project.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { lineageCalls } from '../../src/core/store/verdicts';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type Demo } from '../../src/host/standalone/demo';
import { launchBrowser, openInspector, revealRow, ROW, screenshot, statusMatching } from './helpers';

describe('demo: another prompt from the inspector', () => {
  let browser: Browser;
  let demo: Demo;
  const lines: string[] = [];
  beforeAll(async () => {
    browser = await launchBrowser();
    demo = await startDemo({ fast: true, port: 0, strategy: 'none', log: (l) => lines.push(l) });
    await demo.done;
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('a trim in the inspector, then a prompt from it: the next call carries the trim; close removes the workspace', async () => {
    const w = await openInspector(browser, demo.url);
    const { page } = w;
    await page.waitForSelector('.prompt-box:not([hidden]) .prompt-input');
    const before = demo.loop.session.calls.length;
    const snap = demo.inspector.snapshot()!;
    const rows = snap.rows;
    const target = rows
      .filter((r) => r.kind === 'tool_result' && r.sent && r.cached)
      .sort((a, b) => b.tokens - a.tokens)[0];
    await revealRow(page, target.blockId, rows.indexOf(target));
    await page.click(`${ROW(target.blockId)} .row-btn.trim`);
    await page.waitForSelector(`${ROW(target.blockId)} .trim-text`);
    await page.click(`${ROW(target.blockId)} .trim-text`);
    await page.keyboard.type('Trimmed in the demo: the file defines the cart total.');
    await page.click(`${ROW(target.blockId)} .trim-apply`);
    // The trim may not pay back this late in the demo: then it asks, and we apply it anyway.
    const asked = await page
      .waitForSelector('.price-confirm:not([hidden]) .price-apply', { timeout: 3_000 })
      .catch(() => undefined);
    if (asked) await asked.click();
    await statusMatching(page, /^Trimmed/);
    await page.fill('.prompt-input', 'Summarize what you found in one line.');
    await page.press('.prompt-input', 'Enter');
    await statusMatching(page, /^Sent: Summarize/);
    await demo.lastTurn();
    expect(demo.loop.session.calls.length).toBeGreaterThan(before);
    expect(lines.some((l) => l.includes('Summarize what you found in one line.  (from the inspector)'))).toBe(true);
    // The next call's verdict: the cached prefix broke where the user trimmed, a Trimline edit.
    const next = demo.inspector.snapshot()!.calls[before];
    expect(next.verdict?.miss).toMatchObject({ reason: 'messages_changed', changeSource: 'trimline_edit' });
    await page.waitForSelector('.chart-svg .miss-mark');
    await screenshot(page, 'demo-next-prompt');
    expect(w.errors).toEqual([]);
    expect(w.cspViolations).toEqual([]);
    await page.close();
    const workspace = demo.workspace;
    expect(existsSync(workspace)).toBe(true);
    // The journal keeps every call's verdict: `inspect --json` lists them as perCall.
    const dir = join(workspace, '.trimline', 'sessions');
    const journal = join(
      dir,
      readdirSync(dir).find((f) => f.endsWith('.jsonl'))!,
    );
    const perCall = lineageCalls(journal)!;
    expect(perCall.map((c) => c.call)).toEqual(demo.loop.session.calls.map((c) => c.index));
    expect(perCall[before].miss).toMatchObject({ reason: 'messages_changed', changeSource: 'trimline_edit' });
    await demo.close();
    expect(existsSync(workspace)).toBe(false);
  });
});
