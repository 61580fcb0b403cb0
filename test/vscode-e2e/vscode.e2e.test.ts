/**
 * Trimline in a real VS Code (code-server + Chromium): the packaged .vsix is installed,
 * the chat drives a scripted multi-tool session against the local Anthropic-compatible
 * test server, the inspector trims one tool result and restores another through the
 * UI, and the requests the server received prove the effect. A second run in
 * Restricted Mode checks that edits and commands are off and the chat says so.
 * Screenshots: test-results/vscode/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../src/dev/server';
import {
  AGENT_SUMMARY,
  API_KEY,
  CHANGES,
  FIRST_PROMPT,
  GREET_AFTER,
  GREET_BEFORE,
  makeWorkspace,
  restrictedTurns,
  scriptedTurns,
  SECOND_PROMPT,
} from './fixtures';
import {
  applyPriced,
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
  until,
  waitIdle,
  webviewFrame,
  type CodeServer,
} from './harness';

describe('Trimline in VS Code (code-server)', () => {
  let server: TestServer;
  let cs: CodeServer;
  let browser: Browser;
  let page: Page;
  let workspace: string;
  const started = Date.now();
  /** VS Code's own measure (code loading + activate), activate() alone, and the lazy core's load. */
  const timings: Record<string, number> = {};

  beforeAll(async () => {
    server = await startTestServer({ fallback: 'fail', apiKey: API_KEY });
    workspace = makeWorkspace();
    cs = await startCodeServer({
      workspace,
      trusted: true,
      env: { ANTHROPIC_API_KEY: API_KEY },
      settings: {
        'trimline.baseUrl': server.url,
        'trimline.commandApproval': 'ask',
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'security.workspace.trust.enabled': false,
        'extensions.ignoreRecommendations': true,
        'window.commandCenter': false,
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
      await shot(page, `failed-${ctx.task.name.replace(/\W+/g, '-').slice(0, 60)}`);
  });

  afterAll(async () => {
    await browser?.close();
    await cs?.stop();
    await server?.close();
    if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
  });

  it('inspector before any chat shows what to do; its buttons start a chat / open the import dialog', async () => {
    const hasFrame = async (selector: string) =>
      (await Promise.all(page.frames().map((f) => f.$(selector).catch(() => null)))).some(Boolean);
    await runCommand(page, 'Trimline: Open Context Inspector');
    const inspector = await webviewFrame(page, '.empty-state vscode-button', 60_000);
    const view = await inspector.evaluate(() => ({
      title: document.querySelector('.empty-state h1')?.textContent,
      buttons: [...document.querySelectorAll('.empty-state vscode-button')].map((b) => [
        (b as HTMLElement).dataset.action,
        b.textContent?.trim(),
      ]),
      inspectorHidden: (document.querySelector('.inspector-main') as HTMLElement).hidden,
    }));
    expect(view).toEqual({
      title: 'No session to inspect yet',
      buttons: [
        ['startChat', 'Start a Chat'],
        ['importTranscript', 'Import Transcript…'],
      ],
      inspectorHidden: true,
    });
    await shot(page, '00-inspector-empty');

    // Start a Chat (Enter): trimline.newChat reveals the chat view, which was not open before.
    expect(await hasFrame('#prompt')).toBe(false);
    await inspector.press('.empty-state vscode-button[data-action="startChat"]', 'Enter');
    const chat = await webviewFrame(page, '#prompt', 30_000);
    await chat.waitForSelector('.empty:not([hidden])');
    await until(
      'the host to log the action',
      () => (/inspector: startChat from the empty state/.test(extensionLog(cs.userDataDir)) ? true : undefined),
      20_000,
    );
    // Still no session: the inspector keeps its empty state.
    expect(await inspector.isVisible('.empty-state')).toBe(true);

    // Import Transcript… (Space): the import dialog; the transcript then shows in this same inspector.
    const file = path.resolve(__dirname, '../fixtures/transcripts/m-claude/343e3472-b9b6-4561-ade0-21d1a4730c11.jsonl');
    await inspector.press('.empty-state vscode-button[data-action="importTranscript"]', 'Space');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    expect(await page.locator('.quick-input-widget .quick-input-title').textContent()).toContain('Import Transcript');
    await page.locator('.quick-input-list .monaco-list-row').first().waitFor({ state: 'visible' });
    await shot(page, '00-inspector-empty-import-dialog');
    await until('the typed path to stick in the file dialog', async () => {
      await input.fill(file);
      await page.waitForTimeout(400);
      return (await input.inputValue()) === file ? true : undefined;
    });
    await input.press('Enter');
    await inspector.waitForSelector('.grid-spacer .grid-row', { timeout: 60_000 });
    expect(await inspector.isHidden('.empty-state')).toBe(true);
    expect(await inspector.textContent('.title')).toBe(path.basename(file));
    await page.locator('.tabs-container .tab', { hasText: `Inspector: ${path.basename(file)}` }).waitFor();
    expect(await page.locator('.tabs-container .tab', { hasText: 'Context Inspector' }).count()).toBe(0);
    await shot(page, '00-inspector-empty-imported');
    // The rest of the run starts from a clean editor area.
    await runCommand(page, 'View: Close All Editors');
    await until('the inspector tab to close', async () =>
      (await page.locator('.tabs-container .tab').count()) === 0 ? true : undefined,
    );
  });

  it('runs a scripted multi-tool session from the chat, with an approved edit', async () => {
    await runCommand(page, 'Trimline: New Chat');
    const chat = await webviewFrame(page, '#prompt');
    await chat.waitForSelector('.empty:not([hidden])');
    await shot(page, '01-chat-empty');

    server.script(...scriptedTurns());
    await sendPrompt(chat, FIRST_PROMPT);
    await chat.waitForSelector('.approval [data-action="diff"]', { timeout: 60_000 });
    await shot(page, '02-approval');
    await chat.click('.approval [data-action="diff"]');
    await page.waitForSelector('.monaco-diff-editor', { timeout: 20_000 });
    await page.waitForTimeout(500);
    await shot(page, '03-diff-preview');
    expect(fs.readFileSync(path.join(workspace, 'src', 'greet.ts'), 'utf8')).toBe(GREET_BEFORE);
    await chat.click('.approval [data-action="approve"]');
    // The new file, then the command: each asks, each is approved from the keyboard-reachable button
    // (a card being answered is `.answering` until the host settles it).
    await chat.waitForSelector('.approval.settled', { timeout: 30_000 });
    await chat.click('.approval:not(.settled):not(.answering) [data-action="approve"]', { timeout: 30_000 });
    const command = await chat.waitForSelector('.approval:not(.settled):not(.answering) pre', { timeout: 30_000 });
    expect(await command.textContent()).toBe('cat src/greet.ts docs/CHANGES.md');
    await shot(page, '04-command-approval');
    await chat.click('.approval:not(.settled):not(.answering) [data-action="approve"]');
    await waitIdle(chat, 1);
    await shot(page, '05-turn-done');

    expect(fs.readFileSync(path.join(workspace, 'src', 'greet.ts'), 'utf8')).toBe(GREET_AFTER);
    expect(fs.readFileSync(path.join(workspace, 'docs', 'CHANGES.md'), 'utf8')).toBe(CHANGES);
    const reqs = messageRequests(server);
    expect(reqs).toHaveLength(7);
    expect(text(toolResult(reqs[6].body, 'toolu_cmd')?.content)).toContain('`Hello, ${name}!`');
    expect(text(toolResult(reqs[6].body, 'toolu_cmd')?.content)).toContain('[exit code 0]');
    expect(reqs.every((r) => r.validation.ok)).toBe(true);
    // Every request carries the key from the environment; none carries it in a setting.
    expect(reqs.every((r) => r.response?.status === 200)).toBe(true);
    // The tool cards: one per call, results present, none an error.
    const cards = await chat.$$eval('.tool-card', (els) =>
      els.map((e) => ({
        tool: (e as HTMLElement).dataset.tool,
        error: e.classList.contains('error'),
        running: e.classList.contains('running'),
      })),
    );
    expect(cards.map((c) => c.tool)).toEqual([
      'read_file',
      'search',
      'trim_tool_result',
      'edit_file',
      'write_file',
      'run_command',
    ]);
    expect(cards.some((c) => c.error || c.running)).toBe(false);
    // Markdown rendered as DOM, never as HTML from the model.
    const md = await chat.evaluate(() => {
      const last = [...document.querySelectorAll('.msg.assistant .md')].at(-1) as HTMLElement;
      return {
        strong: last.querySelectorAll('strong').length,
        code: last.querySelectorAll('pre code').length,
        items: last.querySelectorAll('li').length,
        links: [...last.querySelectorAll('a')].map((a) => ({
          href: a.getAttribute('href'),
          rel: a.getAttribute('rel'),
        })),
        imgs: document.querySelectorAll('.transcript img, .transcript script').length,
        xss: (window as unknown as { __xss?: number }).__xss,
        text: last.textContent ?? '',
      };
    });
    expect(md.strong).toBe(1);
    expect(md.code).toBe(1);
    expect(md.items).toBe(2);
    expect(md.links).toEqual([{ href: 'https://example.com/docs', rel: 'noopener noreferrer' }]);
    expect(md.imgs).toBe(0);
    expect(md.xss).toBeUndefined();
    expect(md.text).toContain('<img src=x onerror=');
  });

  it('trims one tool result and restores another in the inspector; the next request shows both', async () => {
    const reqs = messageRequests(server);
    const originalSearch = text(toolResult(reqs[2].body, 'toolu_search')?.content);
    const originalRead = text(toolResult(reqs[1].body, 'toolu_read')?.content);
    expect(originalSearch).toContain('src/many.ts');
    expect(originalRead).toContain("return 'Hello, ' + name;");
    // The agent's own trim went out with the edit request.
    expect(text(toolResult(reqs[3].body, 'toolu_search')?.content)).toContain(AGENT_SUMMARY);

    await runCommand(page, 'Trimline: Open Context Inspector');
    const inspector = await webviewFrame(page, '.grid-row', 30_000);
    const row = (tool: string) =>
      inspector
        .locator('.grid-row', { has: inspector.locator('.c-tool', { hasText: tool }) })
        .filter({ has: inspector.locator('.c-kind', { hasText: 'tool result' }) });
    await row('search').first().waitFor();
    expect(await row('search').first().getAttribute('class')).toContain('state-trimmed');
    await shot(page, '06-inspector');

    // Trim opens the row's summary editor. The result is tiny (30 tokens): the automatic summary would be
    // longer, which the inspector refuses, so the user writes a shorter one of their own.
    await row('read_file').first().locator('.row-btn.trim').click();
    await inspector
      .locator('vscode-text-area.trim-text')
      .first()
      .evaluate((el, v) => {
        (el as HTMLElement & { value: string }).value = v;
      }, 'greet(name): string');
    await row('read_file').first().locator('.trim-apply').click();
    // Each action is priced first; one that will not pay back asks (and is applied here).
    await applyPriced(
      inspector,
      'the read_file result to be trimmed',
      async () => (await row('read_file').first().getAttribute('class'))?.includes('state-trimmed') ?? false,
    );
    await row('search').first().locator('.row-btn.restore').click();
    const asked = await applyPriced(
      inspector,
      'the search result to be restored',
      async () => (await row('search').first().getAttribute('class'))?.includes('state-verbatim') ?? false,
    );
    // A restore is no saving: it is not asked whether it "pays back"; the status line states what it adds.
    expect(asked).toBeUndefined();
    expect(await inspector.locator('.status').innerText()).toMatch(/Adds [\d.,]+k? tokens .* to every later call/);
    await shot(page, '07-inspector-trim-restore');

    const chat = await webviewFrame(page, '#prompt');
    await sendPrompt(chat, SECOND_PROMPT);
    await waitIdle(chat, 2);
    const after = messageRequests(server);
    expect(after).toHaveLength(8);
    const last = after[7];
    expect(last.validation.ok).toBe(true);
    const read = text(toolResult(last.body, 'toolu_read')?.content);
    expect(read).not.toBe(originalRead);
    expect(read.toLowerCase()).toContain('summary by the user');
    expect(read).toContain('greet(name): string');
    expect(text(toolResult(last.body, 'toolu_search')?.content)).toBe(originalSearch);
    await page.waitForTimeout(500);
    await shot(page, '08-second-turn');
  });

  it('restores the chat and the inspector (with the user trim) after a window reload', async () => {
    // VS Code's own reload (as a user would): the workbench saves its editors before it goes.
    await runCommand(page, 'Developer: Reload Window');
    await page.waitForEvent('framenavigated', { timeout: 30_000 });
    await page.waitForSelector('.monaco-workbench', { timeout: 90_000 });
    const inspector = await webviewFrame(page, '.grid-row', 60_000);
    const chat = await webviewFrame(page, '#prompt', 30_000);
    await chat.waitForSelector('.notice');
    const transcript = await chat.$eval('.transcript', (e) => e.textContent ?? '');
    expect(transcript).toContain(FIRST_PROMPT);
    expect(transcript).toContain('No, that is all');
    const readRow = inspector
      .locator('.grid-row', { has: inspector.locator('.c-tool', { hasText: 'read_file' }) })
      .filter({ has: inspector.locator('.c-kind', { hasText: 'tool result' }) });
    await until('the journaled user trim to be back', async () =>
      (await readRow.first().getAttribute('class'))?.includes('state-trimmed') ? true : undefined,
    );
    await shot(page, '09-after-reload');
  });

  it('imports a recorded Claude Code transcript into its own inspector tab', async () => {
    const file = path.resolve(__dirname, '../fixtures/transcripts/m-claude/343e3472-b9b6-4561-ade0-21d1a4730c11.jsonl');
    await runCommand(page, 'Trimline: Import Transcript…');
    // code-server has no native dialog: the simple file dialog takes a typed path.
    // It fills in the folder it starts from once that is listed: type the path after that, and check it stuck.
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await page.locator('.quick-input-list .monaco-list-row').first().waitFor({ state: 'visible' });
    await until('the typed path to stick in the file dialog', async () => {
      await input.fill(file);
      await page.waitForTimeout(400);
      return (await input.inputValue()) === file ? true : undefined;
    });
    await input.press('Enter');
    const imported = await webviewFrame(page, '.grid-row', 60_000, path.basename(file));
    const rows = await imported.$$eval('.grid-row', (els) => els.length);
    expect(rows).toBeGreaterThan(10);
    await shot(page, '10-imported-transcript');
  });

  it('compacts the history with an LLM compression strategy picked in Compact Now', async () => {
    const before = messageRequests(server).length;
    server.script({
      content: [
        {
          type: 'text',
          text: 'TL;DR: greet() in src/greet.ts now returns a template literal with an exclamation mark.',
        },
      ],
    });
    await runCommand(page, 'Trimline: Compact Now');
    const input = page.locator('.quick-input-widget input');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'whole-history' }).first().waitFor();
    await input.fill('whole-history');
    await input.press('Enter');
    // Compact Now is priced first: one that will not pay back over the calls expected asks (a modal), and is confirmed
    // here.
    const dialog = page.locator('.monaco-dialog-box');
    const chat = await webviewFrame(page, '#prompt');
    const outcome = await until('the compaction or its price confirmation', async () => {
      if ((await dialog.count()) > 0 && (await dialog.first().isVisible())) return 'asked';
      return (await chat.locator('.notice', { hasText: /Compacted with whole-history/ }).count()) > 0
        ? 'done'
        : undefined;
    });
    if (outcome === 'asked') {
      expect(await dialog.first().innerText()).toMatch(/will not pay back/);
      await shot(page, '13b-compact-now-price');
      await dialog.first().getByRole('button', { name: 'Compact now' }).click();
    }
    await chat.waitForSelector('.notice >> text=/Compacted with whole-history/', { timeout: 30_000 });
    const reqs = messageRequests(server);
    expect(reqs.length).toBe(before + 1);
    const summaryRequest = reqs[reqs.length - 1].body as { stream?: boolean; system?: unknown };
    expect(summaryRequest.stream ?? false).toBe(false);
    await runCommand(page, 'Trimline: Open Context Inspector');
    await webviewFrame(page, '.grid-row.state-summarized', 30_000);
    await shot(page, '11-compacted');
  });

  it('exports what the model sees as Anthropic JSON', async () => {
    const target = path.join(workspace, 'export.json');
    await runCommand(page, 'Trimline: Export Session (Anthropic JSON)…');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await page.locator('.quick-input-list .monaco-list-row').first().waitFor({ state: 'visible' });
    await until('the typed path to stick in the save dialog', async () => {
      await input.fill(target);
      await page.waitForTimeout(400);
      return (await input.inputValue()) === target ? true : undefined;
    });
    await input.press('Enter');
    const json = await until('the export file', () =>
      fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : undefined,
    );
    const body = JSON.parse(json) as { model: string; system: unknown; tools: unknown[]; messages: { role: string }[] };
    expect(body.model).toBe('claude-sonnet-4-6');
    expect(body.tools.length).toBe(7);
    expect(body.messages[0].role).toBe('user');
    expect(json).not.toContain(API_KEY);
  });

  it('stops a streaming answer with Escape and keeps the session valid', async () => {
    const chat = await webviewFrame(page, '#prompt');
    server.fault({ kind: 'slow', delayMs: 150 });
    server.script({ content: [{ type: 'text', text: Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ') }] });
    await sendPrompt(chat, 'Write a long answer.');
    await chat.waitForSelector('#stop:not([hidden])');
    await chat.waitForFunction(() =>
      ([...document.querySelectorAll('.msg.assistant .md')].at(-1)?.textContent ?? '').includes('word3'),
    );
    await chat.press('#prompt', 'Escape');
    await chat.waitForSelector('#stop[hidden]', { state: 'attached', timeout: 20_000 });
    await shot(page, '12-stopped');
    server.script({ content: [{ type: 'text', text: 'Short answer.' }] });
    await sendPrompt(chat, 'Then a short one.');
    await chat.waitForFunction(
      () => (document.querySelector('.transcript')?.textContent ?? '').includes('Short answer.'),
      undefined,
      { timeout: 30_000 },
    );
    const reqs = messageRequests(server);
    expect(reqs.at(-1)?.validation.ok).toBe(true);
    // The interrupted answer is never sent back as if it were complete.
    expect(JSON.stringify(reqs.at(-1)?.body)).not.toContain('word79');
  });

  it('shows an API error in place and continues the turn on Retry', async () => {
    const chat = await webviewFrame(page, '#prompt');
    const errorsBefore = await chat.$$eval('.error-block', (els) => els.length);
    server.fault({ kind: 'http', status: 401, errorType: 'authentication_error', message: 'invalid x-api-key' });
    await sendPrompt(chat, 'One more question.');
    await chat.waitForFunction((n) => document.querySelectorAll('.error-block').length > n, errorsBefore, {
      timeout: 30_000,
    });
    const error = await chat.$eval('.error-block:last-of-type', (e) => ({
      text: e.textContent ?? '',
      buttons: [...e.querySelectorAll('button')].map((b) => b.textContent),
    }));
    expect(error.text).toContain('API key missing or invalid');
    expect(error.buttons).toEqual(['Retry', 'Set API Key']);
    await shot(page, '13-error-retry');
    server.script({ content: [{ type: 'text', text: 'Answer after the retry.' }] });
    await chat.click('.error-block:last-of-type button[data-action="retry"]');
    await chat.waitForFunction(
      () => (document.querySelector('.transcript')?.textContent ?? '').includes('Answer after the retry.'),
      undefined,
      { timeout: 30_000 },
    );
    const last = messageRequests(server).at(-1);
    expect(last?.validation.ok).toBe(true);
    expect(JSON.stringify(last?.body)).toContain('One more question.');
  });

  it('reports the activation time VS Code measured (Show Running Extensions)', async () => {
    await runCommand(page, 'Developer: Show Running Extensions');
    const row = page.locator('.runtime-extensions-editor .monaco-list-row', { hasText: 'Trimline' }).first();
    await row.waitFor({ timeout: 30_000 });
    const text = (await row.textContent()) ?? '';
    await shot(page, '14-running-extensions');
    const ms = /Activation:\s*(\d+)\s*ms/.exec(text);
    expect(ms).not.toBeNull();
    timings.vscodeActivationMs = Number(ms?.[1]);
    await page.keyboard.press('Escape');
  });

  it('records activation time and logs requests without the key', () => {
    const log = extensionLog(cs.userDataDir);
    expect(log).toMatch(/activated in [\d.]+ ms/);
    expect(log).toMatch(/call 0: /);
    expect(log).not.toContain(API_KEY);
    const activation = /activated in ([\d.]+) ms \(module evaluated ([\d.]+) ms/.exec(log);
    const core = /core loaded in (\d+) ms/.exec(log);
    fs.mkdirSync(path.resolve(__dirname, '../../test-results/vscode'), { recursive: true });
    fs.writeFileSync(path.resolve(__dirname, '../../test-results/vscode/trimline.log'), log);
    fs.writeFileSync(
      path.resolve(__dirname, '../../test-results/vscode/timings.json'),
      JSON.stringify(
        {
          ...timings,
          activateCallMs: Number(activation?.[1]),
          coreLoadMs: Number(core?.[1]),
          trustedRunMs: Date.now() - started,
        },
        null,
        2,
      ),
    );
  });
});

describe('Trimline in Restricted Mode', () => {
  let server: TestServer;
  let cs: CodeServer;
  let browser: Browser;
  let workspace: string;

  beforeAll(async () => {
    server = await startTestServer({ fallback: 'fail', apiKey: API_KEY });
    workspace = makeWorkspace();
    cs = await startCodeServer({
      workspace,
      trusted: false,
      env: { ANTHROPIC_API_KEY: API_KEY },
      settings: {
        'trimline.baseUrl': server.url,
        'workbench.startupEditor': 'none',
        'security.workspace.trust.startupPrompt': 'never',
        'chat.disableAIFeatures': true,
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
      },
    });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await cs?.stop();
    await server?.close();
    if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
  });

  it('says edits and commands are off, and the edit tool refuses', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await openWorkbench(page, cs, workspace);
    await runCommand(page, 'Trimline: New Chat');
    const chat = await webviewFrame(page, '#prompt');
    const banner = await chat.waitForSelector('.banner.restricted:not([hidden])');
    expect(await banner.textContent()).toMatch(/Restricted Mode.*edit_file, write_file and run_command are off/);
    server.script(...restrictedTurns());
    await sendPrompt(chat, 'Change the greeting to Hi.');
    await waitIdle(chat, 1);
    await shot(page, 'restricted-01-chat');
    const card = await chat.$eval('.tool-card[data-tool="edit_file"]', (e) => ({
      error: e.classList.contains('error'),
      text: e.textContent ?? '',
    }));
    expect(card.error).toBe(true);
    const reqs = messageRequests(server);
    const result = toolResult(reqs[1].body, 'toolu_edit_r');
    expect(result?.is_error).toBe(true);
    expect(text(result?.content)).toContain('not trusted');
    expect(fs.readFileSync(path.join(workspace, 'src', 'greet.ts'), 'utf8')).toBe(GREET_BEFORE);
  });
});
