/**
 * The floor plan (eslint-rules/layers.mjs, docs/ARCHITECTURE.md) holds: the import graph of src/ and webview/ has no
 * cycle and no import from a layer to a higher one (or from a webview to anything but
 * src/protocol), and the lint rules that guard them (eslint.config.mjs) fail on a
 * deliberately wrong import.
 */
import { ESLint } from 'eslint';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cycles, importGraph, layerViolations, REPO, type ImportGraph } from './import-graph';

describe('the import graph', () => {
  const graph = importGraph();

  it('covers every layer', () => {
    expect(graph.files.size).toBeGreaterThan(200);
    const rels = [...graph.files.keys()].map((f) => f.slice(REPO.length + 1));
    for (const dir of ['src/protocol/', 'src/views/', 'src/core/', 'src/dev/', 'src/host/', 'src/cli/', 'webview/'])
      expect(rels.some((r) => r.startsWith(dir))).toBe(true);
  });

  it('has no import cycle', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('has no import from a layer to a higher one, and webviews import only src/protocol', () => {
    expect(layerViolations(graph)).toEqual([]);
  });

  it('the checks find a cycle and an upward import when there is one', () => {
    const f = (p: string): string => join(REPO, p);
    const bad: ImportGraph = {
      files: new Map([
        [f('src/protocol/a.ts'), { imports: [f('src/protocol/b.ts')], packages: [] }],
        [f('src/protocol/b.ts'), { imports: [f('src/protocol/a.ts'), f('src/core/session/c.ts')], packages: [] }],
        [f('src/core/session/c.ts'), { imports: [f('src/core/cache/d.ts')], packages: ['vscode'] }],
        [f('src/core/cache/d.ts'), { imports: [], packages: [] }],
        [f('src/core/stray.ts'), { imports: [], packages: [] }],
        [f('webview/w.ts'), { imports: [f('src/core/session/c.ts')], packages: [] }],
      ]),
    };
    expect(cycles(bad)).toEqual([['src/protocol/a.ts', 'src/protocol/b.ts']]);
    expect(layerViolations(bad)).toEqual([
      'src/protocol/b.ts (protocol) → src/core/session/c.ts (core/session)',
      'src/core/session/c.ts (core/session) → src/core/cache/d.ts (core/cache)',
      'src/core/session/c.ts (core/session) → vscode',
      'src/core/stray.ts (core/unplaced) belongs to no layer',
      'webview/w.ts (webview) → src/core/session/c.ts (core/session)',
    ]);
  });
});

describe('lint enforces the layers', () => {
  const eslint = new ESLint({ cwd: REPO });
  /** Rule ids ESLint reports for `code` as if it were the file `path` (which need not exist). */
  const lint = async (path: string, code: string): Promise<string[]> =>
    (await eslint.lintText(code, { filePath: join(REPO, path) })).flatMap((r) =>
      r.messages.map((m) => m.ruleId ?? m.message),
    );

  it.each([
    ['src/core/session/probe.ts', "import { startProxy } from '../../host/proxy/server';"],
    ['src/core/session/probe.ts', "import type { TestServer } from '../../dev/server';"],
    ['src/core/session/probe.ts', "export { runReplay } from '../../cli/replay';"],
    ['src/core/session/probe.ts', "import * as vscode from 'vscode';"],
    ['src/protocol/probe.ts', "import type { Session } from '../core/session/session';"],
    ['src/protocol/probe.ts', "import { readFileSync } from 'node:fs';"],
    ['webview/inspector/probe.ts', "import { fmtTokens } from '../../src/core/inspect';"],
    ['webview/report/probe.ts', "import type { ReportOptions } from '../../src/core/report/report';"],
    ['src/dev/probe.ts', "import { startDemo } from '../host/standalone/demo';"],
    ['src/host/standalone/probe.ts', "import { main } from '../../cli/main';"],
    ['src/host/proxy/probe.ts', "import * as vscode from 'vscode';"],
    // the top of src/host is not src/host/vscode
    ['src/host/probe.ts', "import * as vscode from 'vscode';"],
    // dynamic imports and require count like static ones
    ['src/core/session/probe.ts', "export const v = import('vscode');"],
    ['src/core/session/probe.ts', "export const v = require('vscode');"],
    ['src/core/session/probe.ts', "export const p = import('../../host/proxy/server');"],
    // floors inside core: every import points down
    ['src/core/api/probe.ts', "import { MODEL_TABLE } from '../models/table';"],
    ['src/core/models/probe.ts', "import { planBreakpoints } from '../cache/planner';"],
    ['src/core/cache/probe.ts', "import { buildRequest } from '../request/build';"],
    ['src/core/cache/probe.ts', "export type { ProxyEngine } from '../proxy/proxy-engine';"],
    ['src/core/tokens/probe.ts', "export const p = import('../report/report');"],
    ['src/core/session/probe.ts', "import type { Workspace } from '../agent/workspace';"],
    ['src/views/probe.ts', "import type { Session } from '../core/session/session';"],
    ['src/views/probe.ts', "import { readFileSync } from 'node:fs';"],
    // a folder not on the plan
    ['src/core/misc/probe.ts', 'export const x = 1;'],
    ['src/elsewhere/probe.ts', 'export const x = 1;'],
  ])('%s: %s fails', async (path, code) => {
    expect(await lint(path, `${code}\n`)).toContain('house/layers');
  });

  it.each([
    ['webview/inspector/probe.ts', "import { applyDelta } from '../../src/protocol/delta';"],
    ['webview/report/probe.ts', "import type { Report } from '../../src/protocol/report-types';"],
    ['src/core/inspect/probe.ts', "import type { InspectorRow } from '../../protocol';"],
    ['src/host/vscode/probe.ts', "import * as vscode from 'vscode';"],
    ['src/cli/probe.ts', "import { startProxy } from '../host/proxy/server';"],
    ['src/core/cache/probe.ts', "import { MAX_BREAKPOINTS } from '../api/cache-rules';"],
    ['webview/report/probe.ts', "import { reportHtml } from '../../src/views/report-html';"],
    ['src/views/probe.ts', "import type { Report } from '../protocol/report-types';"],
    ['src/core/request/probe.ts', "import { planBreakpoints } from '../cache/planner';"],
    ['src/core/proxy/probe.ts', "export const p = import('../report/report');"],
  ])('%s: %s passes', async (path, code) => {
    expect(await lint(path, `export type Probe = unknown;\n${code}\n`)).not.toContain('house/layers');
  });
});
