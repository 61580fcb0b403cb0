/** Bidi controls in a transcript (model, tool names, paths, results) are shown in the inspector, never obeyed. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importTranscript } from '../../src/core/import';
import { launchBrowser, openInspector, serve, type Served } from './helpers';

const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/** An Anthropic Messages JSON transcript with bidi overrides and isolates in every field the inspector shows. */
function transcript(): string {
  const rlo = '\u202e';
  return JSON.stringify({
    model: `claude-sonnet-4-5${rlo}`,
    system: 'You are a helpful agent.',
    messages: [
      { role: 'user', content: `read the file ${rlo}gnp.exe` },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'toolu_01', name: `read${rlo}_file`, input: { path: `src/${rlo}\u2066txt.ts` } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_01', content: `const ok = true; // ${rlo}} if (admin) {\u2069` },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: `Done ${rlo}reversed` }] },
    ],
  });
}

describe('inspector: bidi controls', () => {
  let browser: Browser;
  let s: Served;
  let dir: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trimline-bidi-'));
    const file = path.join(dir, 'bidi.json');
    fs.writeFileSync(file, transcript());
    browser = await launchBrowser();
    s = await serve(importTranscript(file), 'none');
  });
  afterAll(async () => {
    await browser?.close();
    await s?.server.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('renders them as visible \\u{…} escapes', async () => {
    const { page } = await openInspector(browser, s.url);
    const text = await page.evaluate(() => document.body.innerText);
    expect(text).toContain('read\\u{202e}_file');
    expect(BIDI.exec(text)?.[0].codePointAt(0)?.toString(16)).toBeUndefined();
    // Tooltips and accessible names are shown text too.
    const attrs = await page.evaluate(() =>
      [...document.querySelectorAll('[title], [aria-label]')]
        .map((e) => `${e.getAttribute('title') ?? ''} ${e.getAttribute('aria-label') ?? ''}`)
        .join('\n'),
    );
    expect(BIDI.exec(attrs)?.[0].codePointAt(0)?.toString(16)).toBeUndefined();
  });
});
