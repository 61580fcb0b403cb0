import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  executeTool,
  MAX_LIST_FILES,
  MAX_READ_BYTES,
  MAX_READ_LINES,
  MAX_SEARCH_MATCHES,
} from '../../../src/core/agent/tools';
import { makeContext, makeTempDir, removeDir, type TestContext } from './helpers';

let root: string;
let ctx: TestContext;

const SOURCE = ['line one', 'line two', 'const x = 1;', 'line four', ''].join('\n');

beforeEach(() => {
  root = makeTempDir({
    'src/app.ts': SOURCE,
    'src/util/helpers.ts': 'export function Helper() {}\n// TODO later\n',
    'README.md': '# Title\nSome TODO text\n',
    'node_modules/dep/index.js': 'TODO in dependency\n',
    '.git/config': 'TODO in git\n',
  });
  ctx = makeContext(root);
});
afterEach(() => removeDir(root));

const read = (p: string): string => fs.readFileSync(path.join(root, p), 'utf8');

describe('read_file', () => {
  it('numbers lines: right-aligned number, tab, line', async () => {
    const r = await executeTool('read_file', { path: 'src/app.ts' }, ctx);
    expect(r).toEqual({ is_error: false, content: '1\tline one\n2\tline two\n3\tconst x = 1;\n4\tline four' });
  });

  it('reads a range and says which part it shows', async () => {
    const r = await executeTool('read_file', { path: 'src/app.ts', start_line: 2, end_line: 3 }, ctx);
    expect(r.content).toBe('2\tline two\n3\tconst x = 1;\n\n[Showing lines 2-3 of 4.]');
  });

  it('pads numbers to the widest one shown', async () => {
    fs.writeFileSync(path.join(root, 'ten.txt'), Array.from({ length: 10 }, (_, i) => `l${i + 1}`).join('\n'));
    const r = await executeTool('read_file', { path: 'ten.txt', start_line: 9 }, ctx);
    expect(r.content).toBe(' 9\tl9\n10\tl10\n\n[Showing lines 9-10 of 10.]');
  });

  it('cuts at the line cap with a note saying how to read the rest', async () => {
    const n = MAX_READ_LINES + 500;
    fs.writeFileSync(path.join(root, 'long.txt'), Array.from({ length: n }, (_, i) => `x${i + 1}`).join('\n'));
    const r = await executeTool('read_file', { path: 'long.txt' }, ctx);
    expect(r.is_error).toBe(false);
    const lines = r.content.split('\n');
    expect(lines[MAX_READ_LINES - 1]).toBe(`${MAX_READ_LINES}\tx${MAX_READ_LINES}`);
    expect(r.content).toContain(
      `showing lines 1-${MAX_READ_LINES} of ${n}. To read the rest, call read_file with start_line=${MAX_READ_LINES + 1}.`,
    );
    const rest = await executeTool('read_file', { path: 'long.txt', start_line: MAX_READ_LINES + 1 }, ctx);
    expect(rest.content.split('\n')[0]).toBe(`${MAX_READ_LINES + 1}\tx${MAX_READ_LINES + 1}`);
  });

  it('cuts at the byte cap', async () => {
    const line = 'y'.repeat(999);
    fs.writeFileSync(path.join(root, 'wide.txt'), Array.from({ length: 500 }, () => line).join('\n'));
    const r = await executeTool('read_file', { path: 'wide.txt' }, ctx);
    expect(Buffer.byteLength(r.content)).toBeLessThan(MAX_READ_BYTES + 500);
    expect(r.content).toMatch(
      /\[Output cut at 100 KB: showing lines 1-(\d+) of 500\. To read the rest, call read_file with start_line=\d+\.\]/,
    );
  });

  it('errors: missing file, directory, binary, start_line past the end, end before start', async () => {
    fs.writeFileSync(path.join(root, 'bin.dat'), Buffer.from([1, 2, 0, 3]));
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ path: 'nope.ts' }, /file not found: nope\.ts/],
      [{ path: 'src' }, /is a directory; use list_files/],
      [{ path: 'bin.dat' }, /binary file/],
      [{ path: 'src/app.ts', start_line: 50 }, /start_line 50 is past the end of src\/app\.ts \(4 lines\)/],
      [{ path: 'src/app.ts', start_line: 3, end_line: 2 }, /end_line 2 is before start_line 3/],
    ];
    for (const [input, msg] of cases) {
      const r = await executeTool('read_file', input, ctx);
      expect(r.is_error).toBe(true);
      expect(r.content).toMatch(msg);
    }
  });

  it('shows CRLF files without the CR and an empty file as such', async () => {
    fs.writeFileSync(path.join(root, 'crlf.txt'), 'a\r\nb\r\n');
    fs.writeFileSync(path.join(root, 'empty.txt'), '');
    expect((await executeTool('read_file', { path: 'crlf.txt' }, ctx)).content).toBe('1\ta\n2\tb');
    expect((await executeTool('read_file', { path: 'empty.txt' }, ctx)).content).toBe('(empty.txt is empty)');
  });
});

describe('list_files', () => {
  it('lists every file, skipping .git and node_modules', async () => {
    const r = await executeTool('list_files', {}, ctx);
    expect(r.content).toBe(['README.md', 'src/app.ts', 'src/util/helpers.ts'].join('\n'));
  });

  it('filters by glob relative to path', async () => {
    expect((await executeTool('list_files', { pattern: '**/*.ts' }, ctx)).content).toBe(
      'src/app.ts\nsrc/util/helpers.ts',
    );
    expect((await executeTool('list_files', { path: 'src', pattern: '*.ts' }, ctx)).content).toBe('src/app.ts');
    expect((await executeTool('list_files', { pattern: '*.{md,txt}' }, ctx)).content).toBe('README.md');
  });

  it('lists an ignored directory when asked for it by path', async () => {
    expect((await executeTool('list_files', { path: 'node_modules' }, ctx)).content).toBe('node_modules/dep/index.js');
  });

  it('explains an empty result, with a hint for shallow patterns', async () => {
    const r = await executeTool('list_files', { pattern: '*.ts' }, ctx);
    expect(r.is_error).toBe(false);
    expect(r.content).toMatch(/No files match "\*\.ts" under \.\..*use "\*\*\/\*\.ts"/);
  });

  it('caps the listing with a note', async () => {
    for (let i = 0; i < MAX_LIST_FILES + 5; i++)
      fs.writeFileSync(path.join(root, `f${String(i).padStart(4, '0')}.txt`), '');
    const r = await executeTool('list_files', { pattern: '*.txt' }, ctx);
    const lines = r.content.split('\n');
    expect(lines.filter((l) => l.endsWith('.txt'))).toHaveLength(MAX_LIST_FILES);
    expect(r.content).toMatch(/\[Listing cut at 1,000 files\. Narrow it/);
  });

  it('errors for a missing directory or a file', async () => {
    expect(await executeTool('list_files', { path: 'missing' }, ctx)).toEqual({
      is_error: true,
      content: 'directory not found: missing',
    });
    expect((await executeTool('list_files', { path: 'README.md' }, ctx)).content).toMatch(/is a file, not a directory/);
  });
});

describe('search', () => {
  it('finds literal text as file:line: text, skipping ignored dirs; smart case', async () => {
    const r = await executeTool('search', { query: 'todo' }, ctx);
    expect(r.content).toBe('README.md:2: Some TODO text\nsrc/util/helpers.ts:2: // TODO later');
    const exact = await executeTool('search', { query: 'Helper' }, ctx);
    expect(exact.content).toBe('src/util/helpers.ts:1: export function Helper() {}');
    expect((await executeTool('search', { query: 'HELPER' }, ctx)).content).toMatch(/^No matches/);
  });

  it('supports regex and a path (file or directory)', async () => {
    expect((await executeTool('search', { query: 'const \\w+ = \\d', regex: true }, ctx)).content).toBe(
      'src/app.ts:3: const x = 1;',
    );
    expect((await executeTool('search', { query: 'line', path: 'src/app.ts' }, ctx)).content.split('\n')).toHaveLength(
      3,
    );
    expect((await executeTool('search', { query: 'todo', path: 'src' }, ctx)).content).toBe(
      'src/util/helpers.ts:2: // TODO later',
    );
  });

  it('reports no matches without an error, and invalid regexes as errors', async () => {
    const none = await executeTool('search', { query: 'zzz' }, ctx);
    expect(none).toEqual({ is_error: false, content: 'No matches for "zzz" in . (searched 3 files).' });
    const bad = await executeTool('search', { query: '(', regex: true }, ctx);
    expect(bad.is_error).toBe(true);
    expect(bad.content).toMatch(/invalid regular expression/);
  });

  it('skips binary files and caps matches with a note', async () => {
    fs.writeFileSync(path.join(root, 'blob.bin'), Buffer.concat([Buffer.from('needle\n'), Buffer.from([0, 1, 2])]));
    fs.writeFileSync(
      path.join(root, 'many.txt'),
      Array.from({ length: MAX_SEARCH_MATCHES + 50 }, () => 'needle').join('\n'),
    );
    const r = await executeTool('search', { query: 'needle' }, ctx);
    expect(r.content).not.toContain('blob.bin:');
    expect(r.content.split('\n').filter((l) => l.startsWith('many.txt:'))).toHaveLength(MAX_SEARCH_MATCHES);
    expect(r.content).toMatch(/Showing the first 200 matches/);
    expect(r.content).toMatch(/Skipped 1 binary file\./);
  });

  it('shows a window around the match of a very long line', async () => {
    fs.writeFileSync(path.join(root, 'min.js'), `${'a'.repeat(5000)}NEEDLE${'b'.repeat(5000)}`);
    const r = await executeTool('search', { query: 'NEEDLE' }, ctx);
    expect(r.content.length).toBeLessThan(400);
    expect(r.content).toMatch(/^min\.js:1: …a+NEEDLEb+…$/);
  });
});

describe('edit_file', () => {
  it('replaces a unique match and shows the edited region', async () => {
    const r = await executeTool(
      'edit_file',
      { path: 'src/app.ts', old_text: 'const x = 1;', new_text: 'const x = 2;\nconst y = 3;' },
      ctx,
    );
    expect(r.is_error).toBe(false);
    expect(r.content).toBe(
      'Edited src/app.ts: replaced 1 line at line 3 with 2 lines.\n1\tline one\n2\tline two\n3\tconst x = 2;\n4\tconst y = 3;\n5\tline four',
    );
    expect(read('src/app.ts')).toBe('line one\nline two\nconst x = 2;\nconst y = 3;\nline four\n');
  });

  it('does not interpret $ patterns in new_text', async () => {
    await executeTool('edit_file', { path: 'src/app.ts', old_text: 'line four', new_text: "cost = '$&$1$$'" }, ctx);
    expect(read('src/app.ts')).toContain("cost = '$&$1$$'");
  });

  it('fails when not found, with a whitespace hint', async () => {
    const r = await executeTool('edit_file', { path: 'src/app.ts', old_text: '  const x = 1;  ', new_text: 'z' }, ctx);
    expect(r.is_error).toBe(true);
    expect(r.content).toMatch(
      /old_text not found in src\/app\.ts\. The text without its leading\/trailing whitespace occurs at line 3/,
    );
    const r2 = await executeTool('edit_file', { path: 'src/app.ts', old_text: 'absent', new_text: 'z' }, ctx);
    expect(r2.content).toMatch(/old_text not found.*Copy old_text exactly as read_file shows it/);
    expect(read('src/app.ts')).toBe(SOURCE);
  });

  it('fails when found several times, listing the lines', async () => {
    const r = await executeTool('edit_file', { path: 'src/app.ts', old_text: 'line', new_text: 'row' }, ctx);
    expect(r.is_error).toBe(true);
    expect(r.content).toBe(
      'old_text found 3 times in src/app.ts (lines 1, 2, 4). Include more surrounding lines in old_text so it matches exactly once.',
    );
    expect(read('src/app.ts')).toBe(SOURCE);
  });

  it('errors: missing file (hint write_file), identical texts, empty old_text', async () => {
    expect((await executeTool('edit_file', { path: 'nope.ts', old_text: 'a', new_text: 'b' }, ctx)).content).toMatch(
      /file not found: nope\.ts\. To create a file, use write_file/,
    );
    expect(
      (await executeTool('edit_file', { path: 'src/app.ts', old_text: 'line one', new_text: 'line one' }, ctx)).content,
    ).toMatch(/identical/);
    expect((await executeTool('edit_file', { path: 'src/app.ts', old_text: '', new_text: 'b' }, ctx)).content).toMatch(
      /`old_text` must not be empty/,
    );
  });

  it('keeps CRLF line endings and a BOM; refuses invalid UTF-8', async () => {
    fs.writeFileSync(path.join(root, 'win.txt'), '\uFEFFa\r\nb\r\nc\r\n');
    const r = await executeTool('edit_file', { path: 'win.txt', old_text: 'a\nb', new_text: 'a\nB\nb2' }, ctx);
    expect(r.is_error).toBe(false);
    expect(read('win.txt')).toBe('\uFEFFa\r\nB\r\nb2\r\nc\r\n');
    fs.writeFileSync(path.join(root, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    expect(
      (await executeTool('edit_file', { path: 'latin1.txt', old_text: 'caf', new_text: 'x' }, ctx)).content,
    ).toMatch(/not valid UTF-8/);
  });
});

describe('write_file', () => {
  it('creates files and parent directories, then overwrites', async () => {
    const r = await executeTool('write_file', { path: 'new/deep/file.txt', content: 'a\nb\n' }, ctx);
    expect(r).toEqual({ is_error: false, content: 'Created new/deep/file.txt (2 lines, 4 bytes).' });
    expect(read('new/deep/file.txt')).toBe('a\nb\n');
    const r2 = await executeTool('write_file', { path: 'new/deep/file.txt', content: 'c' }, ctx);
    expect(r2.content).toBe('Overwrote new/deep/file.txt (1 line, 1 byte).');
    expect(read('new/deep/file.txt')).toBe('c');
  });

  it('refuses to write over a directory', async () => {
    const r = await executeTool('write_file', { path: 'src', content: 'x' }, ctx);
    expect(r.is_error).toBe(true);
    expect(r.content).toMatch(/exists and is not a file/);
  });
});
