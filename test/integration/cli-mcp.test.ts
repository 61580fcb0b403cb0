/**
 * `trimline run --mcp-config F --approve-mcp`, headless: the CLI as a child process, the workflow fixture as its stdio
 * MCP server.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { journalPath } from '../../src/core/store';
import { startTestServer, type TestServer } from '../../src/dev/server';
import type { IncomingCall, ScriptedTurn } from '../../src/dev/types';
import { WORKFLOW_SERVER } from '../unit/mcp/helpers';
import { buildCli, runCli } from './cli';

const SECRET = 'cli-secret-value-99';
let bundle: string;
let server: TestServer;
let workspace: string;
let configFile: string;

beforeAll(async () => {
  bundle = buildCli();
  server = await startTestServer({ fallback: 'fail' });
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'trimline-cli-mcp-'));
  configFile = path.join(workspace, 'mcp.json');
  // Claude Code's format; the secret comes from the CLI's environment through ${VAR}.
  fs.writeFileSync(
    configFile,
    JSON.stringify({
      mcpServers: {
        workflow: {
          command: process.execPath,
          args: [WORKFLOW_SERVER, '--faults'],
          env: { WORKFLOW_TOKEN: '${WF_TOKEN}' },
        },
      },
    }),
  );
});

afterAll(async () => {
  await server?.close();
  if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
});

/** A model that searches, reads the first record it found, prints the env, then answers. */
function model(): (call: IncomingCall) => ScriptedTurn {
  let step = 0;
  return (call) => {
    const s = step++;
    if (s === 0)
      return {
        content: [
          { type: 'text', text: 'Searching.' },
          { type: 'tool_use', name: 'mcp__workflow__search_records', input: { query: 'q' } },
        ],
      };
    if (s === 1) {
      const ref = /ref_id: (WF-\S+)/.exec(JSON.stringify(call.body.messages))![1];
      return {
        content: [
          { type: 'text', text: 'Reading.' },
          { type: 'tool_use', name: 'mcp__workflow__get_record', input: { ref_id: ref } },
        ],
      };
    }
    if (s === 2) return { content: [{ type: 'tool_use', name: 'mcp__workflow__show_env', input: {} }] };
    return { content: [{ type: 'text', text: 'All done.' }] };
  };
}

async function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const play = model();
  server.script(play, play, play, play);
  // The config's ${WF_TOKEN} comes from the CLI's environment.
  const r = runCli(bundle, args, server.url, workspace, { WF_TOKEN: SECRET });
  const { code } = await r.exited;
  return { code, stdout: r.stdout(), stderr: r.stderr() };
}

describe('trimline run with MCP servers', () => {
  it('offers the servers tools, runs them with --approve-mcp, keeps secrets out of output and journal', async () => {
    const r = await run([
      'review',
      '--workspace',
      workspace,
      '--session',
      'mcp-cli',
      '--mcp-config',
      configFile,
      '--approve-mcp',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('MCP server "workflow": 8 tools');
    expect(r.stdout).toContain('→ mcp__workflow__search_records {"query":"q"}');
    expect(r.stdout).toMatch(/✓ 12 records match "q"/);
    expect(r.stdout).toContain('✓ WORKFLOW_TOKEN=[redacted]');
    expect(r.stdout).toContain('All done.');
    const first = server.requests.find((q) => q.path === '/v1/messages')!.body as { tools: { name: string }[] };
    expect(first.tools.map((t) => t.name)).toContain('mcp__workflow__get_record');
    const journal = fs.readFileSync(journalPath(path.join(workspace, '.trimline', 'sessions'), 'mcp-cli'), 'utf8');
    expect(journal).toContain('mcp__workflow__get_record');
    expect(journal).not.toContain(SECRET);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });

  it('without --approve-mcp and no terminal, denies MCP calls and says how to allow them', async () => {
    server.reset();
    const r = await run(['review', '--workspace', workspace, '--mcp-config', configFile]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'mcp__workflow__search_records denied (no terminal to ask; pass --approve-mcp to allow MCP tools)',
    );
    expect(r.stdout).toContain('✗ denied by user');
  });

  it('exits 2 with one line for a config it cannot use', async () => {
    const bad = path.join(workspace, 'bad.json');
    fs.writeFileSync(bad, JSON.stringify({ servers: { s: { type: 'stdio', env: { K: '${input:key}' } } } }));
    const r = runCli(bundle, ['x', '--workspace', workspace, '--mcp-config', bad], server.url, workspace);
    expect((await r.exited).code).toBe(2);
    expect(r.stderr().trim()).toBe(`trimline: run: ${bad}: server "s": "command" is missing`);
  });
});
