/**
 * The tools the model is offered: the built-in ones, then the external ones (MCP servers).
 * A change of the tool list rewrites the whole cached prefix, so an external source's
 * deferred switches apply only once the prompt cache has gone cold, and an unchanged list
 * is left as it is.
 */
import { ttlMsOf } from '../api/cache-rules';
import type { CacheTtl } from '../api/wire';
import type { Session } from '../session/session';
import { toolDefinitions, type ExternalTools, type ToolDefinition } from './tools';

/** Built-in tools, then the external ones (deferred switches applied only when `cacheCold`). */
export function offeredTools(external: ExternalTools | undefined, cacheCold: boolean): ToolDefinition[] {
  return [...toolDefinitions(), ...(external?.definitions({ cacheCold }) ?? [])];
}

/** The prompt cache has expired: no call within the TTL (or none at all). */
export function cacheCold(session: Session, ttl: CacheTtl, now: number): boolean {
  const last = session.calls.at(-1)?.timestamp;
  return last === undefined || now - Date.parse(last) >= ttlMsOf(ttl);
}

/** Refresh the offered tools before a call (a server's list changed, or a switch is due). */
export function refreshTools(session: Session, external: ExternalTools, ttl: CacheTtl, now: number): void {
  const tools = offeredTools(external, cacheCold(session, ttl, now));
  if (!sameTools(session.tools, tools)) session.tools = tools;
}

/** Whether two tool lists are the same (same JSON: the cached prefix survives). */
function sameTools(a: readonly ToolDefinition[] | undefined, b: readonly ToolDefinition[]): boolean {
  return a !== undefined && JSON.stringify(a) === JSON.stringify(b);
}
