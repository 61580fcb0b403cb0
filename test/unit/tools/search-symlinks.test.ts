/**
 * search over a workspace with a symlink pointing outside it: the link is skipped and counted, the rest is searched.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executeTool } from '../../../src/core/agent/tools';
import { makeContext, makeTempDir, removeDir } from './helpers';

let root: string;
let outside: string;

beforeEach(() => {
  root = makeTempDir({ 'src/a.ts': 'const needle = 1;\n', 'docs/b.md': 'a needle here\n' });
  outside = makeTempDir({ 'secret.txt': 'needle outside the workspace\n' }, 'trimline-outside-');
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'src', 'secret-link.txt'));
});
afterEach(() => {
  removeDir(root);
  removeDir(outside);
});

describe('search with a symlink pointing outside the workspace', () => {
  it('searches every other file, skips the link, says how many it skipped, and never reads the target', async () => {
    // list_files lists the link: the situation search met.
    expect((await executeTool('list_files', {}, makeContext(root))).content).toContain('src/secret-link.txt');
    const r = await executeTool('search', { query: 'needle' }, makeContext(root));
    expect(r.is_error, r.content).toBe(false);
    expect(r.content).toContain('src/a.ts:1: const needle = 1;');
    expect(r.content).toContain('docs/b.md:1: a needle here');
    expect(r.content).not.toContain('outside the workspace\n');
    expect(r.content).not.toMatch(/secret-link\.txt:1/);
    expect(r.content).toMatch(/Skipped 1 symlink pointing outside the workspace\./);
    // Naming the link itself as the path to search is still refused.
    const direct = await executeTool('search', { query: 'needle', path: 'src/secret-link.txt' }, makeContext(root));
    expect(direct.is_error).toBe(true);
    expect(direct.content).toMatch(/outside the workspace/);
  });

  it('says so also when nothing matched', async () => {
    const r = await executeTool('search', { query: 'absent' }, makeContext(root));
    expect(r.is_error).toBe(false);
    expect(r.content).toMatch(
      /^No matches for "absent" in \. \(searched 2 files\)\. Skipped 1 symlink pointing outside the workspace\.$/,
    );
  });
});
