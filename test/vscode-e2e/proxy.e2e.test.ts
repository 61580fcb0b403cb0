/**
 * Terminal agents routed through Trimline in a real VS Code (code-server + Chromium): the
 * command starts the proxy and sets ANTHROPIC_BASE_URL for new terminals, a scripted SDK
 * program runs in the integrated terminal, its session appears in the inspector of terminal
 * agents, a trim there changes the program's next upstream request, and Stop Routing ends it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../src/dev/server';
import { makeWorkspace } from './fixtures';
import {
  launchBrowser,
  messageRequests,
  openWorkbench,
  ROOT,
  runCommand,
  shot,
  startCodeServer,
  text,
  toolResult,
  until,
  webviewFrame,
  type CodeServer,
} from './harness';

const CLIENT = path.join(ROOT, 'test', 'fixtures', 'proxy-client', 'client.js');

describe('terminal agents routed through Trimline', () => {
  let server: TestServer;
  let cs: CodeServer;
  let browser: Browser;
  let page: Page;
  let workspace: string;
  const go = path.join(os.tmpdir(), `trimline-proxy-go-${process.pid}`);

  beforeAll(async () => {
    fs.rmSync(go, { force: true });
    server = await startTestServer({ fallback: 'fail' });
    server.script(
      {
        content: [
          { type: 'text', text: 'Reading it.' },
          { type: 'tool_use', name: 'Read', input: { file_path: 'src/big.ts' } },
        ],
      },
      { content: [{ type: 'text', text: 'It defines 200 constants.' }] },
      { content: [{ type: 'text', text: 'Sure.' }] },
    );
    workspace = makeWorkspace();
    cs = await startCodeServer({
      workspace,
      trusted: true,
      settings: {
        'trimline.proxy.upstream': server.url,
        'trimline.proxy.strategy': 'none',
        'workbench.startupEditor': 'none',
        'security.workspace.trust.enabled': false,
        'chat.disableAIFeatures': true,
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
        'terminal.integrated.enablePersistentSessions': false,
      },
    });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    await openWorkbench(page, cs, workspace);
  });

  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail' && page)
      await shot(page, `failed-proxy-${ctx.task.name.replace(/\W+/g, '-').slice(0, 50)}`);
  });

  afterAll(async () => {
    fs.rmSync(go, { force: true });
    await browser?.close();
    await cs?.stop();
    await server?.close();
    if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
  });

  it('routes a terminal program through the proxy; a trim in the inspector reaches its next request', async () => {
    await runCommand(page, 'Trimline: Route Terminal Agents Through Trimline');
    await until('the routing status item', async () =>
      (await page.locator('.statusbar-item', { hasText: 'Trimline :' }).count()) > 0 ? true : undefined,
    );
    await runCommand(page, 'Terminal: Create New Terminal');
    const terminal = page.locator('.terminal-wrapper textarea, .xterm-helper-textarea').first();
    await terminal.waitFor({ state: 'attached', timeout: 30_000 });
    await page.waitForTimeout(1500);
    await terminal.focus();
    await page.keyboard.type(`node ${CLIENT} ${go}`);
    await page.keyboard.press('Enter');
    await until(
      'the program\u2019s first turn through the proxy',
      () => (messageRequests(server).length >= 2 ? true : undefined),
      60_000,
    );
    const first = messageRequests(server);
    const original = text(
      toolResult(
        first[1].body,
        (first[1].body as { messages: { content: { tool_use_id?: string }[] }[] }).messages[2].content[0].tool_use_id!,
      )?.content,
    );
    expect(original).toContain('PROXY-E2E-199');

    await runCommand(page, 'Trimline: Open Inspector of Terminal Agents');
    const inspector = await webviewFrame(page, '.grid-row', 30_000);
    const row = inspector
      .locator('.grid-row', { has: inspector.locator('.c-tool', { hasText: 'Read' }) })
      .filter({ has: inspector.locator('.c-kind', { hasText: 'tool result' }) })
      .first();
    await row.waitFor({ timeout: 30_000 });
    await shot(page, '20-proxy-inspector');
    await row.locator('.row-btn.trim').click();
    await row.locator('.trim-apply').click();
    // The trim is priced before it applies: its price shows in the status line, or, when it
    // would not pay back over the calls expected, in a confirmation (then applied anyway here).
    const confirm = inspector.locator('.price-confirm:not([hidden])');
    const status = inspector.locator('.status');
    const priced = await until('the trim\u2019s price', async () => {
      if ((await confirm.count()) > 0) return (await confirm.innerText()) || undefined;
      const t = await status.innerText();
      return /rewrites|saves|cold/.test(t)
        ? t
        : (await row.getAttribute('class'))?.includes('state-trimmed')
          ? 'applied'
          : undefined;
    });
    if ((await confirm.count()) > 0) {
      expect(priced).toMatch(/will not pay back/);
      await shot(page, '20b-proxy-trim-price');
      await confirm.locator('.price-apply').click();
    }
    await until('the Read result to be trimmed', async () =>
      (await row.getAttribute('class'))?.includes('state-trimmed') ? true : undefined,
    );

    fs.writeFileSync(go, 'go');
    await until('the program\u2019s next call', () => (messageRequests(server).length >= 3 ? true : undefined), 60_000);
    const next = messageRequests(server)[2];
    expect(next.validation.ok, next.validation.message).toBe(true);
    const id = (next.body as { messages: { content: { tool_use_id?: string }[] }[] }).messages[2].content[0]
      .tool_use_id!;
    const sent = text(toolResult(next.body, id)?.content);
    expect(sent).not.toBe(original);
    expect(sent.toLowerCase()).toContain('trimmed by the user');
    await page.waitForTimeout(500);
    await shot(page, '21-proxy-after-trim');

    // A restore is no saving: it is not asked whether it "pays back"; it applies, and the status line
    // states what it adds to every later call.
    await row.locator('.row-btn.restore').click();
    await until('the Read result to be restored', async () =>
      (await row.getAttribute('class'))?.includes('state-verbatim') ? true : undefined,
    );
    expect(await confirm.count()).toBe(0);
    expect(await status.innerText()).toMatch(/Adds [\d.,]+k? tokens .* to every later call/);
    await shot(page, '22-proxy-restore');

    await runCommand(page, 'Trimline: Stop Routing Terminal Agents');
    await until('the routing status item to go', async () =>
      (await page.locator('.statusbar-item', { hasText: 'Trimline :' }).count()) === 0 ? true : undefined,
    );
  });
});
