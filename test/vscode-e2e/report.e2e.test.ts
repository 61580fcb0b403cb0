/**
 * "Trimline: What Would Trimming Have Saved?" in a real VS Code (code-server + Chromium):
 * the command reads a fixture Claude Code projects directory ($CLAUDE_CONFIG_DIR/projects),
 * the report view lists its sessions with the fit column, and clicking a session opens
 * it in the inspector replayed with the chosen strategy (the selector, or a strategy's
 * cost cell from the keyboard), whatever the trimline.strategy setting says; a second
 * run takes every unchanged file from the per-file cache in the extension's globalStorage.
 * Screenshots: test-results/vscode/.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  extensionLog,
  launchBrowser,
  openWorkbench,
  ROOT,
  runCommand,
  shot,
  startCodeServer,
  until,
  webviewFrame,
  type CodeServer,
} from './harness';

const SESSION = '343e3472-b9b6-4561-ade0-21d1a4730c11.jsonl';

/** The inspector webview whose strategy switcher shows `strategy` (with its rows drawn). */
async function inspectorWith(page: Page, strategy: string): Promise<Frame> {
  return until(
    `an inspector replaying with ${strategy}`,
    async () => {
      for (const f of page.frames()) {
        const shown = await f
          .evaluate(() =>
            document.querySelector('.grid-row')
              ? (document.querySelector('vscode-dropdown.strategy') as (HTMLElement & { value?: string }) | null)?.value
              : undefined,
          )
          .catch(() => undefined);
        if (shown === strategy) return f;
      }
      return undefined;
    },
    60_000,
  );
}

/** A Claude Code config dir: the report fixtures' project plus one real session (CC0). */
function makeClaudeConfig(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trimline-claude-'));
  fs.cpSync(path.join(ROOT, 'test/fixtures/report/projects'), path.join(dir, 'projects'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'projects', '-work-m-claude'), { recursive: true });
  fs.copyFileSync(
    path.join(ROOT, 'test/fixtures/transcripts/m-claude', SESSION),
    path.join(dir, 'projects', '-work-m-claude', SESSION),
  );
  return dir;
}

describe('Trimline report in VS Code (code-server)', () => {
  let cs: CodeServer;
  let browser: Browser;
  let page: Page;
  let workspace: string;
  let claude: string;

  beforeAll(async () => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'trimline-report-ws-'));
    claude = makeClaudeConfig();
    cs = await startCodeServer({
      workspace,
      trusted: true,
      env: { CLAUDE_CONFIG_DIR: claude },
      settings: {
        'trimline.strategy': 'none',
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'security.workspace.trust.enabled': false,
        'chat.disableAIFeatures': true,
        'window.commandCenter': false,
      },
    });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    await openWorkbench(page, cs, workspace);
  });

  afterAll(async () => {
    await browser?.close();
    await cs?.stop();
    for (const d of [workspace, claude]) if (d) fs.rmSync(d, { recursive: true, force: true });
  });

  it('scans the projects directory, shows the report, and opens a clicked session in the inspector with the chosen strategy', async () => {
    await runCommand(page, 'Trimline: What Would Trimming Have Saved?');
    const view = await webviewFrame(page, 'table.sessions', 120_000);
    const rows = await view.$$eval('table.sessions tr', (trs) =>
      trs.slice(1).map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
    );
    // The fixture project's main conversation, its two subagents, and the real session.
    expect(rows).toHaveLength(4);
    // Columns: date, project, session, model, calls, recorded input, output, none, fit, then each strategy.
    const real = rows.find((r) => r[2].startsWith('343e3472'))!;
    expect(real[0]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(real[4]).toBe('20');
    expect(real[8]).toMatch(/^[+-]\d+\.\d%$/);
    expect(Math.abs(parseFloat(real[8]))).toBeLessThan(5);
    expect(await view.$$eval('svg', (s) => s.length)).toBe(2);
    await shot(page, 'report-01-view');

    // The setting says `none`; the report's selector (default: `default`) wins for the session it opens.
    expect(await view.$eval('#strategy', (el) => (el as HTMLSelectElement).value)).toBe('default');
    await view.click('button.link:has-text("343e3472")');
    await until(
      'the inspector tab for the session with default',
      async () =>
        (await page.locator('.tab', { hasText: `Inspector: ${SESSION} (default)` }).count()) > 0 ? true : undefined,
      60_000,
    );
    const withDefault = await inspectorWith(page, 'default');
    // Under `default`, some recorded tool results are summarized, pruned or trimmed.
    expect(
      await until(
        'rows changed by the default pipeline',
        async () =>
          (await withDefault
            .locator('.grid-row.state-summarized, .grid-row.state-trimmed, .grid-row.state-pruned')
            .count()) > 0
            ? true
            : undefined,
        30_000,
      ),
    ).toBe(true);
    await shot(page, 'report-02-inspector-default');

    // Back to the report: the `none` cost cell of the session, from the keyboard, opens it with `none`.
    await page.locator('.tab', { hasText: 'What Would Trimming Have Saved?' }).click();
    const again = await webviewFrame(page, 'table.sessions', 60_000);
    const noneCell = again.locator('tr', { hasText: '343e3472' }).locator('button.strategy[data-strategy="none"]');
    await noneCell.focus();
    await noneCell.press('Enter');
    await until(
      'the inspector tab for the session with none',
      async () =>
        (await page.locator('.tab', { hasText: `Inspector: ${SESSION} (none)` }).count()) > 0 ? true : undefined,
      60_000,
    );
    const withNone = await inspectorWith(page, 'none');
    expect(await withNone.locator('.grid-row').count()).toBeGreaterThan(0);
    expect(
      await withNone.locator('.grid-row.state-summarized, .grid-row.state-trimmed, .grid-row.state-pruned').count(),
    ).toBe(0);
    await shot(page, 'report-03-inspector-none');

    // The per-file cache lives under the extension's globalStorage: a second run reads no unchanged file.
    expect(extensionLog(cs.userDataDir)).toContain('0 of 3 files unchanged');
    await runCommand(page, 'Trimline: What Would Trimming Have Saved?');
    const log = await until(
      'the second run, from the cache',
      () => {
        const text = extensionLog(cs.userDataDir);
        return text.includes('3 of 3 files unchanged') ? text : undefined;
      },
      60_000,
    );
    expect(log).toMatch(/3 of 3 files unchanged \(from the cache [^)]*globalStorage[^)]*report-cache\.json\)/);
  });
});
