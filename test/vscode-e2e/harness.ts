/**
 * Real VS Code for the end-to-end test: code-server (VS Code's workbench with a real
 * Node extension host, installed by install.sh under .vscode-test/) driven by
 * playwright-core in Debian's Chromium. See docs/vscode-e2e.md.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import type { TestServer } from '../../src/dev/server';

export const ROOT = path.resolve(__dirname, '../..');
export const CACHE = path.join(ROOT, '.vscode-test');
export const NODE24_BIN = path.join(CACHE, 'node24', 'bin');
export const CODE_SERVER = path.join(CACHE, 'code-server', 'node_modules', '.bin', 'code-server');
export const VSIX = path.join(ROOT, 'trimline.vsix');
export const SHOTS = path.join(ROOT, 'test-results', 'vscode');
export const EXTENSION_ID = 'trimline.trimline';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface CodeServer {
  readonly url: string;
  readonly dir: string;
  readonly userDataDir: string;
  readonly output: () => string;
  stop(): Promise<void>;
}

export interface CodeServerOptions {
  readonly workspace: string;
  readonly trusted: boolean;
  readonly settings: Record<string, unknown>;
  readonly env?: Record<string, string>;
  /** More .vsix files to install beside Trimline (stand-in extensions). */
  readonly extraVsix?: readonly string[];
}

function csEnv(dir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  // No inherited key: the test decides which credentials the extension sees.
  const { ANTHROPIC_API_KEY: _k, ANTHROPIC_BASE_URL: _u, ANTHROPIC_AUTH_TOKEN: _t, ...env } = process.env;
  return {
    ...env,
    PATH: `${NODE24_BIN}:${process.env.PATH ?? ''}`,
    XDG_CONFIG_HOME: path.join(dir, 'xdg-config'),
    XDG_DATA_HOME: path.join(dir, 'xdg-data'),
    ...extra,
  };
}

/** Install the packaged .vsix into a fresh extensions dir and start code-server on a free port. */
export async function startCodeServer(o: CodeServerOptions): Promise<CodeServer> {
  if (!fs.existsSync(CODE_SERVER)) throw new Error(`code-server is not installed: run bash test/vscode-e2e/install.sh`);
  if (!fs.existsSync(VSIX)) throw new Error(`${VSIX} is missing: run npm run package`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trimline-e2e-'));
  const userDataDir = path.join(dir, 'user-data');
  const extensionsDir = path.join(dir, 'extensions');
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.writeFileSync(path.join(userDataDir, 'User', 'settings.json'), JSON.stringify(o.settings, null, 2));
  const config = path.join(dir, 'config.yaml');
  fs.writeFileSync(config, 'auth: none\ncert: false\n');
  const install = spawnSync(
    CODE_SERVER,
    [
      '--config',
      config,
      '--extensions-dir',
      extensionsDir,
      '--user-data-dir',
      userDataDir,
      '--install-extension',
      VSIX,
      ...(o.extraVsix ?? []).flatMap((v) => ['--install-extension', v]),
      '--force',
    ],
    {
      env: csEnv(dir),
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  if (install.status !== 0) throw new Error(`installing the .vsix failed:\n${install.stdout}\n${install.stderr}`);
  const port = await freePort();
  const args = [
    '--config',
    config,
    '--auth',
    'none',
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--user-data-dir',
    userDataDir,
    '--extensions-dir',
    extensionsDir,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-getting-started-override',
    ...(o.trusted ? ['--disable-workspace-trust'] : []),
    o.workspace,
  ];
  const child: ChildProcess = spawn(CODE_SERVER, args, { env: csEnv(dir, o.env), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (out += b.toString()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`code-server exited (${child.exitCode}):\n${out}`);
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`code-server did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url,
    dir,
    userDataDir,
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.pid !== undefined) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** Open the workbench on a folder and wait until it is usable. */
export async function openWorkbench(page: Page, server: CodeServer, folder: string): Promise<void> {
  await page.goto(`${server.url}/?folder=${encodeURIComponent(folder)}`);
  await page.waitForSelector('.monaco-workbench', { timeout: 90_000 });
  // The extension is scanned once the extension host is up: its activity-bar container appears then.
  await page.waitForSelector('.activitybar .action-item [aria-label^="Trimline"]', { timeout: 90_000 });
  await page.waitForTimeout(500);
}

/** Run a command through F1 and the quick input. */
export async function runCommand(page: Page, title: string): Promise<void> {
  await page.keyboard.press('Escape');
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  await input.fill(`>${title}`);
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  await row.waitFor({ state: 'visible', timeout: 15_000 });
  await page.waitForTimeout(200);
  await input.press('Enter');
}

/**
 * The frame of a webview whose document has `selector` (webviews are iframes inside
 * iframes), and whose text contains `text` when given.
 */
export async function webviewFrame(page: Page, selector: string, timeoutMs = 30_000, text?: string): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const f of page.frames()) {
      if (f === page.mainFrame()) continue;
      const found = await f.$(selector).catch(() => null);
      if (!found) continue;
      if (text === undefined) return f;
      const body = await f.evaluate(() => document.body.textContent ?? '').catch(() => '');
      if (body.includes(text)) return f;
    }
    if (Date.now() > deadline) throw new Error(`no webview with ${selector}`);
    await page.waitForTimeout(250);
  }
}

export async function shot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SHOTS, { recursive: true });
  const file = path.join(SHOTS, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

/** Poll until `check` returns a value (not undefined), or fail with `what`. */
export async function until<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The extension's own log (LogOutputChannel "Trimline") under the user data dir. */
export function extensionLog(userDataDir: string): string {
  const logs = path.join(userDataDir, 'logs');
  const found: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === 'Trimline.log') found.push(p);
    }
  };
  if (fs.existsSync(logs)) walk(logs);
  return found.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
}

// ── the chat and the requests the test server recorded ──────────────────────

export interface WireToolResult {
  type: 'tool_result';
  tool_use_id: string;
  content: unknown;
  is_error?: boolean;
}

/** The tool_result for `id` in a recorded request body, if present. */
export function toolResult(body: unknown, id: string): WireToolResult | undefined {
  const messages = (body as { messages?: { content: unknown }[] }).messages ?? [];
  for (const m of messages) {
    if (!Array.isArray(m.content)) continue;
    for (const b of m.content as { type?: string; tool_use_id?: string }[])
      if (b.type === 'tool_result' && b.tool_use_id === id) return b as WireToolResult;
  }
  return undefined;
}

/** The text of a tool_result's content (a string or text blocks). */
export function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c: { text?: string }) => c.text ?? '').join('');
  return '';
}

/** The Messages API calls the test server received. */
export const messageRequests = (server: TestServer) => server.requests.filter((r) => r.path === '/v1/messages');

/** Send a prompt from the chat composer (Enter sends). */
export async function sendPrompt(chat: Frame, prompt: string): Promise<void> {
  await chat.fill('#prompt', prompt);
  await chat.press('#prompt', 'Enter');
}

/** Wait until `turnEnds` turns have ended and the chat is idle. */
export async function waitIdle(chat: Frame, turnEnds: number): Promise<void> {
  await chat.waitForFunction(
    (n) => document.querySelectorAll('.turn-end').length >= n && !!document.querySelector('#stop[hidden]'),
    turnEnds,
    { timeout: 60_000 },
  );
}

/**
 * After an inspector action: it applies at once (`applied()` turns true), or, when it would not
 * pay back over the calls expected, the inspector first asks with its price; then "Apply now"
 * is chosen. Returns the confirmation's text, or undefined when none was asked.
 */
export async function applyPriced(
  frame: Frame,
  what: string,
  applied: () => Promise<boolean>,
): Promise<string | undefined> {
  const confirm = frame.locator('.price-confirm:not([hidden])');
  let asked: string | undefined;
  await until(what, async () => {
    if (await applied()) return true;
    if ((await confirm.count()) > 0) {
      asked = await confirm.innerText();
      await confirm.locator('.price-apply').click();
    }
    return undefined;
  });
  return asked;
}
