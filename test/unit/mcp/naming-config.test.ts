import { describe, expect, it } from 'vitest';
import {
  inputIdsOf,
  mergeServers,
  parseMcpConfig,
  resolveServer,
  resolveServers,
  DEFAULT_MCP_TIMEOUT_MS,
} from '../../../src/core/mcp/config';
import { MAX_TOOL_NAME_LENGTH, mcpToolName } from '../../../src/core/mcp/naming';
import { redact, REDACTED, secretValues } from '../../../src/core/mcp/redact';

describe('mcp tool names', () => {
  it('follows Claude Code: mcp__server__tool', () => {
    expect(mcpToolName('github', 'create_issue')).toBe('mcp__github__create_issue');
  });
  it('replaces characters the API refuses and keeps such names apart', () => {
    const a = mcpToolName('my.server', 'get-tiny-image');
    const b = mcpToolName('my_server', 'get-tiny-image');
    expect(a).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(a).not.toBe(b);
    expect(b).toBe('mcp__my_server__get-tiny-image');
  });
  it('shortens names past 64 characters stably, distinct for distinct tools', () => {
    const long = 'a_really_long_tool_name_that_goes_on_and_on_and_on_forever';
    const one = mcpToolName('enterprise-knowledge-base', `${long}_1`);
    const two = mcpToolName('enterprise-knowledge-base', `${long}_2`);
    expect(one.length).toBe(MAX_TOOL_NAME_LENGTH);
    expect(one).toMatch(/^mcp__enterprise-knowledge-base__a_really/);
    expect(one).not.toBe(two);
    expect(mcpToolName('enterprise-knowledge-base', `${long}_1`)).toBe(one);
  });
});

describe('mcp config', () => {
  const env = { HOME: '/home/u', TOKEN: 'tok-123456', EMPTY: undefined };
  it("reads VS Code's servers format with workspaceFolder, env and input variables", () => {
    const doc = {
      inputs: [{ type: 'promptString', id: 'api-key', description: 'API key', password: true }],
      servers: {
        files: {
          type: 'stdio',
          command: 'node',
          args: ['${workspaceFolder}/server.js'],
          env: { KEY: '${input:api-key}', T: '${env:TOKEN}' },
        },
        remote: {
          type: 'http',
          url: 'https://example.com/mcp',
          headers: { Authorization: 'Bearer ${input:api-key}' },
          timeout: 5000,
        },
      },
    };
    const parsed = parseMcpConfig(doc, '.vscode/mcp.json');
    expect(parsed.problems).toEqual([]);
    expect(parsed.inputs).toEqual([{ id: 'api-key', description: 'API key', password: true }]);
    expect(inputIdsOf(parsed.servers[0])).toEqual(['api-key']);
    const ctx = { workspaceFolder: '/ws', env, inputs: new Map([['api-key', 'sk-secret-value']]) };
    const { servers, problems } = resolveServers(parsed.servers, ctx);
    expect(problems).toEqual([]);
    expect(servers[0].transport).toEqual({
      kind: 'stdio',
      command: 'node',
      args: ['/ws/server.js'],
      env: { KEY: 'sk-secret-value', T: 'tok-123456' },
      cwd: '/ws',
    });
    expect(servers[0].secrets).toContain('sk-secret-value');
    expect(servers[0].secrets).toContain('tok-123456');
    expect(servers[0].timeoutMs).toBe(DEFAULT_MCP_TIMEOUT_MS);
    expect(servers[1].transport).toEqual({
      kind: 'http',
      url: 'https://example.com/mcp',
      headers: { Authorization: 'Bearer sk-secret-value' },
      sse: false,
    });
    expect(servers[1].secrets).toContain('Bearer sk-secret-value');
    expect(servers[1].secrets).toContain('sk-secret-value');
    expect(servers[1].secrets).not.toContain('Bearer');
    expect(servers[1].timeoutMs).toBe(5000);
  });
  it("reads Claude Code's mcpServers format with ${VAR} and ${VAR:-default}", () => {
    const doc = {
      mcpServers: {
        db: { command: 'db-mcp', args: ['--url', '${DB_URL:-sqlite://local}'], env: { T: '${TOKEN}' } },
        legacy: { type: 'sse', url: 'http://localhost:1/sse' },
      },
    };
    const parsed = parseMcpConfig(doc, '.mcp.json');
    const { servers } = resolveServers(parsed.servers, { env, inputs: new Map() });
    expect(servers[0].transport).toMatchObject({
      kind: 'stdio',
      args: ['--url', 'sqlite://local'],
      env: { T: 'tok-123456' },
    });
    expect(servers[1].transport).toMatchObject({ kind: 'http', sse: true });
  });
  it('reports what it cannot use instead of guessing', () => {
    const parsed = parseMcpConfig(
      {
        servers: {
          a: { type: 'websocket', url: 'ws://x' },
          b: { args: [] },
          c: 'nope',
          d: { command: 'x', env: { K: '${input:missing}' } },
        },
      },
      'f.json',
    );
    expect(parsed.problems).toEqual(['f.json: server "c" is not an object']);
    const { servers, problems } = resolveServers(parsed.servers, { env: {}, inputs: new Map() });
    expect(servers).toEqual([]);
    expect(problems).toEqual([
      'f.json: server "a": unsupported type "websocket" (stdio, http or sse)',
      'f.json: server "b": "command" is missing',
      'f.json: server "d": input "missing" has no value',
    ]);
    expect(parseMcpConfig([], 'x').problems).toEqual(['x: expected a JSON object']);
  });
  it('merges sources: the first definition of a name wins, and the clash is reported', () => {
    const a = parseMcpConfig({ servers: { s: { command: 'one' } } }, 'A');
    const b = parseMcpConfig({ mcpServers: { s: { command: 'two' }, t: { command: 'three' } } }, 'B');
    const merged = mergeServers([a, b]);
    expect(merged.servers.map((s) => `${s.origin}:${s.name}`)).toEqual(['A:s', 'B:t']);
    expect(merged.problems).toEqual(['B: server "s" is also defined in A; that one is used']);
    const r = resolveServer(merged.servers[0], { env: {}, inputs: new Map() });
    expect('problem' in r ? r.problem : r.transport).toMatchObject({ command: 'one' });
  });
});

describe('redaction', () => {
  it('replaces secrets, longest first, and ignores values too short to be secrets', () => {
    const secrets = secretValues(['abc', 'Bearer', 'sk-123456', 'Bearer sk-123456']);
    expect(secrets).toEqual(['Bearer sk-123456', 'sk-123456']);
    expect(redact('auth: Bearer sk-123456, key sk-123456, abc, Bearer', secrets)).toBe(
      `auth: ${REDACTED}, key ${REDACTED}, abc, Bearer`,
    );
  });
});

describe('parseJsonc', () => {
  it('reads VS Code mcp.json with comments and trailing commas, leaving strings alone', async () => {
    const { parseJsonc } = await import('../../../src/core/mcp/jsonc');
    const text =
      '{\n  // servers\n  "servers": { "r": { "url": "https://x.dev/mcp", /* inline */ "headers": { "a": "b,}" }, }, },\n}';
    expect(parseJsonc(text)).toEqual({ servers: { r: { url: 'https://x.dev/mcp', headers: { a: 'b,}' } } } });
    expect(() => parseJsonc('{ "a": }')).toThrow();
  });
});

describe('references in summaries', () => {
  it('keep resource URIs of any scheme and ref_ids written as JSON', async () => {
    const { extractRefs } = await import('../../../src/core/trimming/refs');
    const text =
      '{"ref_id": "WF-0007-ab12", "note": "see"} [resource link] Doc: demo://resource/static/document/architecture.md (text/markdown) and file:///tmp/a.txt';
    const refs = extractRefs(text);
    for (const r of ['WF-0007-ab12', 'demo://resource/static/document/architecture.md', 'file:///tmp/a.txt'])
      expect(refs).toContain(r);
  });
});
