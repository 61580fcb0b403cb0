/**
 * MCP in a real VS Code (code-server + Chromium): the test workspace's
 * `.vscode/mcp.json` names @modelcontextprotocol/server-everything; the chat calls
 * one of its tools after the user approves it ("Always for everything"), the
 * result reaches the model, and the inspector's Tools tab shows its tool
 * definitions with their tokens. Screenshots: test-results/vscode/mcp-*.png.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../src/dev/server';
import { API_KEY, makeWorkspace } from './fixtures';
import {
  extensionLog,
  launchBrowser,
  messageRequests,
  openWorkbench,
  runCommand,
  sendPrompt,
  shot,
  startCodeServer,
  text,
  toolResult,
  waitIdle,
  webviewFrame,
  type CodeServer,
} from './harness';

const EVERYTHING = path.resolve(__dirname, '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');

describe('MCP servers in VS Code (code-server)', () => {
  let server: TestServer;
  let cs: CodeServer;
  let browser: Browser;
  let page: Page;
  let workspace: string;

  beforeAll(async () => {
    server = await startTestServer({ fallback: 'fail', apiKey: API_KEY });
    workspace = makeWorkspace();
    fs.mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
    // VS Code's own format, with a comment, as users write it.
    fs.writeFileSync(
      path.join(workspace, '.vscode', 'mcp.json'),
      `{\n  // a server nobody here wrote\n  "servers": {\n    "everything": { "type": "stdio", "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(EVERYTHING)}, "stdio"] },\n  },\n}\n`,
    );
    cs = await startCodeServer({
      workspace,
      trusted: true,
      env: { ANTHROPIC_API_KEY: API_KEY },
      settings: {
        'trimline.baseUrl': server.url,
        'trimline.commandApproval': 'ask',
        'workbench.startupEditor': 'none',
        'security.workspace.trust.enabled': false,
        'chat.disableAIFeatures': true,
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
      },
    });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    await openWorkbench(page, cs, workspace);
  });

  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail' && page)
      await shot(page, `mcp-failed-${ctx.task.name.replace(/\W+/g, '-').slice(0, 60)}`);
  });

  afterAll(async () => {
    await browser?.close();
    await cs?.stop();
    await server?.close();
    if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
  });

  it('calls a server-everything tool after approval, and the inspector shows its tool definitions with tokens', async () => {
    await runCommand(page, 'Trimline: New Chat');
    const chat = await webviewFrame(page, '#prompt');
    server.script(
      {
        content: [
          { type: 'text', text: 'Asking the everything server.' },
          {
            type: 'tool_use',
            id: 'toolu_echo',
            name: 'mcp__everything__echo',
            input: { message: 'hello from VS Code' },
          },
        ],
      },
      { content: [{ type: 'tool_use', id: 'toolu_img', name: 'mcp__everything__get-tiny-image', input: {} }] },
      { content: [{ type: 'text', text: 'The server echoed it and sent an image.' }] },
    );
    await sendPrompt(chat, 'Try the everything server.');
    const card = await chat.waitForSelector('.approval [data-action="always"]', { timeout: 90_000 });
    expect(await card.textContent()).toBe('Always for everything');
    expect(await chat.$eval('.approval .approval-what', (e) => e.textContent ?? '')).toContain(
      'Call echo of MCP server everything',
    );
    await shot(page, 'mcp-01-approval');
    await card.click();
    // "Always": the second call to the same server is not asked again.
    await waitIdle(chat, 1);
    expect(await chat.$$eval('.approval', (els) => els.length)).toBe(1);
    await shot(page, 'mcp-02-turn-done');

    const reqs = messageRequests(server);
    expect(reqs).toHaveLength(3);
    expect(reqs.every((r) => r.validation.ok)).toBe(true);
    const tools = (reqs[0].body as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(tools).toEqual(
      expect.arrayContaining(['read_file', 'mcp__everything__echo', 'mcp__everything__get-tiny-image']),
    );
    expect(text(toolResult(reqs[2].body, 'toolu_echo')?.content)).toBe('Echo: hello from VS Code');
    expect(JSON.stringify(toolResult(reqs[2].body, 'toolu_img')?.content)).toContain('"type":"image"');

    await runCommand(page, 'Trimline: Open Context Inspector');
    const inspector = await webviewFrame(page, '#tab-tools', 30_000);
    await inspector.click('#tab-tools');
    const echo = inspector.locator(
      '.mcp-server[data-server="everything"] tr[data-tool="mcp__everything__echo"] td[data-tokens]',
    );
    await echo.waitFor({ timeout: 30_000 });
    expect(Number(await echo.getAttribute('data-tokens'))).toBeGreaterThan(10);
    const rows = await inspector.$$eval('.mcp-server[data-server="everything"] tr[data-tool]', (els) => els.length);
    expect(rows).toBeGreaterThanOrEqual(10);
    expect(await inspector.textContent('.mcp-summary')).toMatch(
      /Tool definitions: .* tokens on every call, .* of them from 1 MCP server/,
    );
    await shot(page, 'mcp-03-inspector-tools');

    // Switching a tool off waits for the cache to expire, and says what applying it now would cost.
    await inspector.locator('tr[data-tool="mcp__everything__get-env"] input[type="checkbox"]').click();
    await inspector.waitForSelector('.mcp-pending [data-action="mcp-apply"]', { timeout: 30_000 });
    expect(await inspector.textContent('.mcp-pending')).toMatch(
      /1 switch waits for the prompt cache to expire .*Apply now: \+\$/,
    );
    await shot(page, 'mcp-04-switch-pending');
    const log = extensionLog(cs.userDataDir);
    expect(log).toContain('MCP server "everything" (.vscode/mcp.json): 13 tools');
  });
});
