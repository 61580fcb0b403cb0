/** McpToolSource against the workflow fixture as a real stdio process (the official SDK on both ends). */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  McpToolSource,
  RESTRICTED_TEXT,
  type McpApproval,
  type McpApprovalRequest,
} from '../../../src/core/mcp/source';
import { REDACTED } from '../../../src/core/mcp/redact';
import { toolContext, workflowServer } from './helpers';

const SECRET = 'wf-secret-token-42';
let source: McpToolSource | undefined;
afterEach(async () => {
  await source?.close();
  source = undefined;
});

function open(opts: { faults?: boolean; timeoutMs?: number; answers?: McpApproval[] } = {}): {
  src: McpToolSource;
  asked: McpApprovalRequest[];
  log: string[];
} {
  const asked: McpApprovalRequest[] = [];
  const log: string[] = [];
  const answers = [...(opts.answers ?? [])];
  source = new McpToolSource(
    [workflowServer({ faults: opts.faults, timeoutMs: opts.timeoutMs, env: { WORKFLOW_TOKEN: SECRET } })],
    {
      approve: async (r) => {
        asked.push(r);
        return answers.shift() ?? 'deny';
      },
      log: (l) => log.push(l),
    },
  );
  return { src: source, asked, log };
}

describe('McpToolSource (workflow fixture over stdio)', () => {
  it("offers the server's tools as mcp__server__tool with their own schema and description", async () => {
    const { src } = open();
    await src.start();
    const defs = src.definitions({ cacheCold: false });
    expect(defs.map((d) => d.name)).toEqual([
      'mcp__workflow__search_records',
      'mcp__workflow__get_record',
      'mcp__workflow__get_attachment',
      'mcp__workflow__update_record',
    ]);
    expect(defs[1]).toEqual({
      name: 'mcp__workflow__get_record',
      description: 'Fetch one record by ref_id: its text, linked records and attachment link.',
      input_schema: { type: 'object', properties: { ref_id: { type: 'string' } }, required: ['ref_id'] },
    });
    expect(src.has('mcp__workflow__get_record')).toBe(true);
    expect(src.has('get_record')).toBe(false);
  });

  it('asks before a call: once asks again next time, "server" is remembered, deny runs nothing', async () => {
    const { src, asked } = open({ answers: ['deny', 'once', 'server'] });
    await src.start();
    const ctx = toolContext();
    const denied = await src.execute('mcp__workflow__search_records', { query: 'x' }, ctx);
    expect(denied).toMatchObject({ is_error: true });
    expect(denied.content).toMatch(/^denied by user/);
    const once = await src.execute('mcp__workflow__search_records', { query: 'x' }, ctx);
    expect(once.is_error).toBe(false);
    expect(once.content).toMatch(/ref_id: WF-0001-/);
    await src.execute('mcp__workflow__search_records', { query: 'y' }, ctx);
    await src.execute('mcp__workflow__search_records', { query: 'z' }, ctx);
    expect(asked.map((a) => a.apiName)).toEqual(Array(3).fill('mcp__workflow__search_records'));
    expect(asked[0]).toMatchObject({ server: 'workflow', tool: 'search_records', input: { query: 'x' } });
  });

  it('a new session forgets "always for this server" and the switches', async () => {
    const { src, asked } = open({ answers: ['server', 'deny'] });
    await src.start();
    await src.execute('mcp__workflow__search_records', { query: 'x' }, toolContext());
    await src.execute('mcp__workflow__search_records', { query: 'x' }, toolContext());
    src.setEnabled({ server: 'workflow', tool: 'update_record', enabled: false }, true);
    expect(asked).toHaveLength(1);
    src.newSession();
    expect(src.definitions({ cacheCold: false }).map((d) => d.name)).toContain('mcp__workflow__update_record');
    expect((await src.execute('mcp__workflow__search_records', { query: 'x' }, toolContext())).is_error).toBe(true);
    expect(asked).toHaveLength(2);
  });

  it('runs nothing in Restricted Mode, and asks nothing', async () => {
    const { src, asked } = open({ answers: ['server'] });
    await src.start();
    const r = await src.execute('mcp__workflow__search_records', { query: 'x' }, toolContext({ trusted: false }));
    expect(r).toEqual({ content: RESTRICTED_TEXT, is_error: true });
    expect(asked).toEqual([]);
  });

  it('keeps resource links as text with their URI; tool errors are is_error', async () => {
    const { src } = open({ answers: ['server'] });
    await src.start();
    const search = await src.execute('mcp__workflow__search_records', { query: 'x' }, toolContext());
    const ref = /ref_id: (WF-\S+)/.exec(search.content)![1];
    const rec = await src.execute('mcp__workflow__get_record', { ref_id: ref }, toolContext());
    expect(rec.content).toContain(
      `[resource link] attachment of ${ref}: workflow://records/${ref}/attachment (text/plain)`,
    );
    const att = await src.execute(
      'mcp__workflow__get_attachment',
      { uri: `workflow://records/${ref}/attachment` },
      toolContext(),
    );
    expect(
      att.content.startsWith(
        `[resource] workflow://records/${ref}/attachment (text/plain)\nAttachment of ref_id: ${ref}`,
      ),
    ).toBe(true);
    const bad = await src.execute('mcp__workflow__get_record', { ref_id: 'nope' }, toolContext());
    expect(bad).toEqual({ content: 'no record with ref_id "nope"', is_error: true });
  });

  it('a crashed server gives an is_error result naming it, and is started again on its next use', async () => {
    const { src, log } = open({ faults: true, answers: ['server'] });
    await src.start();
    const crash = await src.execute('mcp__workflow__crash', {}, toolContext());
    expect(crash.is_error).toBe(true);
    expect(crash.content).toMatch(
      /MCP server "workflow" closed the connection during the call .*started again on its next use/,
    );
    const again = await src.execute('mcp__workflow__search_records', { query: 'x' }, toolContext());
    expect(again.is_error).toBe(false);
    expect(log.some((l) => l.startsWith('[mcp workflow] workflow fixture server ready'))).toBe(true);
  });

  it('a hung server times out with an is_error result naming it, is stopped, and restarts on its next use', async () => {
    const { src } = open({ faults: true, timeoutMs: 800, answers: ['server'] });
    await src.start();
    const hang = await src.execute('mcp__workflow__hang', {}, toolContext());
    expect(hang).toEqual({
      content:
        'MCP server "workflow" did not answer within 0.8 s: the call was abandoned and the server stopped; it is started again on its next use.',
      is_error: true,
    });
    expect((await src.execute('mcp__workflow__search_records', { query: 'x' }, toolContext())).is_error).toBe(false);
  });

  it('a cancelled turn stops waiting for the server', async () => {
    const { src } = open({ faults: true, answers: ['server'] });
    await src.start();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const r = await src.execute('mcp__workflow__hang', {}, toolContext({ signal: controller.signal }));
    expect(r.is_error).toBe(true);
    expect(r.content).toMatch(/^cancelled/);
  });

  it("keeps the server's env secrets out of results and the log", async () => {
    const { src, log } = open({ faults: true, answers: ['server'] });
    await src.start();
    const r = await src.execute('mcp__workflow__show_env', {}, toolContext());
    expect(r.content).toBe(`WORKFLOW_TOKEN=${REDACTED}`);
    await vi.waitFor(() => expect(log.join('\n')).toContain(`token is ${REDACTED}`));
    expect(log.join('\n')).not.toContain(SECRET);
  });

  it('refreshes its tools on tools/list_changed', async () => {
    const { src } = open({ faults: true, answers: ['server'] });
    await src.start();
    expect(src.has('mcp__workflow__added_later')).toBe(false);
    await src.execute('mcp__workflow__add_tool', {}, toolContext());
    await vi.waitFor(() => expect(src.has('mcp__workflow__added_later')).toBe(true), { timeout: 5_000 });
    expect(src.definitions({ cacheCold: false }).map((d) => d.name)).toContain('mcp__workflow__added_later');
    expect(await src.execute('mcp__workflow__added_later', {}, toolContext())).toEqual({
      content: 'the added tool ran',
      is_error: false,
    });
  });

  it('defers a switch until the cache is cold, or applies it at once when confirmed', async () => {
    const { src } = open();
    await src.start();
    src.setEnabled({ server: 'workflow', tool: 'update_record', enabled: false }, false);
    expect(src.pendingSwitches()).toHaveLength(1);
    expect(src.definitions({ cacheCold: false }).map((d) => d.name)).toContain('mcp__workflow__update_record');
    expect(src.definitions({ cacheCold: true }).map((d) => d.name)).not.toContain('mcp__workflow__update_record');
    expect(src.pendingSwitches()).toHaveLength(0);
    src.setEnabled({ server: 'workflow', enabled: false }, true);
    expect(src.definitions({ cacheCold: false })).toEqual([]);
    const r = await src.execute('mcp__workflow__search_records', { query: 'x' }, toolContext());
    expect(r.content).toMatch(/switched off/);
  });

  it('a server that cannot start leaves no tools and says why when called', async () => {
    source = new McpToolSource([
      {
        name: 'ghost',
        transport: { kind: 'stdio', command: '/nonexistent/mcp-server', args: [], env: {} },
        timeoutMs: 2_000,
        origin: 'test',
        secrets: [],
      },
    ]);
    await source.start();
    expect(source.definitions({ cacheCold: false })).toEqual([]);
    expect(source.connections[0].state).toBe('failed');
    expect(source.connections[0].lastError).toMatch(/ENOENT/);
  });
});
