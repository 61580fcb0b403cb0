/**
 * The inspector's Tools tab in a VS Code webview: absent until the host reports MCP
 * servers, then tokens per server and tool definition; a switch posts `mcpSwitch`
 * (deferred to the cache's expiry), and "Apply now" posts `mcpApply` after saying its price.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importTranscript } from '../../src/core/import';
import { ReplayInspector, startInspectorServer, type InspectorServer } from '../../src/host/standalone';
import type { HostMessage, McpInspectorInfo } from '../../src/protocol';
import { RecordingHost } from '../unit/inspect/helpers';
import { launchBrowser, openInspector, screenshot, TRANSCRIPTS, vscodeApi } from './helpers';

const INFO: McpInspectorInfo = {
  toolsTokens: 4_100,
  servers: [
    {
      name: 'everything',
      origin: '.vscode/mcp.json',
      state: 'ready',
      enabled: true,
      pending: false,
      tokens: 140,
      tools: [
        { name: 'echo', apiName: 'mcp__everything__echo', tokens: 72, enabled: true, pending: false },
        { name: 'get-env', apiName: 'mcp__everything__get-env', tokens: 68, enabled: true, pending: false },
      ],
    },
  ],
};

describe('Tools tab (MCP) in a VS Code webview', () => {
  let browser: Browser;
  let server: InspectorServer;
  let page: Page;
  const posted = (): Promise<{ type: string; id?: number; request?: Record<string, unknown> }[]> =>
    page.evaluate(() => (window as unknown as { __posted: { type: string }[] }).__posted);
  const hostSends = (m: HostMessage): Promise<void> => page.evaluate((msg) => window.postMessage(msg, '*'), m);
  const requests = async (op: string) => (await posted()).filter((m) => m.type === 'request' && m.request?.op === op);

  beforeAll(async () => {
    browser = await launchBrowser();
    server = await startInspectorServer(new RecordingHost(), { root: process.cwd() });
    page = (
      await openInspector(browser, server.pageUrl, {
        beforeLoad: vscodeApi,
        waitFor: 'p.loading',
        width: 1100,
        height: 700,
      })
    ).page;
    const snapshot = new ReplayInspector(
      importTranscript(`${TRANSCRIPTS}/343e3472-b9b6-4561-ade0-21d1a4730c11.jsonl`),
      { strategy: 'default' },
    ).snapshot();
    await hostSends({ type: 'snapshot', snapshot });
    await page.waitForSelector('#tab-context');
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('has no Tools tab until the host reports MCP servers, then lists their definitions with tokens', async () => {
    expect(await page.locator('[role=tablist] [role=tab]').count()).toBe(3);
    await hostSends({ type: 'mcp', info: INFO });
    await page.click('#tab-tools');
    await page.waitForSelector('.mcp-server[data-server="everything"]');
    expect(await page.locator('[role=tablist] [role=tab]').count()).toBe(4);
    expect(await page.textContent('.mcp-summary')).toBe(
      'Tool definitions: 4.1k tokens on every call, 140 of them from 1 MCP server.',
    );
    const rows = await page.$$eval('.mcp-tools tr', (els) =>
      els.map((e) => ({
        tool: (e as HTMLElement).dataset.tool,
        tokens: e.querySelector('[data-tokens]')?.getAttribute('data-tokens'),
      })),
    );
    expect(rows).toEqual([
      { tool: 'mcp__everything__echo', tokens: '72' },
      { tool: 'mcp__everything__get-env', tokens: '68' },
    ]);
    await screenshot(page, 'mcp-tools-tab');
  });

  it('a switch posts mcpSwitch deferred to the cache expiry; Apply now states the price and posts mcpApply', async () => {
    await page.click('tr[data-tool="mcp__everything__get-env"] input[type=checkbox]');
    await page.waitForFunction(() =>
      (window as unknown as { __posted: { request?: { op?: string } }[] }).__posted.some(
        (m) => m.request?.op === 'mcpSwitch',
      ),
    );
    expect((await requests('mcpSwitch')).map((m) => m.request)).toEqual([
      { op: 'mcpSwitch', server: 'everything', tool: 'get-env', enabled: false, now: false },
    ]);
    const pending: McpInspectorInfo = {
      ...INFO,
      servers: [
        { ...INFO.servers[0], tools: [INFO.servers[0].tools[0], { ...INFO.servers[0].tools[1], pending: true }] },
      ],
      applyNow: { rewriteUsd: 0.0123, savedPerCallUsd: 0.00002, breakEvenCalls: 615 },
    };
    await hostSends({ type: 'mcp', info: pending });
    await page.waitForSelector('.mcp-pending [data-action="mcp-apply"]');
    expect(await page.textContent('.mcp-pending')).toMatch(
      /^1 switch waits for the prompt cache to expire \(no extra cost\)\. Apply now: \+\$0\.012 on the next call \(the prompt cache is rewritten\), then \$0\.000020 saved per call, paid off after 615 calls\./,
    );
    await page.click('.mcp-pending [data-action="mcp-apply"]');
    await page.waitForFunction(() =>
      (window as unknown as { __posted: { request?: { op?: string } }[] }).__posted.some(
        (m) => m.request?.op === 'mcpApply',
      ),
    );
    expect((await requests('mcpApply')).map((m) => m.request)).toEqual([{ op: 'mcpApply' }]);
  });
});
