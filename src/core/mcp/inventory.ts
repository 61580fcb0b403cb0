/**
 * What MCP tool definitions cost, for the inspector: tokens per server and per
 * tool definition (they are sent on every call), and what switching some off
 * costs and saves. A change to `tools` invalidates the whole prompt cache
 * (tools come first in the cached prefix), so switching off is a trade, quoted by
 * the one pricer (cache/break-even.ts `quoteRewrite`: two requests' prices apart):
 *
 *   rewrite now   = price(write prefix − removed) − price(read prefix)
 *   saving / call = price(read prefix) − price(read prefix − removed)   (while the cache stays warm)
 *
 * and it pays off after rewrite / saving calls. At the cache's expiry the
 * rewrite happens anyway, so a deferred switch costs nothing extra.
 */
import { quoteRewrite } from '../cache/break-even';
import type { ModelPrice } from '../models/table';
import type { ConnectionState } from './connection';
import type { McpToolSource } from './source';
import { toolDefinitionOf } from './source';

export interface McpToolInfo {
  /** The server's name for the tool. */
  readonly name: string;
  /** The name the model sees (`mcp__server__tool`). */
  readonly apiName: string;
  /** Estimated tokens of its definition. */
  readonly tokens: number;
  readonly enabled: boolean;
  /** A switch of this tool waits for the cache's expiry. */
  readonly pending: boolean;
}

export interface McpServerInfo {
  readonly name: string;
  readonly origin: string;
  readonly state: ConnectionState;
  readonly error?: string;
  readonly enabled: boolean;
  readonly pending: boolean;
  /** Tokens of its enabled tools' definitions. */
  readonly tokens: number;
  readonly tools: readonly McpToolInfo[];
}

/** Every server and tool with the tokens of its definition (`tokens` counts a definition's JSON). */
export function mcpInventory(source: McpToolSource, tokens: (text: string) => number): McpServerInfo[] {
  const pending = source.pendingSwitches();
  const isPending = (server: string, tool?: string): boolean =>
    pending.some((p) => p.server === server && p.tool === tool);
  return source.connections.map((c) => {
    const name = c.config.name;
    const tools = source
      .entries()
      .filter((e) => e.server === c)
      .map((e) => ({
        name: e.tool.name,
        apiName: e.apiName,
        tokens: tokens(JSON.stringify(toolDefinitionOf(e.apiName, e.tool))),
        enabled: source.isEnabled(name, e.tool.name),
        pending: isPending(name, e.tool.name),
      }));
    return {
      name,
      origin: c.config.origin,
      state: c.state,
      ...(c.lastError ? { error: c.lastError } : {}),
      enabled: source.isEnabled(name),
      pending: isPending(name),
      tokens: tools.filter((t) => t.enabled).reduce((s, t) => s + t.tokens, 0),
      tools,
    };
  });
}

export interface SwitchCost {
  /** USD the next call pays extra when the switch applies while the cache is warm. */
  readonly rewriteUsd: number;
  /** USD saved per later call (cache warm: at the read price). */
  readonly savedPerCallUsd: number;
  /** Calls after which switching off now has paid for itself (Infinity when it saves nothing). */
  readonly breakEvenCalls: number;
}

/**
 * The cost of changing the tools now, with `prefixTokens` cached and `removedTokens`
 * of definitions taken out (negative when switching tools on), at `price` (5-minute writes).
 * A rewrite dearer than none is 0 (the next call costs no more than without the switch).
 */
export function toolSwitchCost(prefixTokens: number, removedTokens: number, price: ModelPrice): SwitchCost {
  const q = quoteRewrite(prefixTokens, removedTokens, '5m', 1, price);
  const rewriteUsd = Math.max(0, q.rewriteCost);
  const savedPerCallUsd = q.savingPerCall;
  const breakEvenCalls = savedPerCallUsd > 0 ? Math.ceil(rewriteUsd / savedPerCallUsd) : Infinity;
  return { rewriteUsd, savedPerCallUsd, breakEvenCalls };
}
