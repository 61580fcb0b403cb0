/**
 * The VS Code report command's engine (src/host/vscode/report-core.ts, no `vscode` import):
 * it keeps the per-file cache in the file it is given (the extension's globalStorage), so a
 * second run reads none of the unchanged files and gives the same report; a touched file is read again.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runEditorReport } from '../../../src/host/vscode/report-core';

const PROJECTS = resolve('test/fixtures/report/projects');
const M_CLAUDE = resolve('test/fixtures/transcripts/m-claude');
const SESSION = '343e3472-b9b6-4561-ade0-21d1a4730c11.jsonl';
const STRATEGIES = ['none', 'default'];

describe('report command: per-file cache under globalStorage', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'trimline-editor-report-'));
    cpSync(PROJECTS, join(dir, 'projects'), { recursive: true });
    mkdirSync(join(dir, 'projects', '-work-m-claude'));
    cpSync(join(M_CLAUDE, SESSION), join(dir, 'projects', '-work-m-claude', SESSION));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a second run reads 0 unchanged files with an identical result; a touched file is read again', async () => {
    const storage = join(dir, 'globalStorage', 'trimline.trimline');
    const cacheFile = join(storage, 'report-cache.json');
    const run = () => runEditorReport({ paths: [join(dir, 'projects')], strategies: STRATEGIES, cacheFile });

    const first = await run();
    expect(first.files).toBe(3);
    expect(first.fromCache).toBe(0);
    // The storage folder did not exist: the cache creates it.
    expect(JSON.parse(readFileSync(cacheFile, 'utf8'))).toHaveProperty('entries');

    const second = await run();
    expect(second.files).toBe(3);
    expect(second.fromCache).toBe(3);
    expect(second.report).toEqual(first.report);

    const sub = join(dir, 'projects/-home-u-proj/11111111-1111-4111-8111-111111111111/subagents/agent-b2.jsonl');
    utimesSync(sub, statSync(sub).atime, new Date(statSync(sub).mtimeMs + 60_000));
    const third = await run();
    expect(third.fromCache).toBe(2);
    expect(third.report).toEqual(first.report);
  });

  it('without a cache file every file is read; an unwritable cache loses nothing but the cache', async () => {
    const none = await runEditorReport({ paths: [join(dir, 'projects')], strategies: STRATEGIES });
    expect(none.fromCache).toBe(0);
    // The cache's parent is a file: it cannot be created, the report is still whole.
    mkdirSync(join(dir, 'blocked'));
    cpSync(join(PROJECTS, '-home-u-proj/11111111-1111-4111-8111-111111111111.jsonl'), join(dir, 'blocked/file'));
    const blocked = await runEditorReport({
      paths: [join(dir, 'projects')],
      strategies: STRATEGIES,
      cacheFile: join(dir, 'blocked/file/report-cache.json'),
    });
    expect(blocked.cacheError).toBeDefined();
    expect(blocked.report).toEqual(none.report);
  });
});
