/**
 * The pure parts of the VS Code host and the chat webview (no editor needed): the safe
 * Markdown parser, settings → pipeline mapping, secret redaction, edit spans and counts.
 * They run with the e2e config (npm run test:vscode) because they belong to the extension.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPipeline } from '../../src/core/trimming';
import { pipelineConfigFrom, priceOverridesFrom, readSettings, redactSecrets } from '../../src/host/vscode/config-map';
import { INSPECTOR_ACTION_COMMANDS, LIVE_EMPTY_ACTIONS } from '../../src/host/vscode/host-types';
import { INSPECTOR_ACTIONS } from '../../src/protocol';
import { changedSpan, lineStats } from '../../src/host/vscode/text-diff';
import { parseInline, parseMarkdown, type Inline } from '../../webview/chat/markdown';

const plain = (nodes: Inline[]): string =>
  nodes.map((n) => (n.t === 'text' || n.t === 'code' ? n.text : n.t === 'br' ? '\n' : plain(n.children))).join('');

describe('chat markdown', () => {
  it('parses blocks: paragraphs, fences (also unterminated while streaming), lists, headings, quotes', () => {
    const blocks = parseMarkdown(
      '# Title\n\nSome *text*\nnext line\n\n```ts\nconst a = 1;\n```\n- a\n- b\n\n1. one\n2. two\n\n> quote\n\n```\nopen',
    );
    expect(blocks.map((b) => b.t)).toEqual(['h', 'p', 'code', 'list', 'list', 'quote', 'code']);
    expect(blocks[2]).toEqual({ t: 'code', lang: 'ts', text: 'const a = 1;' });
    expect(blocks[6]).toEqual({ t: 'code', lang: '', text: 'open' });
  });

  it('keeps only http(s) links; everything else stays text', () => {
    const nodes = parseInline(
      '[ok](https://example.com/a) [js](javascript:alert(1)) [data](data:text/html,x) [rel](/etc/passwd)',
    );
    const links = nodes.filter((n) => n.t === 'link');
    expect(links).toEqual([{ t: 'link', href: 'https://example.com/a', children: [{ t: 'text', text: 'ok' }] }]);
    expect(plain(nodes)).toContain('javascript:alert(1)');
  });

  it('never produces markup from HTML in the text', () => {
    const src = '<img src=x onerror=alert(1)> <script>alert(2)</script> <a href="javascript:x">y</a>';
    const blocks = parseMarkdown(src);
    expect(blocks).toHaveLength(1);
    const p = blocks[0];
    expect(p.t === 'p' && plain(p.children)).toBe(src);
  });

  it('emphasis: ** and * anywhere, __ and _ not inside words', () => {
    expect(parseInline('**bold** and *it*').map((n) => n.t)).toEqual(['strong', 'text', 'em']);
    expect(parseInline('window.__xss=1 and snake_case_name').every((n) => n.t === 'text')).toBe(true);
    expect(parseInline('__strong__ _em_').map((n) => n.t)).toEqual(['strong', 'text', 'em']);
    expect(parseInline('a `co*de*` b').map((n) => n.t)).toEqual(['text', 'code', 'text']);
  });
});

describe('inspector empty state', () => {
  it('offers both actions, each running a command the extension contributes and activates on', () => {
    expect(LIVE_EMPTY_ACTIONS).toEqual(INSPECTOR_ACTIONS);
    expect(INSPECTOR_ACTION_COMMANDS).toEqual({
      startChat: 'trimline.newChat',
      importTranscript: 'trimline.importTranscript',
    });
    const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')) as {
      activationEvents: string[];
      contributes: { commands: { command: string }[] };
    };
    for (const command of Object.values(INSPECTOR_ACTION_COMMANDS)) {
      expect(pkg.contributes.commands.map((c) => c.command)).toContain(command);
      expect(pkg.activationEvents).toContain(`onCommand:${command}`);
    }
  });
});

describe('settings', () => {
  it('maps strategyOptions onto strategy options that the pipeline accepts', () => {
    const cfg = pipelineConfigFrom({
      keepRecentTurns: 3,
      summaryLength: 80,
      minResultChars: 500,
      windowBudget: 50_000,
      windowTrigger: 0.6,
      windowLowWater: 0.5,
      minRecentMessages: 6,
      cacheAware: false,
      strategies: { 'supersede-stale-reads': { minChars: 400 } },
    });
    expect(cfg).toEqual({
      strategies: {
        'summarize-tool-results': { keepTurns: 3, previewChars: 80, minChars: 500 },
        'atomic-window': { maxTokens: 50_000, trigger: 0.6, lowWater: 0.5, minRecentKeep: 6 },
        'supersede-stale-reads': { minChars: 400 },
      },
      cacheAware: { enabled: false },
    });
    expect(() => createPipeline('default', cfg)).not.toThrow();
    expect(() =>
      createPipeline('supersede-stale-reads,summarize-tool-results,tool-pruning,atomic-window', cfg),
    ).not.toThrow();
  });

  it('ignores invalid values and fills defaults', () => {
    expect(pipelineConfigFrom({ keepRecentTurns: -1, windowTrigger: 2, summaryLength: 'x' })).toEqual({});
    const s = readSettings(
      (k) =>
        ({
          model: '  ',
          commandApproval: 'sometimes',
          cacheTtl: '1h',
          priceOverrides: { m: { input: 1, output: 'x' } },
        })[k],
    );
    expect(s).toMatchObject({
      model: 'claude-sonnet-4-6',
      approval: 'ask',
      ttl: '1h',
      strategy: 'default',
      prices: { m: { input: 1 } },
    });
    expect(priceOverridesFrom([])).toBeUndefined();
  });

  it('redacts keys in log lines', () => {
    const key = 'sk-ant-api03-abcdefghijklmnop';
    expect(redactSecrets(`failed with ${key}`, [key])).toBe('failed with [redacted]');
    expect(redactSecrets('x-api-key: sk-ant-whatever12345')).not.toContain('whatever12345');
    expect(redactSecrets('"authorization":"Bearer abc.def"')).toBe('"authorization":"[redacted]"');
  });
});

describe('edit spans', () => {
  it('finds the smallest changed span without splitting CRLF or surrogate pairs', () => {
    expect(changedSpan('hello world', 'hello there world')).toEqual({ start: 6, endOld: 6, endNew: 12 });
    const a = 'a\r\nb\r\n';
    const b = 'a\r\nc\r\n';
    const s = changedSpan(a, b);
    expect(a.slice(0, s.start) + b.slice(s.start, s.endNew) + a.slice(s.endOld)).toBe(b);
    const e1 = 'x😀y';
    const e2 = 'x😃y';
    const t = changedSpan(e1, e2);
    expect(t.start).toBe(1);
    expect(e1.slice(0, t.start) + e2.slice(t.start, t.endNew) + e1.slice(t.endOld)).toBe(e2);
  });

  it('counts added and removed lines', () => {
    expect(lineStats('a\nb\nc\n', 'a\nB\nc\nd\n')).toEqual({ added: 2, removed: 1 });
    expect(lineStats('', 'new\nfile\n')).toEqual({ added: 2, removed: 0 });
  });
});
