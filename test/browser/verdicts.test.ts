/**
 * Cache verdicts in the browser inspector of a proxy: an SDK client breaks its own cache
 * through the proxy; the chart marks the calls that missed, a mark opens (by keyboard) the
 * call's diff with its verdict, and the Diff tab's call picker names the reason.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../src/dev/server';
import { startProxy, type ProxyHandle } from '../../src/host/proxy/server';
import { breakerClient } from '../integration/cache-breaker-client';
import { ccClient, ccTurn } from '../integration/claude-code-client';
import { launchBrowser, openInspector, ROW, screenshot, statusMatching } from './helpers';

describe('inspector: cache verdicts of a proxied session', () => {
  let browser: Browser;
  let server: TestServer;
  let proxy: ProxyHandle;
  beforeAll(async () => {
    browser = await launchBrowser();
    server = await startTestServer({ fallback: 'echo' });
    proxy = await startProxy({ upstream: server.url, strategy: 'none', cacheDiagnostics: true });
    await breakerClient(proxy.url).run();
  });
  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await server?.close();
  });

  it('marks the misses on the chart; a mark opens the call\u2019s diff with its verdict', async () => {
    const w = await openInspector(browser, proxy.inspectorUrl);
    const { page } = w;
    // The active session is the epoch after the edit: its first call (the edit) and the model switch missed.
    const snap = proxy.engine.active()!.inspector.snapshot()!;
    const misses = snap.calls.filter((p) => p.verdict?.miss && p.verdict.miss.reason !== 'first_call');
    expect(misses.map((p) => p.verdict!.miss!.reason)).toEqual(['messages_changed', 'model_changed']);
    await page.waitForSelector('.chart-svg .miss-mark');
    expect(await page.locator('.chart-svg .miss-mark').count()).toBe(2);
    const label = await page.getAttribute('.chart-svg .miss-mark >> nth=1', 'aria-label');
    expect(label).toContain(`Call ${misses[1].call}: Missed the cache: the model changed`);
    // Keyboard: focus the mark, Enter opens the diff of that call.
    await page.focus('.chart-svg .miss-mark >> nth=1');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.diff-view .verdict.verdict-miss');
    const text = (await page.textContent('.diff-view .verdict')) ?? '';
    expect(text).toContain('Missed the cache: the model changed (claude-sonnet-4-6 → claude-opus-4-6)');
    expect(text).toContain('[API]');
    expect(text).toContain('API: the model changed');
    // The picker names the reason of each call that missed.
    const options = await page.locator('.diff-call vscode-option').allTextContents();
    expect(options).toContain(
      `Call ${misses[0].call} — missed: an earlier message changed (message 0 (user), by the client)`,
    );
    await screenshot(page, 'call-detail-verdict');
    // The edit's diff (the first call of the new epoch) is against the earlier epoch's last request, by
    // content: the one edited message shows as changed, with where it changed; the rest is not "added".
    expect(misses[0].call).toBe(6);
    await page.click('.chart-svg .miss-mark >> nth=0');
    await page.waitForFunction(() =>
      /^#6 vs call 5 \(before the client rewrote/.test(document.querySelector('.diff-summary')?.textContent ?? ''),
    );
    expect(await page.textContent('.diff-col.col-changed h4')).toBe('Changed (1)');
    expect(await page.textContent('.diff-col.col-added h4')).toBe('Added (2)');
    expect(await page.textContent('.diff-edits .edit-head')).toMatch(/^0\.0: differs from character 8 /);
    expect(await page.textContent('.diff-edits ins')).toContain('reworded: look at the build.');
    await screenshot(page, 'diff-across-epochs');
    expect(w.errors).toEqual([]);
    expect(w.cspViolations).toEqual([]);
    await page.close();
    // The same in the high-contrast theme: the marks and the verdict take the theme's colours.
    const hc = await openInspector(browser, proxy.inspectorUrl, { theme: 'high-contrast' });
    await hc.page.click('.chart-svg .miss-mark >> nth=0');
    await hc.page.waitForSelector('.diff-view .verdict.verdict-miss');
    await screenshot(hc.page, 'call-detail-verdict-high-contrast');
    expect(hc.errors).toEqual([]);
    await hc.page.close();
  });

  it('prices a trim first; one that will not pay back asks, and can wait for the next cold cache or be cancelled', async () => {
    // A Claude-Code-shaped session: its tool results are what the inspector trims.
    server.script(...Array.from({ length: 4 }, (_, k) => () => ccTurn(k, 4)));
    await ccClient(proxy.url, 'sess-price-1').prompt('Read the modules.');
    const w = await openInspector(browser, proxy.inspectorUrl);
    const { page } = w;
    const st = proxy.engine.active()!;
    expect(st.entry.id).toBe('sess-price-1');
    const target = st.inspector.snapshot()!.rows.find((r) => r.cached && r.sent && r.kind === 'tool_result')!;
    const price = st.inspector.handle({
      op: 'price',
      action: { op: 'trim', blockId: target.blockId, text: 'short' },
    }) as { paysBack: boolean; rewriteTokens: number };
    expect(price.paysBack).toBe(false);
    expect(price.rewriteTokens).toBeGreaterThan(0);
    const trim = async (): Promise<void> => {
      await page.click(`${ROW(target.blockId)} .row-btn.trim`);
      await page.waitForSelector(`${ROW(target.blockId)} .trim-text`);
      await page.click(`${ROW(target.blockId)} .trim-text`);
      await page.keyboard.type('short');
      await page.click(`${ROW(target.blockId)} .trim-apply`);
      await page.waitForSelector('.price-confirm:not([hidden])');
    };
    await trim();
    const text = (await page.textContent('.price-confirm .price-text')) ?? '';
    expect(text).toMatch(/Rewrites [\d.]+k? cached tokens on the next call \(\$[\d.]+ extra\)/);
    expect(text).toContain('will not pay back');
    // Keyboard: focus is on "Wait for the next cold cache"; Enter chooses it.
    expect(await page.evaluate(() => document.activeElement?.className)).toBe('price-defer');
    await screenshot(page, 'price-confirm');
    await page.keyboard.press('Enter');
    expect(await statusMatching(page, /^Waiting for the next cold cache/)).toContain('5m TTL');
    expect(st.inspector.deferred.size).toBe(1);
    expect(st.entry.session.allOverlays()).toHaveLength(0);
    // Escape cancels: nothing changes, nothing waits.
    await trim();
    await page.keyboard.press('Escape');
    await statusMatching(page, /^Cancelled/);
    expect(st.inspector.deferred.size).toBe(1);
    expect(st.entry.session.allOverlays()).toHaveLength(0);
    expect(w.errors).toEqual([]);
    expect(w.cspViolations).toEqual([]);
    await page.close();
  });

  it('lists the proxied sessions (a subagent under its session) and follows the active one unless one is picked', async () => {
    // A subagent of sess-price-1: the same client session, another conversation with its own system prompt.
    server.script({ content: [{ type: 'text', text: 'Found 3 test files.' }] });
    await new Anthropic({ apiKey: 'k', baseURL: proxy.url, maxRetries: 0 }).messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 100,
      system: 'You are a search subagent. Answer with file names only.',
      messages: [{ role: 'user', content: 'Subagent: search the tests.' }],
      metadata: { user_id: JSON.stringify({ device_id: 'dev-1', account_uuid: 'acc-1', session_id: 'sess-price-1' }) },
    });
    const child = proxy.engine.sessions.all().find((e) => e.key === 'sess-price-1' && e.epoch > 1)!;
    const w = await openInspector(browser, proxy.inspectorUrl);
    const { page } = w;
    await page.waitForSelector('.session-label:not([hidden]) vscode-option[value="breaker-session-1"]', {
      state: 'attached',
    });
    const options = await page
      .locator('vscode-dropdown.session-picker vscode-option')
      .evaluateAll((els) => els.map((e) => [e.getAttribute('value'), e.textContent]));
    expect(options[0]).toEqual([
      '',
      expect.stringContaining('Follow the active session (Proxied: Subagent: search the tests.)'),
    ]);
    const ids = options.map((o) => o[0]);
    // The subagent right under its session, marked as a child.
    expect(ids.indexOf(child.id)).toBe(ids.indexOf('sess-price-1') + 1);
    expect(options[ids.indexOf(child.id)][1]).toMatch(/^\u21b3 Proxied: Subagent/);
    // Each entry names the agent it came from (client-kind.ts): the Claude-Code-shaped session, the SDK subagent.
    expect(options[ids.indexOf('sess-price-1')][1]).toContain(' · Claude Code · ');
    expect(options[ids.indexOf(child.id)][1]).toContain(' · SDK · ');
    // The breaker's edited history is a later epoch of its conversation (same system and tools): its own entry.
    expect(ids).toEqual(expect.arrayContaining(['breaker-session-1', 'breaker-session-1.e2']));
    expect(options[ids.indexOf('breaker-session-1.e2')][1]).not.toMatch(/^\u21b3/);
    await page.click('vscode-dropdown.session-picker');
    await screenshot(page, 'session-picker');
    // Pick the first breaker epoch: the inspector shows it, and keeps showing it while another session is active.
    await page.click('vscode-dropdown.session-picker vscode-option[value="breaker-session-1"]');
    await page.waitForFunction(() => document.querySelector('.title')?.textContent === 'Proxied: Prompt 1: what next?');
    server.script(...Array.from({ length: 4 }, (_, k) => () => ccTurn(k, 4)));
    await ccClient(proxy.url, 'sess-price-2').prompt('Another session.');
    await page.waitForSelector('vscode-dropdown.session-picker vscode-option[value="sess-price-2"]', {
      state: 'attached',
    });
    expect(await page.textContent('.title')).toBe('Proxied: Prompt 1: what next?');
    // Back to following: the most recently active session shows.
    await page.click('vscode-dropdown.session-picker');
    await page.click('vscode-dropdown.session-picker vscode-option[value=""]');
    await page.waitForFunction(() => document.querySelector('.title')?.textContent === 'Proxied: Another session.');
    expect(w.errors).toEqual([]);
    expect(w.cspViolations).toEqual([]);
    await page.close();
  });

  it('shows the system blocks and tool definitions as rows; tools the session never used are marked with their cost', async () => {
    const w = await openInspector(browser, proxy.inspectorUrl);
    const { page } = w;
    const st = proxy.engine.active()!;
    expect(st.entry.id).toBe('sess-price-2');
    await page.waitForSelector('#tab-head');
    await page.click('#tab-diff');
    await page.keyboard.press('ArrowRight');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('tab-head');
    await page.waitForSelector('.head-list .head-row');
    // 14 tool definitions, then 3 system blocks, in request order.
    const refs = await page.locator('.head-row').evaluateAll((els) => els.map((e) => e.getAttribute('data-ref')));
    expect(refs).toEqual([...Array.from({ length: 14 }, (_, i) => `tools.${i}`), 'system.0', 'system.1', 'system.2']);
    // The client's breakpoints: on the 2nd and 3rd system blocks, none on tools.
    const bps = await page.locator('.head-row .head-bp').allTextContents();
    expect(bps.map((t, i) => (t ? refs[i] : undefined)).filter(Boolean)).toEqual(['system.1', 'system.2']);
    // Read and Glob were used; the other 12 never were, each marked with its cost.
    const used = await page.locator('.head-row.head-tools:not(.head-unused) .head-what').allTextContents();
    expect(used.sort()).toEqual(['tool Glob', 'tool Read']);
    expect(await page.locator('.head-row.head-unused').count()).toBe(12);
    expect(await page.textContent('.head-row[data-ref="tools.0"] .head-use')).toMatch(
      /^never used — [\d.]+k? tokens on each of 4 calls \(\$[\d.]+ so far\)$/,
    );
    expect(await page.textContent('.head-summary-line')).toMatch(/12 never used/);
    // Everything in the head is read from the cache by the next request.
    expect(await page.locator('.head-cache.is-cached').count()).toBe(17);
    // A row opens to its text (as text), by keyboard.
    await page.focus('.head-row[data-ref="system.1"] summary');
    await page.keyboard.press('Enter');
    expect(await page.textContent('.head-row[data-ref="system.1"] pre')).toContain('Main rule 0: follow the project');
    await screenshot(page, 'system-tools-rows');
    expect(w.errors).toEqual([]);
    expect(w.cspViolations).toEqual([]);
    await page.close();
  });
});
