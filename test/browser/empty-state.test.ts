/**
 * The inspector's empty state (no session yet): what it says, exactly the buttons its
 * host offers, keyboard operation, the protocol messages the buttons post (through
 * VS Code's `acquireVsCodeApi`, and through the standalone server, which validates
 * them), and leaving it when a session appears.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importTranscript } from '../../src/core/import';
import { ReplayInspector, startInspectorServer, type InspectorServer } from '../../src/host/standalone';
import {
  parseWebviewMessage,
  type HostMessage,
  type InspectorAction,
  type InspectorSnapshot,
} from '../../src/protocol';
import { RecordingHost } from '../unit/inspect/helpers';
import { focused, launchBrowser, openInspector, screenshot, TRANSCRIPTS, vscodeApi, type Watched } from './helpers';

const BOTH: InspectorAction[] = ['startChat', 'importTranscript'];

function sessionSnapshot(): InspectorSnapshot {
  return new ReplayInspector(importTranscript(`${TRANSCRIPTS}/343e3472-b9b6-4561-ade0-21d1a4730c11.jsonl`), {
    strategy: 'default',
  }).snapshot();
}

/** What the empty state shows: its buttons (action, label, appearance, description) and texts. */
function emptyView(page: Page) {
  return page.evaluate(() => {
    const root = document.querySelector('.empty-state') as HTMLElement;
    const buttons = [...root.querySelectorAll('vscode-button')].map((b) => ({
      action: (b as HTMLElement).dataset.action,
      label: b.textContent?.trim(),
      appearance: b.getAttribute('appearance'),
      detail: document.getElementById(b.getAttribute('aria-describedby') ?? '')?.textContent ?? '',
    }));
    const hidden = (sel: string) => (document.querySelector(sel) as HTMLElement).hidden;
    return {
      visible: !root.hidden,
      mainHidden: hidden('.inspector-main'),
      loadingHidden: hidden('.loading'),
      title: root.querySelector('h1')?.textContent,
      text: root.textContent ?? '',
      buttons,
    };
  });
}

/** The focused element's action and whether its focus ring (inside the toolkit button) is drawn. */
function focusedAction(page: Page) {
  return page.evaluate(() => {
    const a = document.activeElement as HTMLElement | null;
    const control = a?.shadowRoot?.querySelector('.control');
    return { action: a?.dataset.action, ring: control ? getComputedStyle(control).outlineStyle : 'none' };
  });
}

describe('empty state in a VS Code webview', () => {
  let browser: Browser;
  let server: InspectorServer;
  let w: Watched;
  let page: Page;
  const posted = (): Promise<unknown[]> => page.evaluate(() => (window as unknown as { __posted: unknown[] }).__posted);
  const hostSends = (m: HostMessage | Record<string, unknown>): Promise<void> =>
    page.evaluate((msg) => window.postMessage(msg, '*'), m);

  beforeAll(async () => {
    browser = await launchBrowser();
    // The server only serves the document and bundles here: messages go through acquireVsCodeApi.
    server = await startInspectorServer(new RecordingHost(), { root: process.cwd() });
    w = await openInspector(browser, server.pageUrl, {
      beforeLoad: vscodeApi,
      waitFor: 'p.loading',
      width: 1000,
      height: 700,
    });
    page = w.page;
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('announces ready, then shows what to do with the two buttons the host offered', async () => {
    await page.waitForFunction(() => (window as unknown as { __posted: unknown[] }).__posted.length > 0);
    expect(await posted()).toEqual([{ type: 'ready' }]);
    await hostSends({ type: 'empty', actions: BOTH });
    await page.waitForSelector('.empty-state vscode-button');
    const v = await emptyView(page);
    expect(v).toMatchObject({
      visible: true,
      mainHidden: true,
      loadingHidden: true,
      title: 'No session to inspect yet',
    });
    expect(v.text).toContain('Start a chat or import a transcript');
    expect(v.buttons.map((b) => [b.action, b.label, b.appearance])).toEqual([
      ['startChat', 'Start a Chat', 'primary'],
      ['importTranscript', 'Import Transcript…', 'secondary'],
    ]);
    expect(v.buttons[0].detail).toMatch(/chat view/);
    expect(v.buttons[1].detail).toContain('Claude Code (JSONL), Cline, OpenAI chat (SWE-agent) or Anthropic JSON');
    // Nothing to say in the status bar: it is not drawn under the empty state.
    expect(await page.isVisible('.statusbar')).toBe(false);
    await screenshot(page, 'empty-state-vscode-dark');
  });

  it('Tab reaches each button with a visible focus ring; Enter and Space post runAction, once per press', async () => {
    await page.keyboard.press('Tab');
    expect(await focusedAction(page)).toEqual({ action: 'startChat', ring: 'solid' });
    await page.keyboard.press('Enter');
    // A second press while the host has not answered is dropped (no second dialog).
    await page.keyboard.press('Enter');
    expect((await posted()).slice(1)).toEqual([
      { type: 'request', id: 1, request: { op: 'runAction', action: 'startChat' } },
    ]);
    await hostSends({ type: 'response', id: 1, ok: true });
    await page.keyboard.press('Tab');
    expect(await focusedAction(page)).toEqual({ action: 'importTranscript', ring: 'solid' });
    await page.keyboard.press('Space');
    const all = await posted();
    expect(all.slice(1)).toEqual([
      { type: 'request', id: 1, request: { op: 'runAction', action: 'startChat' } },
      { type: 'request', id: 2, request: { op: 'runAction', action: 'importTranscript' } },
    ]);
    // The host's validator takes every posted message as it is.
    for (const m of all) expect(parseWebviewMessage(m)).toEqual(m);
    // A failure the host reports shows in the alert region.
    await hostSends({ type: 'response', id: 2, ok: false, error: 'not a transcript: notes.txt' });
    await page.waitForFunction(() => document.querySelector('.alert')?.textContent === 'not a transcript: notes.txt');
    expect(await page.isVisible('.alert')).toBe(true);
    await screenshot(page, 'empty-state-vscode-focus');
  });

  it('ignores malformed empty messages; a host with no actions gets no buttons', async () => {
    await hostSends({ type: 'empty', actions: ['startChat', 'deleteEverything'] });
    await hostSends({ type: 'empty', actions: 'startChat' });
    await hostSends({ type: 'empty', actions: ['startChat', 'startChat'] });
    await hostSends({ type: 'empty', actions: [] });
    await page.waitForFunction(() => document.querySelectorAll('.empty-state vscode-button').length === 0);
    const v = await emptyView(page);
    expect(v.visible).toBe(true);
    expect(v.text).toContain('as soon as it makes its first request');
    expect(w.errors).toEqual([]);
  });

  it('leaves the empty state when a session appears, keeping the focus in the page, and comes back when it ends', async () => {
    await hostSends({ type: 'empty', actions: ['startChat'] });
    await page.waitForSelector('.empty-state vscode-button[data-action="startChat"]');
    await page.focus('.empty-state vscode-button');
    await hostSends({ type: 'snapshot', snapshot: sessionSnapshot() });
    await page.waitForSelector('.grid-spacer .grid-row');
    const v = await emptyView(page);
    expect(v).toMatchObject({ visible: false, mainHidden: false });
    expect((await focused(page)).cls).toBe('tab');
    expect(await page.textContent('.title')).toBe('343e3472-b9b6-4561-ade0-21d1a4730c11.jsonl');
    await hostSends({ type: 'empty', actions: BOTH });
    await page.waitForSelector('.empty-state:not([hidden])');
    expect(await page.isHidden('.header')).toBe(true);
    expect(w.cspViolations).toEqual([]);
    expect(w.errors).toEqual([]);
  });
});

describe('empty state from the standalone server', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('offers no button when the host has no chat; refuses a forged runAction; leaves when the session appears', async () => {
    const host = new RecordingHost();
    const server = await startInspectorServer(host, { root: process.cwd() });
    try {
      const w = await openInspector(browser, server.pageUrl, {
        theme: 'light',
        waitFor: '.empty-state',
        width: 1000,
        height: 700,
      });
      const v = await emptyView(w.page);
      expect(v.buttons).toEqual([]);
      expect(v.text).toContain('as soon as it makes its first request');
      await screenshot(w.page, 'empty-state-standalone-light');
      const post = (request: unknown) =>
        w.page.evaluate(async (r) => {
          const headers = {
            'Content-Type': 'application/json',
            'X-Trimline-Token': new URLSearchParams(location.search).get('token') ?? '',
          };
          const res = await fetch('api/request', {
            method: 'POST',
            headers,
            body: JSON.stringify({ type: 'request', id: 7, request: r }),
          });
          return { status: res.status, body: res.ok ? ((await res.json()) as unknown) : await res.text() };
        }, request);
      expect(await post({ op: 'runAction', action: 'startChat' })).toEqual({
        status: 200,
        body: [{ type: 'response', id: 7, ok: false, error: '"startChat" is not offered by this inspector' }],
      });
      expect((await post({ op: 'runAction', action: 'openTerminal' })).status).toBe(400);
      expect(host.received).toEqual([]);
      host.session = sessionSnapshot();
      server.broadcast();
      await w.page.waitForSelector('.grid-spacer .grid-row');
      expect(await w.page.isHidden('.empty-state')).toBe(true);
      expect(w.cspViolations).toEqual([]);
      expect(w.errors).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('a host that offers both gets them by keyboard, validated by the server (dark and high contrast)', async () => {
    const host = new RecordingHost(BOTH);
    const server = await startInspectorServer(host, { root: process.cwd() });
    try {
      for (const theme of ['dark', 'high-contrast']) {
        const w = await openInspector(browser, server.pageUrl, {
          theme,
          waitFor: '.empty-state vscode-button',
          width: 1000,
          height: 700,
        });
        await w.page.keyboard.press('Tab');
        await w.page.keyboard.press('Enter');
        await w.page.keyboard.press('Tab');
        expect(await focusedAction(w.page)).toEqual({ action: 'importTranscript', ring: 'solid' });
        await screenshot(w.page, `empty-state-standalone-${theme}`);
        await w.page.keyboard.press('Space');
        await expect.poll(() => host.received.length).toBe(2);
        expect(host.received.splice(0)).toEqual([
          { op: 'runAction', action: 'startChat' },
          { op: 'runAction', action: 'importTranscript' },
        ]);
        expect(w.cspViolations).toEqual([]);
        await w.page.close();
      }
    } finally {
      await server.close();
    }
  });
});
