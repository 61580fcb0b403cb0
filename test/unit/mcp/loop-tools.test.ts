/**
 * The loop offers MCP tools after the built-in ones, and applies a deferred switch
 * only once the prompt cache has expired (no call within the TTL), so a switch
 * never costs a cache rewrite the user did not confirm.
 * Each test has its own API server, MCP server and loop: a test that times out mid-turn
 * leaves nothing running for the next one.
 */
import os from 'node:os';
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentLoop, NodeWorkspace, resolveAgentConfig, TOOL_NAMES } from '../../../src/core/agent';
import { McpToolSource } from '../../../src/core/mcp/source';
import { Session } from '../../../src/core/session';
import { startTestServer, type TestServer } from '../../../src/dev/server';
import { workflowServer } from './helpers';

/** Past the 5-minute TTL. */
const AFTER_EXPIRY_MS = 6 * 60_000;

let api: TestServer;
let source: McpToolSource;
let loop: AgentLoop;
let skew = 0;

beforeEach(async () => {
  skew = 0;
  api = await startTestServer({ fallback: 'fail' });
  source = new McpToolSource([workflowServer()]);
  await source.start();
  loop = new AgentLoop({
    session: new Session(),
    workspace: new NodeWorkspace(os.tmpdir()),
    config: resolveAgentConfig({ baseURL: api.url, apiKey: 'test', retry: { maxRetries: 0 } }, {}),
    client: new Anthropic({ apiKey: 'test', baseURL: api.url, maxRetries: 0 }),
    externalTools: source,
    clock: () => Date.now() + skew,
  });
});
afterEach(async () => {
  loop?.close();
  await source?.close();
  await api?.close();
});

const offered = (): string[] =>
  (
    (api.requests.filter((r) => r.path === '/v1/messages').at(-1)!.body as { tools: { name: string }[] }).tools ?? []
  ).map((t) => t.name);

describe('MCP tools in the loop', () => {
  it('offers the built-in tools, then the MCP tools; a deferred switch waits for the cache to expire', async () => {
    api.script({ content: [{ type: 'text', text: 'Hi.' }] });
    await loop.run('hello');
    expect(offered()).toEqual([
      ...TOOL_NAMES,
      'mcp__workflow__search_records',
      'mcp__workflow__get_record',
      'mcp__workflow__get_attachment',
      'mcp__workflow__update_record',
    ]);

    source.setEnabled({ server: 'workflow', tool: 'update_record', enabled: false }, false);
    api.script({ content: [{ type: 'text', text: 'Still here.' }] });
    await loop.run('again, within the cache TTL');
    expect(offered()).toContain('mcp__workflow__update_record');

    skew = AFTER_EXPIRY_MS;
    api.script({ content: [{ type: 'text', text: 'Later.' }] });
    await loop.run('after a pause longer than the TTL');
    expect(offered()).not.toContain('mcp__workflow__update_record');
    expect(offered()).toContain('mcp__workflow__get_record');
    expect(source.pendingSwitches()).toEqual([]);
  });

  it('a switch the user confirms applies on the next call', async () => {
    source.setEnabled({ server: 'workflow', enabled: false }, true);
    api.script({ content: [{ type: 'text', text: 'Fine.' }] });
    await loop.run('go on');
    expect(offered()).toEqual([...TOOL_NAMES]);
  });
});
