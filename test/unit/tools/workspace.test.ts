import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NodeWorkspace, resolveInWorkspace } from '../../../src/core/agent/node-workspace';
import { executeTool } from '../../../src/core/agent/tools';
import { WorkspaceError } from '../../../src/core/agent/workspace';
import { makeContext, makeTempDir, removeDir } from './helpers';

let root: string;
let outside: string;

beforeEach(() => {
  root = makeTempDir({ 'a.txt': 'hello\n', 'src/b.ts': 'export const b = 1;\n', 'real/inner.txt': 'inner\n' });
  outside = makeTempDir({ 'secret.txt': 'secret\n' }, 'trimline-outside-');
});
afterEach(() => {
  removeDir(root);
  removeDir(outside);
});

async function rejection(p: Promise<unknown>): Promise<WorkspaceError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(WorkspaceError);
  return e as WorkspaceError;
}

describe('resolveInWorkspace', () => {
  it('resolves relative paths, the root itself and absolute paths inside the root', async () => {
    const real = fs.realpathSync(root);
    expect(await resolveInWorkspace(root, 'a.txt')).toBe(path.join(real, 'a.txt'));
    expect(await resolveInWorkspace(root, '')).toBe(real);
    expect(await resolveInWorkspace(root, '.')).toBe(real);
    expect(await resolveInWorkspace(root, path.join(root, 'src/b.ts'))).toBe(path.join(real, 'src/b.ts'));
    expect(await resolveInWorkspace(root, 'src/../a.txt')).toBe(path.join(real, 'a.txt'));
  });

  it('allows paths that do not exist yet, below the deepest existing directory', async () => {
    const real = fs.realpathSync(root);
    expect(await resolveInWorkspace(root, 'new/dir/file.ts')).toBe(path.join(real, 'new/dir/file.ts'));
  });

  it('rejects .. escapes with a clear message', async () => {
    const e = await rejection(resolveInWorkspace(root, '../x.txt'));
    expect(e.code).toBe('outside-workspace');
    expect(e.message).toMatch(/escapes the workspace root with '\.\.'/);
    await rejection(resolveInWorkspace(root, 'src/../../x'));
  });

  it('rejects absolute paths outside the root', async () => {
    const e = await rejection(resolveInWorkspace(root, '/etc/passwd'));
    expect(e.code).toBe('outside-workspace');
    expect(e.message).toMatch(/\/etc\/passwd is outside the workspace/);
  });

  it('rejects a symlink whose real path escapes (to /etc, and to a sibling dir), also for new files below it', async () => {
    fs.symlinkSync('/etc', path.join(root, 'etc-link'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'secret-link.txt'));
    fs.symlinkSync(outside, path.join(root, 'out-dir'));
    for (const rel of ['etc-link/passwd', 'secret-link.txt', 'out-dir/new-file.txt', 'out-dir/new/deeper.txt']) {
      const e = await rejection(resolveInWorkspace(root, rel));
      expect(e.code).toBe('outside-workspace');
      expect(e.message).toMatch(/resolves through a symlink to .* outside the workspace/);
    }
  });

  it('accepts a symlink that stays inside the workspace', async () => {
    fs.symlinkSync(path.join(root, 'real'), path.join(root, 'alias'));
    const real = fs.realpathSync(root);
    expect(await resolveInWorkspace(root, 'alias/inner.txt')).toBe(path.join(real, 'real/inner.txt'));
    expect(await resolveInWorkspace(root, 'alias/new.txt')).toBe(path.join(real, 'real/new.txt'));
  });

  it('rejects a dangling symlink (writing through it would create its target anywhere)', async () => {
    fs.symlinkSync(path.join(outside, 'does-not-exist.txt'), path.join(root, 'dangling.txt'));
    const e = await rejection(resolveInWorkspace(root, 'dangling.txt'));
    expect(e.message).toMatch(/symlink to a missing target/);
    expect(fs.existsSync(path.join(outside, 'does-not-exist.txt'))).toBe(false);
  });

  it('works when the root itself is reached through a symlink', async () => {
    const linkRoot = `${root}-link`;
    fs.symlinkSync(root, linkRoot);
    try {
      expect(await resolveInWorkspace(linkRoot, 'a.txt')).toBe(path.join(fs.realpathSync(root), 'a.txt'));
      expect(await resolveInWorkspace(linkRoot, path.join(linkRoot, 'a.txt'))).toBe(
        path.join(fs.realpathSync(root), 'a.txt'),
      );
    } finally {
      fs.unlinkSync(linkRoot);
    }
  });
});

describe('confinement through the tools', () => {
  it('read_file, write_file and edit_file refuse escapes; nothing outside is touched', async () => {
    fs.symlinkSync('/etc', path.join(root, 'etc-link'));
    fs.symlinkSync(outside, path.join(root, 'out-dir'));
    const ctx = makeContext(root);
    const cases: [string, Record<string, unknown>][] = [
      ['read_file', { path: '../secret.txt' }],
      ['read_file', { path: '/etc/passwd' }],
      ['read_file', { path: 'etc-link/passwd' }],
      ['write_file', { path: 'out-dir/planted.txt', content: 'x' }],
      ['write_file', { path: '../planted.txt', content: 'x' }],
      ['edit_file', { path: 'out-dir/secret.txt', old_text: 'secret', new_text: 'pwned' }],
      ['list_files', { path: 'out-dir' }],
      ['search', { query: 'secret', path: 'out-dir' }],
    ];
    for (const [tool, input] of cases) {
      const r = await executeTool(tool, input, ctx);
      expect(r.is_error, `${tool} ${JSON.stringify(input)}`).toBe(true);
      expect(r.content).toMatch(/outside the workspace|escapes the workspace/);
    }
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('secret\n');
    expect(fs.existsSync(path.join(outside, 'planted.txt'))).toBe(false);
  });

  it('list_files does not descend into symlinked directories (no escape, no cycles)', async () => {
    fs.symlinkSync(outside, path.join(root, 'out-dir'));
    fs.symlinkSync(root, path.join(root, 'loop'));
    const r = await executeTool('list_files', {}, makeContext(root));
    expect(r.content.split('\n')).toEqual(['a.txt', 'real/inner.txt', 'src/b.ts']);
  });
});

describe('NodeWorkspace', () => {
  it('stat, list with pattern and ignore, realpath', async () => {
    const ws = new NodeWorkspace(root);
    expect((await ws.stat('a.txt'))?.type).toBe('file');
    expect((await ws.stat('src'))?.type).toBe('directory');
    expect(await ws.stat('missing')).toBeUndefined();
    expect((await ws.list('.', { pattern: '**/*.ts', limit: 10 })).files).toEqual(['src/b.ts']);
    expect((await ws.list('src', { pattern: '*.ts', limit: 10 })).files).toEqual(['src/b.ts']);
    expect((await ws.list('.', { ignore: ['src'], limit: 10 })).files).toEqual(['a.txt', 'real/inner.txt']);
    expect(await ws.list('.', { limit: 1 })).toEqual({ files: ['a.txt'], truncated: true });
    expect(await ws.realpath('a.txt')).toBe(path.join(fs.realpathSync(root), 'a.txt'));
  });

  it('writeFile creates parent directories; errors are WorkspaceErrors', async () => {
    const ws = new NodeWorkspace(root);
    await ws.writeFile('x/y/z.txt', 'z');
    expect(fs.readFileSync(path.join(root, 'x/y/z.txt'), 'utf8')).toBe('z');
    const e = await rejection(ws.readFile('nope.txt'));
    expect(e.code).toBe('not-found');
    await rejection(ws.list('a.txt', { limit: 1 }));
  });

  it('exec is absent when disabled, present by default', () => {
    expect(new NodeWorkspace(root, { allowExec: false }).exec).toBeUndefined();
    expect(new NodeWorkspace(root).exec).toBeTypeOf('function');
    expect(new NodeWorkspace(root).trusted).toBe(true);
  });
});
