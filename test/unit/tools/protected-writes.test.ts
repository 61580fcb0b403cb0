/** Writes into .git and .trimline need the user's approval; reads and ordinary files do not. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { protectedAreaOf, type ProtectedWrite } from '../../../src/core/agent/protected-paths';
import { executeTool } from '../../../src/core/agent/tools';
import { editNeedsApproval } from '../../../src/host/vscode/config-map';
import { makeContext, makeTempDir, removeDir } from './helpers';

const CONFIG = '[core]\n\trepositoryformatversion = 0\n';
let root: string;

beforeEach(() => {
  root = makeTempDir({
    '.git/config': CONFIG,
    '.git/HEAD': 'ref: refs/heads/main\n',
    '.trimline/sessions/s.jsonl': '{}\n',
    'src/app.ts': 'x\n',
    'sub/.git/config': CONFIG,
  });
});
afterEach(() => removeDir(root));

const read = (p: string): string => fs.readFileSync(path.join(root, p), 'utf8');
const exists = (p: string): boolean => fs.existsSync(path.join(root, p));

describe('protectedAreaOf', () => {
  it('finds .git and .trimline segments however they are spelled', () => {
    for (const p of [
      '.git/config',
      '.GIT/config',
      '.Git/hooks/pre-commit',
      'src/../.git/config',
      '.git/../.git/config',
      './.git/config',
      'sub/.git/config',
      '.git',
      '.git./config',
      '.git /config',
      '.g\u200cit/config',
      'GIT~1/config',
      '.git::$INDEX_ALLOCATION/config',
      'a\\.git\\hooks\\x',
    ]) {
      expect(protectedAreaOf(p), p).toBe('.git');
    }
    expect(protectedAreaOf('.trimline/sessions/x.jsonl')).toBe('.trimline');
    expect(protectedAreaOf('.TrimLine/x')).toBe('.trimline');
  });

  it('leaves ordinary files alone', () => {
    for (const p of [
      '.gitignore',
      '.github/workflows/ci.yml',
      'src/git.ts',
      'my.git/x',
      '.gitattributes',
      'docs/.trimlinerc',
      '.git-blame-ignore-revs',
      '.git/../src/a.ts',
    ]) {
      expect(protectedAreaOf(p), p).toBeUndefined();
    }
  });
});

describe('VS Code: which edits are put to the user', () => {
  it('a protected write always, even with commandApproval "always"; others unless "always"', () => {
    expect(editNeedsApproval('always', true)).toBe(true);
    expect(editNeedsApproval('never', true)).toBe(true);
    expect(editNeedsApproval('ask', true)).toBe(true);
    expect(editNeedsApproval('always', false)).toBe(false);
    expect(editNeedsApproval('ask', false)).toBe(true);
  });
});

describe('write_file and edit_file in .git and .trimline', () => {
  it('refuses them without an approver, and leaves the files as they were', async () => {
    const ctx = makeContext(root);
    const attempts: [string, Record<string, string>][] = [
      ['write_file', { path: '.git/config', content: '[core]\n\tfsmonitor = "touch pwned"\n' }],
      ['write_file', { path: '.git/hooks/pre-commit', content: '#!/bin/sh\ntouch pwned\n' }],
      ['write_file', { path: '.GIT/config', content: 'x' }],
      ['write_file', { path: '.git/../.git/config', content: 'x' }],
      ['write_file', { path: 'src/../.git/hooks/post-checkout', content: 'x' }],
      ['write_file', { path: path.join(root, '.git/config'), content: 'x' }],
      ['write_file', { path: 'sub/.git/config', content: 'x' }],
      ['write_file', { path: '.trimline/sessions/s.jsonl', content: 'forged\n' }],
      [
        'edit_file',
        { path: '.git/config', old_text: 'repositoryformatversion = 0', new_text: 'fsmonitor = "touch pwned"' },
      ],
    ];
    for (const [tool, input] of attempts) {
      const r = await executeTool(tool, input, ctx);
      expect(r.is_error, `${tool} ${input.path}`).toBe(true);
      expect(r.content).toMatch(/refused: .* is inside \.(git|trimline) .*needs the user's approval/);
    }
    expect(read('.git/config')).toBe(CONFIG);
    expect(read('sub/.git/config')).toBe(CONFIG);
    expect(read('.trimline/sessions/s.jsonl')).toBe('{}\n');
    expect(exists('.git/hooks/pre-commit')).toBe(false);
    expect(exists('.git/hooks/post-checkout')).toBe(false);
    expect(exists('.GIT')).toBe(false);
  });

  it('follows symlinks: a link to .git inside the workspace is .git', async () => {
    fs.symlinkSync(path.join(root, '.git'), path.join(root, 'gitdir'));
    fs.symlinkSync(path.join(root, '.git', 'config'), path.join(root, 'innocent.cfg'));
    const ctx = makeContext(root);
    expect((await executeTool('write_file', { path: 'gitdir/hooks/pre-commit', content: 'x' }, ctx)).is_error).toBe(
      true,
    );
    expect((await executeTool('write_file', { path: 'innocent.cfg', content: 'x' }, ctx)).is_error).toBe(true);
    expect(read('.git/config')).toBe(CONFIG);
    expect(exists('.git/hooks/pre-commit')).toBe(false);
  });

  it('asks the approver with the area and the reason; writes only when it says yes', async () => {
    const asked: ProtectedWrite[] = [];
    let answer = false;
    const ctx = makeContext(root, { workspace: { approveProtectedWrite: async (w) => (asked.push(w), answer) } });
    expect((await executeTool('write_file', { path: '.git/info/exclude', content: 'tmp/\n' }, ctx)).is_error).toBe(
      true,
    );
    expect(exists('.git/info/exclude')).toBe(false);
    answer = true;
    expect((await executeTool('write_file', { path: '.git/info/exclude', content: 'tmp/\n' }, ctx)).is_error).toBe(
      false,
    );
    expect(read('.git/info/exclude')).toBe('tmp/\n');
    // Ordinary files (even git-looking ones) are not asked about, and reading .git stays allowed.
    answer = false;
    for (const p of ['.gitignore', '.github/workflows/ci.yml', 'src/git.ts']) {
      expect((await executeTool('write_file', { path: p, content: 'ok\n' }, ctx)).is_error, p).toBe(false);
    }
    expect((await executeTool('read_file', { path: '.git/config' }, ctx)).is_error).toBe(false);
    expect(asked.map((w) => [w.path, w.area])).toEqual([
      ['.git/info/exclude', '.git'],
      ['.git/info/exclude', '.git'],
    ]);
    expect(asked[0].why).toMatch(/git run commands/);
  });
});
