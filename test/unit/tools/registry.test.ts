import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executeTool, TOOL_NAMES, toolDefinitions, type ToolContext } from '../../../src/core/agent/tools';
import type { Workspace } from '../../../src/core/agent/workspace';
import { makeContext, makeTempDir, removeDir } from './helpers';

let root: string;
beforeEach(() => {
  root = makeTempDir({ 'a.txt': 'a\n' });
});
afterEach(() => removeDir(root));

describe('toolDefinitions', () => {
  it('has a fixed order and stable key order', () => {
    const defs = toolDefinitions();
    expect(defs.map((d) => d.name)).toEqual([...TOOL_NAMES]);
    expect(TOOL_NAMES).toEqual([
      'read_file',
      'list_files',
      'search',
      'edit_file',
      'write_file',
      'run_command',
      'trim_tool_result',
    ]);
    for (const d of defs) {
      expect(Object.keys(d)).toEqual(['name', 'description', 'input_schema']);
      expect(Object.keys(d.input_schema)).toEqual(['type', 'properties', 'required', 'additionalProperties']);
    }
    expect(Object.keys(defs[0].input_schema.properties as object)).toEqual(['path', 'start_line', 'end_line']);
    expect(JSON.stringify(toolDefinitions())).toBe(JSON.stringify(defs));
  });

  it('returns fresh copies (adding cache_control does not leak)', () => {
    const defs = toolDefinitions();
    defs[defs.length - 1].cache_control = { type: 'ephemeral' };
    (defs[0].input_schema.required as string[]).push('bogus');
    expect(toolDefinitions()[defs.length - 1].cache_control).toBeUndefined();
    expect(toolDefinitions()[0].input_schema.required).toEqual(['path']);
  });
});

describe('executeTool', () => {
  it('lists every input problem and the expected shape', async () => {
    const r = await executeTool('read_file', { start_line: 'ten', extra: 1 }, makeContext(root));
    expect(r.is_error).toBe(true);
    expect(r.content).toBe(
      'Invalid input for read_file: `start_line` must be an integer, got string "ten"; unknown property `extra`; missing required `path` (string). ' +
        'Expected {path: string, start_line?: integer, end_line?: integer}.',
    );
    expect((await executeTool('read_file', 'a.txt', makeContext(root))).content).toMatch(
      /input must be a JSON object, got string "a\.txt"/,
    );
  });

  it('treats null optional properties as absent', async () => {
    const r = await executeTool('read_file', { path: 'a.txt', start_line: null }, makeContext(root));
    expect(r).toEqual({ is_error: false, content: '1\ta' });
  });

  it('refuses unknown tools', async () => {
    const r = await executeTool('rm_rf', {}, makeContext(root));
    expect(r.is_error).toBe(true);
    expect(r.content).toMatch(/unknown tool "rm_rf"\. Available tools: read_file, list_files/);
  });

  it('refuses writes in an untrusted workspace, explaining Workspace Trust; reads still work', async () => {
    const ctx = makeContext(root, { workspace: { trusted: false } });
    for (const [name, input] of [
      ['edit_file', { path: 'a.txt', old_text: 'a', new_text: 'b' }],
      ['write_file', { path: 'b.txt', content: 'b' }],
    ] as const) {
      const r = await executeTool(name, input, ctx);
      expect(r.is_error).toBe(true);
      expect(r.content).toMatch(new RegExp(`^${name} is unavailable: this workspace is not trusted`));
      expect(r.content).toMatch(/Manage Workspace Trust/);
    }
    expect((await executeTool('read_file', { path: 'a.txt' }, ctx)).is_error).toBe(false);
  });

  it('never throws: workspace failures become is_error results', async () => {
    const broken: Workspace = {
      root,
      trusted: true,
      readFile: () => Promise.reject(new Error('disk on fire')),
      writeFile: () => Promise.reject(new Error('disk on fire')),
      stat: (rel) => Promise.resolve({ type: rel === '.' ? 'directory' : 'file', size: 3, mtimeMs: 0 }),
      list: () => {
        throw new Error('sync throw');
      },
      realpath: () => Promise.reject(new Error('x')),
    };
    const ctx: ToolContext = makeContext(broken);
    expect(await executeTool('read_file', { path: 'a.txt' }, ctx)).toEqual({
      is_error: true,
      content: 'read_file failed: disk on fire',
    });
    expect(await executeTool('list_files', {}, ctx)).toEqual({
      is_error: true,
      content: 'list_files failed: sync throw',
    });
  });

  it('honors the abort signal: before start and while running', async () => {
    const ac = new AbortController();
    ac.abort();
    expect(
      (await executeTool('read_file', { path: 'a.txt' }, makeContext(root, { signal: ac.signal }))).content,
    ).toMatch(/^cancelled/);

    const slow = new AbortController();
    const hanging: Workspace = {
      ...makeContext(root).workspace,
      root,
      trusted: true,
      stat: () => new Promise(() => {}),
    };
    setTimeout(() => slow.abort(), 50);
    const r = await executeTool('read_file', { path: 'a.txt' }, makeContext(hanging, { signal: slow.signal }));
    expect(r).toEqual({ is_error: true, content: 'cancelled: the user stopped this turn.' });
  });
});
