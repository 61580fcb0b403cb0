/**
 * The body a proxy sends upstream: the client's own request with only `messages` replaced
 * by the engine's (trimmed, repaired, with the engine's cache breakpoints). System, tools,
 * thinking config, `context_management`, metadata and every other field go as sent.
 *
 * Breakpoints: the client's own markers on tools and system (and a top-level automatic
 * `cache_control`) count toward the API's 4; the engine's message breakpoints get what is
 * left, the latest ones first (the tail writes the whole prefix; a read anchor is the
 * optional one). They use the client's TTL for messages so the 1h-before-5m rule holds.
 */
import { MAX_BREAKPOINTS } from '../api/cache-rules';
import { cacheControlOf, contentBlocks, withoutCacheControl } from '../api/blocks';
import type { CacheTtl, RequestBody } from '../api/wire';
import { thinkingEnabled, validateRequest } from '../request/validate';
import type { ContentBlockParam } from '../session/types';

type Messages = RequestBody['messages'];

/** Breakpoints the client placed before the messages (tools, system) plus automatic caching. */
export function headBreakpoints(body: RequestBody): number {
  let n = body.cache_control ? 1 : 0;
  for (const t of body.tools ?? []) if (cacheControlOf(t)) n++;
  if (Array.isArray(body.system)) for (const b of body.system) if (cacheControlOf(b)) n++;
  return n;
}

/** The TTL the client uses in its messages (its last marker), else in its head; '5m' when it sets none. */
export function clientTtl(body: RequestBody): CacheTtl {
  let ttl: CacheTtl | undefined;
  for (const m of body.messages)
    for (const b of contentBlocks(m.content))
      ttl = (cacheControlOf(b)?.ttl as CacheTtl | undefined) ?? (cacheControlOf(b) ? '5m' : ttl);
  if (ttl) return ttl;
  const head = [...(body.tools ?? []), ...(Array.isArray(body.system) ? body.system : [])]
    .map((x) => cacheControlOf(x))
    .filter((c) => c !== undefined);
  // A 1h marker may not follow a 5m one: with any 5m marker in the head, messages use 5m.
  return head.length > 0 && head.every((c) => c.ttl === '1h') ? '1h' : '5m';
}

/** Whether messages may carry 1-hour markers after the client's head (none of its head markers is a 5-minute one). */
export function headAllowsLongTtl(body: RequestBody): boolean {
  const head = [...(body.tools ?? []), ...(Array.isArray(body.system) ? body.system : [])];
  const marks = head.map((x) => cacheControlOf(x)).filter((c) => c !== undefined);
  return marks.every((c) => c.ttl === '1h') && (!body.cache_control || body.cache_control.ttl === '1h');
}

/** Messages with at most `budget` breakpoints, keeping the latest ones (copies only where a marker goes). */
export function fitBreakpoints(messages: Messages, budget: number): Messages {
  const marks: [number, number][] = [];
  messages.forEach((m, i) => contentBlocks(m.content).forEach((b, j) => cacheControlOf(b) && marks.push([i, j])));
  const drop = marks.slice(0, Math.max(0, marks.length - Math.max(0, budget)));
  if (drop.length === 0) return messages;
  const out = messages.slice();
  for (const [i, j] of drop) {
    const content = [...contentBlocks(out[i].content)] as ContentBlockParam[];
    content[j] = withoutCacheControl(content[j]);
    out[i] = { ...out[i], content } as Messages[number];
  }
  return out;
}

export type Upstream = { readonly body: RequestBody } | { readonly error: string };

/** The client's body with the engine's messages, or why it cannot be sent (the caller then fails open). */
export function upstreamBody(client: RequestBody, engineMessages: Messages): Upstream {
  const messages = fitBreakpoints(engineMessages, MAX_BREAKPOINTS - headBreakpoints(client));
  const body: RequestBody = { ...client, messages };
  const violations = validateRequest(body, { model: body.model, thinking: thinkingEnabled(body) });
  if (violations.length > 0) return { error: `the trimmed request would be refused: ${violations[0].message}` };
  return { body };
}
