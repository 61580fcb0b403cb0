/**
 * The route's undo record on real files: journaled before any change, restored byte for byte,
 * after a "crash" (a fresh reader of the same directory), when a file changed since (only the
 * route's keys go back), and per agent (only the agents asked for are touched).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'jsonc-parser';
import { planAgent, planAgents, type RoutePaths } from '../../../src/core/route/plan';
import {
  keyChanges,
  mergeRecords,
  parseRouteRecord,
  restoreAction,
  settleImport,
  type FileChange,
} from '../../../src/core/route/journal';
import {
  applyRoute,
  journalFile,
  readRecord,
  readText,
  restoreRoute,
  writeRecord,
} from '../../../src/host/route/files';

const PROXY = 'http://127.0.0.1:41234';

describe('route journal', () => {
  let root: string;
  let p: RoutePaths;
  let store: string;
  const settings =
    '{\n\t// keep me\n\t"editor.fontSize": 13,\n\t"claudeCode.environmentVariables": [{ "name": "X", "value": "1" }]\n}';

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'trimline-route-'));
    p = {
      userDir: join(root, 'User'),
      workspace: join(root, 'ws'),
      home: join(root, 'home'),
      dataDir: join(root, 'store', 'route'),
      host: 'vscode',
    };
    store = join(root, 'store');
    mkdirSync(p.userDir, { recursive: true });
    mkdirSync(join(p.home, '.continue'), { recursive: true });
    writeFileSync(join(p.userDir, 'settings.json'), settings);
    writeFileSync(join(p.home, '.continue', 'config.yaml'), 'models:\n  - provider: anthropic\n    model: m\n');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('journals before writing, and restores every file byte for byte from a fresh start', () => {
    const agents = (['claude-code', 'roo', 'continue', 'copilot'] as const).map((agent) => ({
      agent,
      scope: 'user' as const,
    }));
    const changes = planAgents(agents, PROXY, p, readText).flatMap((pl) => pl.changes);
    applyRoute(store, PROXY, 'user', changes);
    const routed = parse(readFileSync(join(p.userDir, 'settings.json'), 'utf8')) as Record<string, unknown>;
    expect(routed['claudeCode.environmentVariables']).toEqual([
      { name: 'X', value: '1' },
      { name: 'ANTHROPIC_BASE_URL', value: PROXY },
    ]);
    expect(routed['roo-cline.autoImportSettingsPath']).toBe(join(p.dataDir, 'roo-import.json'));
    expect(readFileSync(join(p.home, '.continue', 'config.yaml'), 'utf8')).toContain(`apiBase: ${PROXY}/v1/`);
    expect(existsSync(join(p.userDir, 'chatLanguageModels.json'))).toBe(true);
    // The record alone (as read by a new process) says how to undo it.
    const record = readRecord(store)!;
    expect(record.changes.map((c) => c.file)).toContain(join(p.userDir, 'settings.json'));
    const report = restoreRoute(store)!;
    expect(report.conflicts).toEqual([]);
    expect(readFileSync(join(p.userDir, 'settings.json'), 'utf8')).toBe(settings);
    expect(readFileSync(join(p.home, '.continue', 'config.yaml'), 'utf8')).toBe(
      'models:\n  - provider: anthropic\n    model: m\n',
    );
    expect(existsSync(join(p.userDir, 'chatLanguageModels.json'))).toBe(false);
    expect(existsSync(join(p.dataDir, 'roo-import.json'))).toBe(false);
    expect(existsSync(journalFile(store))).toBe(false);
  });

  it('a crash between the journal and the writes restores nothing wrongly', () => {
    const changes = planAgent('claude-code', 'user', PROXY, p, readText).changes;
    // Journal written, file not yet: restoring leaves the original as it is.
    const c = changes[0];
    expect(restoreAction(c, c.before)).toEqual({ kind: 'keep', why: 'unchanged' });
    expect(restoreAction(c, c.after)).toEqual({ kind: 'write', text: settings, how: 'original' });
  });

  it('a file changed since routing gets only the route\u2019s key back; the other change stays', () => {
    applyRoute(store, PROXY, 'user', planAgent('claude-code', 'user', PROXY, p, readText).changes);
    const file = join(p.userDir, 'settings.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"editor.fontSize": 13', '"editor.fontSize": 15'));
    restoreRoute(store);
    expect(readFileSync(file, 'utf8')).toBe(settings.replace('"editor.fontSize": 13', '"editor.fontSize": 15'));
  });

  it('routing twice keeps the first original; the record merges', () => {
    applyRoute(store, PROXY, 'user', planAgent('claude-code', 'user', PROXY, p, readText).changes);
    applyRoute(
      store,
      'http://127.0.0.1:9',
      'user',
      planAgent('claude-code', 'user', 'http://127.0.0.1:9', p, readText).changes,
    );
    expect(readRecord(store)!.changes).toHaveLength(1);
    restoreRoute(store);
    expect(readFileSync(join(p.userDir, 'settings.json'), 'utf8')).toBe(settings);
  });

  it('touches only the agents asked for, and never writes a key', () => {
    const changes = planAgent('continue', 'user', PROXY, p, readText).changes;
    expect(changes.map((c) => c.file)).toEqual([join(p.home, '.continue', 'config.yaml')]);
    for (const a of ['claude-code', 'roo', 'kilo', 'copilot', 'continue', 'cline'] as const) {
      for (const c of planAgent(a, 'user', PROXY, p, readText).changes)
        expect(c.after.replace(c.before ?? '', '')).not.toMatch(/api[_-]?key"?\s*[:=]\s*"?sk-/i);
    }
    expect(planAgent('cline', 'user', PROXY, p, readText).changes).toEqual([]);
  });

  it('workspace scope writes .vscode/settings.json of the folder', () => {
    const [c] = planAgent('claude-code', 'workspace', PROXY, p, readText).changes;
    expect(c.file).toBe(join(p.workspace!, '.vscode', 'settings.json'));
    expect(c.before).toBeNull();
    expect(() => planAgent('continue', 'workspace', PROXY, p, readText)).toThrow(/user/);
  });

  it('once Roo imported the profile, its auto-import key goes back and Stop still restores byte for byte', () => {
    // Roo re-imports on every start, replacing the profile (and a key entered in it): one import only.
    const plans = planAgents(
      [
        { agent: 'claude-code', scope: 'user' },
        { agent: 'roo', scope: 'user' },
      ],
      PROXY,
      p,
      readText,
    );
    applyRoute(
      store,
      PROXY,
      'user',
      plans.flatMap((pl) => pl.changes),
    );
    const file = join(p.userDir, 'settings.json');
    const s = settleImport(readRecord(store)!, file, 'roo-cline.autoImportSettingsPath', readFileSync(file, 'utf8'))!;
    writeFileSync(file, s.text);
    writeRecord(store, s.record);
    const now = parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(now['roo-cline.autoImportSettingsPath']).toBeUndefined();
    expect((now['claudeCode.environmentVariables'] as unknown[]).length).toBe(2);
    expect(settleImport(s.record, file, 'roo-cline.autoImportSettingsPath', s.text)).toBeUndefined();
    restoreRoute(store);
    expect(readFileSync(file, 'utf8')).toBe(settings);
  });

  it('reads back only well-formed records', () => {
    const change: FileChange = { agent: 'roo', file: '/x', before: null, after: 'y', keys: keyChanges(null, [['a']]) };
    const r = mergeRecords(undefined, { version: 1, url: PROXY, scope: 'user', at: 1, changes: [change] });
    expect(parseRouteRecord(JSON.stringify(r))).toEqual(r);
    expect(parseRouteRecord('{"version":2}')).toBeUndefined();
    expect(parseRouteRecord('not json')).toBeUndefined();
    writeFileSync(join(root, 'route-journal.json'), 'garbage');
    expect(() => readRecord(root)).toThrow(/not a Trimline route record/);
  });
});
