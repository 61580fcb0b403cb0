/** Tokens per tool definition, measured on the real server-everything over stdio, and the price of a switch. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpInventory, toolSwitchCost } from '../../../src/core/mcp/inventory';
import { McpToolSource } from '../../../src/core/mcp/source';
import { modelPrice } from '../../../src/core/models';
import { TokenEstimator } from '../../../src/core/tokens';
import { EVERYTHING_SERVER } from './helpers';

let source: McpToolSource;
const estimator = new TokenEstimator().forModel('claude-sonnet-4-6');
const tokens = (t: string): number => estimator.text(t).tokens;

beforeAll(async () => {
  source = new McpToolSource([
    {
      name: 'everything',
      transport: { kind: 'stdio', command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'], env: {} },
      timeoutMs: 20_000,
      origin: 'test',
      secrets: [],
    },
  ]);
  await source.start();
});
afterAll(async () => {
  await source?.close();
});

describe('mcpInventory', () => {
  it('lists each tool of server-everything with the tokens of its definition; the server total is their sum', () => {
    const [server] = mcpInventory(source, tokens);
    console.log(
      `server-everything: ${server.tools.length} tools, ${server.tokens} tokens of definitions (estimated)\n${server.tools.map((t) => `  ${t.apiName}: ${t.tokens}`).join('\n')}`,
    );
    expect(server).toMatchObject({ name: 'everything', state: 'ready', enabled: true, pending: false });
    expect(server.tools.map((t) => t.apiName)).toContain('mcp__everything__get-tiny-image');
    for (const t of server.tools) expect(t.tokens).toBeGreaterThan(10);
    expect(server.tokens).toBe(server.tools.reduce((s, t) => s + t.tokens, 0));
  });

  it('shows switched-off tools and pending switches; the server total drops by the tools switched off', () => {
    const before = mcpInventory(source, tokens)[0];
    source.setEnabled({ server: 'everything', tool: 'echo', enabled: false }, true);
    source.setEnabled({ server: 'everything', tool: 'get-sum', enabled: false }, false);
    const after = mcpInventory(source, tokens)[0];
    const echo = after.tools.find((t) => t.name === 'echo')!;
    expect(echo.enabled).toBe(false);
    expect(after.tools.find((t) => t.name === 'get-sum')).toMatchObject({ enabled: true, pending: true });
    expect(after.tokens).toBe(before.tokens - echo.tokens);
  });
});

describe('toolSwitchCost', () => {
  it('prices the rewrite of the cached prefix against the per-call saving (Sonnet 4.6: write 3.75, read 0.30 per MTok)', () => {
    const c = toolSwitchCost(50_000, 5_000, modelPrice('claude-sonnet-4-6'));
    // The next call writes 45k instead of reading 50k (two requests apart), not 45k × (write − read).
    expect(c.rewriteUsd).toBeCloseTo((45_000 * 3.75 - 50_000 * 0.3) / 1e6, 9);
    expect(c.savedPerCallUsd).toBeCloseTo((5_000 * 0.3) / 1e6, 9);
    expect(c.breakEvenCalls).toBe(103);
    expect(toolSwitchCost(50_000, 0, modelPrice('claude-sonnet-4-6')).breakEvenCalls).toBe(Infinity);
  });
});
