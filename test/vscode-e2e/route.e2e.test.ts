/**
 * "Route VS Code Agents…" in a real VS Code (code-server + Chromium), with stand-in extensions
 * that declare the real agents' settings (package.json `contributes.configuration` only, the
 * ids of the real extensions): the command lists them, writes each one's setting in the format
 * the real agent reads (checked below, source cited per check), a client with the routed base
 * URL reaches the proxy and is named in the status bar, and "Stop Routing VS Code Agents"
 * restores every file byte for byte.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { parse } from 'jsonc-parser';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../src/dev/server';
import { makeWorkspace } from './fixtures';
import {
  launchBrowser,
  openWorkbench,
  ROOT,
  runCommand,
  shot,
  startCodeServer,
  until,
  type CodeServer,
} from './harness';

interface StandIn {
  readonly publisher: string;
  readonly name: string;
  readonly properties: Record<string, unknown>;
}

const STAND_INS: readonly StandIn[] = [
  // anthropic.claude-code package.json: "claudeCode.environmentVariables", an array of { name, value }.
  {
    publisher: 'anthropic',
    name: 'claude-code',
    properties: {
      'claudeCode.environmentVariables': {
        type: 'array',
        default: [],
        items: { type: 'object', properties: { name: { type: 'string' }, value: { type: 'string' } } },
      },
    },
  },
  // RooCodeInc/Roo-Code src/package.json: "roo-cline.autoImportSettingsPath" (string, default "").
  {
    publisher: 'RooVeterinaryInc',
    name: 'roo-cline',
    properties: { 'roo-cline.autoImportSettingsPath': { type: 'string', default: '' } },
  },
  // Kilo Code src/package.json: "kilo-code.autoImportSettingsPath".
  {
    publisher: 'kilocode',
    name: 'Kilo-Code',
    properties: { 'kilo-code.autoImportSettingsPath': { type: 'string', default: '' } },
  },
  // Continue reads ~/.continue/config.yaml, no VS Code setting for models.
  { publisher: 'Continue', name: 'continue', properties: {} },
  // Cline keeps anthropicBaseUrl in its own state (set in its UI only).
  { publisher: 'saoudrizwan', name: 'claude-dev', properties: {} },
];

function packStandIn(dir: string, s: StandIn): string {
  const root = path.join(dir, `${s.publisher}.${s.name}`);
  fs.mkdirSync(root, { recursive: true });
  const pkg = {
    name: s.name.toLowerCase(),
    displayName: `${s.name} (stand-in)`,
    description: 'Declares the real extension\u2019s settings for the Trimline e2e test.',
    publisher: s.publisher,
    version: '9.9.9',
    engines: { vscode: '^1.90.0' },
    contributes: { configuration: { title: s.name, properties: s.properties } },
  };
  // The real ids keep their case (Kilo-Code); vsce wants a lower-case name, VS Code matches ids case-insensitively.
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ ...pkg, name: s.name }, null, 2));
  fs.writeFileSync(path.join(root, 'README.md'), `# ${s.name} stand-in\n\nSettings only.\n`);
  const out = path.join(dir, `${s.publisher}.${s.name}.vsix`);
  const r = spawnSync(
    process.execPath,
    [
      path.join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce'),
      'package',
      '--no-dependencies',
      '--allow-missing-repository',
      '--skip-license',
      '--out',
      out,
    ],
    { cwd: root, encoding: 'utf8', timeout: 120_000 },
  );
  if (r.status !== 0) throw new Error(`packing the ${s.name} stand-in failed:\n${r.stdout}\n${r.stderr}`);
  return out;
}

const CONTINUE_YAML =
  'name: Local\nversion: 0.0.1\nschema: v1\nmodels:\n  - name: Sonnet\n    provider: anthropic\n    model: claude-sonnet-4-6\n    roles:\n      - chat\n';

describe('VS Code agents routed through Trimline', () => {
  let server: TestServer;
  let cs: CodeServer;
  let browser: Browser;
  let page: Page;
  let workspace: string;
  let scratch: string;
  let home: string;
  let settingsFile: string;
  let originalSettings: string;

  beforeAll(async () => {
    server = await startTestServer({ fallback: 'echo' });
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'trimline-standins-'));
    const vsix = STAND_INS.map((s) => packStandIn(scratch, s));
    home = path.join(scratch, 'home');
    fs.mkdirSync(path.join(home, '.continue'), { recursive: true });
    fs.writeFileSync(path.join(home, '.continue', 'config.yaml'), CONTINUE_YAML);
    workspace = makeWorkspace();
    cs = await startCodeServer({
      workspace,
      trusted: true,
      extraVsix: vsix,
      env: { HOME: home },
      settings: {
        'trimline.proxy.upstream': server.url,
        'workbench.startupEditor': 'none',
        'security.workspace.trust.enabled': false,
        'chat.disableAIFeatures': true,
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
        'claudeCode.environmentVariables': [{ name: 'DISABLE_AUTOUPDATER', value: '1' }],
      },
    });
    settingsFile = path.join(cs.userDataDir, 'User', 'settings.json');
    originalSettings = fs.readFileSync(settingsFile, 'utf8');
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    await openWorkbench(page, cs, workspace);
  });

  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail' && page)
      await shot(page, `failed-route-${ctx.task.name.replace(/\W+/g, '-').slice(0, 50)}`);
  });

  afterAll(async () => {
    await browser?.close();
    await cs?.stop();
    await server?.close();
    if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('routes the picked agents in their own formats and restores every file byte for byte', async () => {
    const storage = path.join(cs.userDataDir, 'User', 'globalStorage', 'trimline.trimline');
    const lmFile = path.join(cs.userDataDir, 'User', 'chatLanguageModels.json');
    const lmBefore = fs.existsSync(lmFile) ? fs.readFileSync(lmFile, 'utf8') : null;
    await runCommand(page, 'Trimline: Route VS Code Agents');
    const rows = page.locator('.quick-input-list .monaco-list-row');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Workspace' }).waitFor({ timeout: 30_000 });
    await rows
      .filter({ hasText: /^User/ })
      .first()
      .click()
      .catch(async () => page.keyboard.press('Enter'));
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Roo Code' }).waitFor({ timeout: 30_000 });
    await shot(page, '30-route-agents-pick');
    // Copilot Chat needs no stand-in: Custom Endpoint models are the workbench's own since VS Code 1.122
    // (a stand-in with Copilot Chat's id is not even listed by VS Code 1.139).
    const listed = await rows.allInnerTexts();
    for (const name of ['Claude Code', 'Roo Code', 'Kilo Code', 'Continue', 'Copilot Chat', 'Cline'])
      expect(listed.join('\n')).toContain(name);
    // Tick each row's checkbox (check() clicks only an unticked one), then OK.
    for (const name of ['Claude Code', 'Roo Code', 'Kilo Code', 'Continue', 'Copilot Chat', 'Cline']) {
      // By the label at the row's start: "roo-cline.autoImportSettingsPath" in Roo's detail also says "cline".
      const box = rows
        .filter({ hasText: new RegExp(`^\\s*${name}`) })
        .first()
        .getByRole('checkbox');
      for (let i = 0; i < 3 && !(await box.isChecked()); i++) {
        await box.click();
        await page.waitForTimeout(300);
      }
    }
    await until('six agents picked', async () =>
      (await page.locator('.quick-input-widget').innerText()).includes('6 Selected') ? true : undefined,
    );
    await page.locator('.quick-input-widget .monaco-button', { hasText: 'OK' }).first().click();
    // What is left by hand (Roo's and Kilo's key, Cline's URL) shows in a dialog with the URL.
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 30_000 });
    await shot(page, '31-route-agents-steps');
    const steps = await dialog.innerText();
    expect(steps).toMatch(/custom base URL/);
    const record = JSON.parse(fs.readFileSync(path.join(storage, 'route-journal.json'), 'utf8')) as {
      url: string;
      changes: { file: string }[];
    };
    const url = record.url;
    expect(steps).toContain(url);
    await page.keyboard.press('Escape');

    const settings = parse(fs.readFileSync(settingsFile, 'utf8')) as Record<string, unknown>;
    // Claude Code extension: claudeCode.environmentVariables [{ name, value }], the user's entry kept.
    expect(settings['claudeCode.environmentVariables']).toEqual([
      { name: 'DISABLE_AUTOUPDATER', value: '1' },
      { name: 'ANTHROPIC_BASE_URL', value: url },
    ]);
    // Roo Code src/utils/autoImportSettings.ts reads roo-cline.autoImportSettingsPath; the file is
    // src/core/config/importExport.ts's { providerProfiles: { currentApiConfigName, apiConfigs } }.
    for (const [key, agent] of [
      ['roo-cline.autoImportSettingsPath', 'roo'],
      ['kilo-code.autoImportSettingsPath', 'kilo'],
    ] as const) {
      const file = settings[key] as string;
      expect(file).toBe(path.join(storage, 'route', `${agent}-import.json`));
      const imp = JSON.parse(fs.readFileSync(file, 'utf8')) as {
        providerProfiles: {
          currentApiConfigName: string;
          apiConfigs: Record<string, { apiProvider: string; anthropicBaseUrl: string; apiKey?: string }>;
        };
      };
      const profile = imp.providerProfiles.apiConfigs[imp.providerProfiles.currentApiConfigName];
      expect(profile).toEqual({ apiProvider: 'anthropic', anthropicBaseUrl: url });
    }
    // continuedev/continue core/llm/llms/Anthropic.ts: POST new URL("messages", apiBase).
    const yaml = fs.readFileSync(path.join(home, '.continue', 'config.yaml'), 'utf8');
    expect(yaml).toBe(
      CONTINUE_YAML.replace('    provider: anthropic\n', `    provider: anthropic\n    apiBase: ${url}/v1/\n`),
    );
    expect(new URL('messages', `${url}/v1/`).href).toBe(`${url}/v1/messages`);
    // VS Code ≥ 1.122 chatLanguageModels.json: [{ name, vendor: "customendpoint", apiType: "messages", models: [{ id,
    // url, … }] }].
    const groups = parse(fs.readFileSync(lmFile, 'utf8')) as {
      vendor: string;
      apiType: string;
      apiKey?: string;
      models: { id: string; url: string }[];
    }[];
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({ vendor: 'customendpoint', apiType: 'messages' });
    expect(groups[0].apiKey).toBeUndefined();
    for (const m of groups[0].models) expect(m.url).toBe(`${url}/v1/messages`);

    // A client with the routed base URL (what the Claude Code extension starts `claude` with)
    // reaches the proxy, and the status bar names it.
    const client = new Anthropic({
      apiKey: 'sk-ant-e2e-route',
      baseURL: url,
      maxRetries: 0,
      defaultHeaders: { 'user-agent': 'claude-cli/2.1.114 (external, claude-vscode)', 'x-app': 'cli' },
    });
    await client.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 32,
      messages: [{ role: 'user', content: 'routed from the Claude Code setting' }],
    });
    expect(server.requests.some((r) => r.path === '/v1/messages')).toBe(true);
    await until('the status bar to name Claude Code', async () =>
      (await page.locator('.statusbar-item', { hasText: 'Claude Code' }).count()) > 0 ? true : undefined,
    );
    await shot(page, '32-route-agents-status');
    // Cline (routed by hand) is announced when its first request arrives; the status bar follows it.
    const cline = new Anthropic({ apiKey: 'sk-ant-e2e-route', baseURL: url, maxRetries: 0 });
    await cline.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 32,
      system: 'You are Cline, a highly skilled software engineer.',
      messages: [{ role: 'user', content: '<task>\nrouted by hand\n</task>' }],
    });
    await until('the notice that Cline arrived', async () =>
      (await page.locator('.notifications-toasts', { hasText: /Cline.s requests now arrive/ }).count()) > 0
        ? true
        : undefined,
    );
    await until('the status bar to name Cline', async () =>
      (await page.locator('.statusbar-item', { hasText: 'Cline' }).count()) > 0 ? true : undefined,
    );
    await shot(page, '33-route-agents-cline');

    await runCommand(page, 'Trimline: Stop Routing VS Code Agents');
    await until('the journal to go', () =>
      fs.existsSync(path.join(storage, 'route-journal.json')) ? undefined : true,
    );
    expect(fs.readFileSync(settingsFile, 'utf8')).toBe(originalSettings);
    expect(fs.readFileSync(path.join(home, '.continue', 'config.yaml'), 'utf8')).toBe(CONTINUE_YAML);
    expect(fs.existsSync(path.join(storage, 'route', 'roo-import.json'))).toBe(false);
    // VS Code 1.139 creates chatLanguageModels.json itself (`[]`): it comes back as it was, or goes if it was not
    // there.
    if (lmBefore === null) expect(fs.existsSync(lmFile)).toBe(false);
    else expect(fs.readFileSync(lmFile, 'utf8')).toBe(lmBefore);
    await until('the routing status item to go', async () =>
      (await page.locator('.statusbar-item', { hasText: 'Trimline :' }).count()) === 0 ? true : undefined,
    );
  });
});
