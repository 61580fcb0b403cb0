/**
 * Cache breakpoint planner: where the request's `cache_control` markers go.
 * Facts from docs/anthropic-api.md ("Prompt caching"): at most 4
 * breakpoints; prefix order tools → system → messages; writes only at
 * breakpoints; a read looks back at most 20 block positions from each
 * breakpoint; below the model's minimum prefix nothing is cached; never on
 * thinking, redacted_thinking or empty text.
 */
import {
  cacheControlOf,
  contentBlocks,
  isBlank,
  isCacheable,
  nestedBlocks,
  withCacheControl,
  withoutCacheControl,
  type CacheControl,
} from '../api/blocks';
import type { Breakpoint, CacheTtl, RequestBody } from '../api/wire';
import type { ContentBlockParam } from '../session/types';
import { minCacheableTokens } from '../models';
import { LOOKBACK_BLOCKS, MAX_BREAKPOINTS } from '../api/cache-rules';

export { MAX_BREAKPOINTS };
/**
 * A read looks back at most 20 block positions from a breakpoint (cache/rules.ts); a gap of 20+ needs another anchor.
 */
export const BREAKPOINT_LOOKBACK_BLOCKS = LOOKBACK_BLOCKS;

export interface PlanOptions {
  /** Tokens of messages[m].content[b] (string content is block 0). */
  readonly tokensOf: (messageIndex: number, blockIndex: number) => number;
  readonly toolsTokens: number;
  readonly systemTokens: number;
  readonly model: string;
  readonly ttl: CacheTtl;
  /** Breakpoints of recent calls (their writes may be alive): the read anchor is the latest still usable. */
  readonly previous?: readonly Breakpoint[];
  /** Index of the first message that changed since the previous request: writes at or after it are gone. */
  readonly firstChanged?: number;
  /** Log block id at a request position (from the builder's blockMap); breakpoints are keyed by it. */
  readonly blockIdAt?: (messageIndex: number, blockIndex: number) => string | undefined;
  /**
   * `tokensOf` gives a block object the same count whenever this key is the same (the builder's
   * token memo): the positions of the messages a plan shares with the previous one are kept. The
   * caller never mutates a messages array it planned (the builder makes one per request).
   */
  readonly tokensKey?: object;
  /** Override of the model's minimum cacheable prefix (tests, calibration). */
  readonly minTokens?: number;
  /**
   * Keep the messages from this index on out of the cache write (write-time placement,
   * cache/hold-back.ts): the tail breakpoint goes on the last cacheable block before them, so they
   * are sent as plain input.
   */
  readonly holdBackFrom?: number;
}

export interface Plan {
  readonly body: RequestBody;
  readonly breakpoints: Breakpoint[];
  /** Messages from `holdBackFrom` on were kept out of the cache write (a tail before them reached the minimum). */
  readonly heldBack: boolean;
}

type Messages = RequestBody['messages'];

/** A message block position with its cumulative prefix. */
interface Pos {
  readonly m: number;
  readonly b: number;
  /** Flat index over message blocks (lookback distances are differences of these). */
  readonly g: number;
  readonly prefix: number;
  readonly block: ContentBlockParam;
  readonly id: string;
}

function cacheControl(ttl: CacheTtl): CacheControl {
  // A bare marker is the 5-minute TTL; keep it bare so the bytes match the common form.
  return ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
}

function hasAnyCacheControl(b: ContentBlockParam): boolean {
  if (cacheControlOf(b) !== undefined) return true;
  for (const c of nestedBlocks(b)) if (cacheControlOf(c) !== undefined) return true;
  return false;
}

function stripBlock(b: ContentBlockParam): ContentBlockParam {
  const top = withoutCacheControl(b);
  if (top.type !== 'tool_result' || typeof top.content === 'string' || top.content === undefined) return top;
  if (!top.content.some((c) => cacheControlOf(c) !== undefined)) return top;
  return { ...top, content: top.content.map((c) => withoutCacheControl(c)) };
}

/** The body without any cache_control (tools, system, messages, nested, top-level); unchanged parts are shared. */
export function stripCacheControl(body: RequestBody): RequestBody {
  const out: RequestBody = { ...body };
  delete out.cache_control;
  if (body.tools?.some((t) => cacheControlOf(t))) out.tools = body.tools.map((t) => withoutCacheControl(t));
  if (Array.isArray(body.system) && body.system.some((s) => cacheControlOf(s)))
    out.system = body.system.map((s) => withoutCacheControl(s));
  let messages: Messages | undefined;
  const msgs = body.messages;
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i];
    if (typeof m.content === 'string' || !hasCacheControlIn(m.content)) continue;
    messages ??= msgs.slice();
    messages[i] = { ...m, content: m.content.map(stripBlock) } as Messages[number];
  }
  if (messages) out.messages = messages;
  return out;
}

/**
 * Content arrays known to carry no cache_control. The assembled messages are the same objects from
 * call to call (request/assemble.ts), so each array is walked once, not on every plan: the strip costs
 * what is new. Arrays must not be mutated after they were planned (the builder never does).
 */
const cleanContent = new WeakSet<readonly ContentBlockParam[]>();

function hasCacheControlIn(content: readonly ContentBlockParam[]): boolean {
  if (cleanContent.has(content)) return false;
  for (let k = 0; k < content.length; k++) if (hasAnyCacheControl(content[k])) return true;
  cleanContent.add(content);
  return false;
}

/**
 * Every message block position with its cumulative prefix tokens (tools + system + blocks up
 * to it), in flat arrays reused from plan to plan (a plan is synchronous): no object per block
 * per call. {@link posAt} makes the few positions a plan keeps into objects.
 */
interface Positions {
  readonly n: number;
  readonly m: Int32Array;
  readonly b: Int32Array;
  readonly prefix: Float64Array;
}

let posBuffer = {
  m: new Int32Array(256),
  b: new Int32Array(256),
  prefix: new Float64Array(256),
  start: new Int32Array(64),
};
/** What the buffer holds: the messages array and key it was filled for, and the head tokens. */
let posFor: { readonly messages: Messages; readonly key: object; readonly head: number } | undefined;

function positions(body: RequestBody, opts: PlanOptions): Positions {
  const msgs = body.messages;
  let total = 0;
  for (const msg of msgs) total += typeof msg.content === 'string' ? 1 : msg.content.length;
  const head = opts.toolsTokens + opts.systemTokens;
  // Messages [0, k) are the very objects the buffer was filled for, with array content (a string's
  // block is made anew on every call, so its count is asked again): their positions stand.
  let k = 0;
  const last = posFor;
  if (last && opts.tokensKey !== undefined && last.key === opts.tokensKey && last.head === head) {
    const lim = Math.min(last.messages.length, msgs.length);
    while (k < lim && last.messages[k] === msgs[k] && typeof msgs[k].content !== 'string') k++;
  }
  if (posBuffer.m.length < total || posBuffer.start.length < msgs.length + 1) {
    const size = Math.max(total, posBuffer.m.length * 2);
    const starts = Math.max(msgs.length + 1, posBuffer.start.length * 2);
    posBuffer = {
      m: new Int32Array(size),
      b: new Int32Array(size),
      prefix: new Float64Array(size),
      start: new Int32Array(starts),
    };
    k = 0;
  }
  const { m: pm, b: pb, prefix: pp, start } = posBuffer;
  let g = k > 0 ? start[k] : 0;
  let prefix = g > 0 ? pp[g - 1] : head;
  for (let m = k; m < msgs.length; m++) {
    start[m] = g;
    const c = msgs[m].content;
    const count = typeof c === 'string' ? 1 : c.length;
    for (let b = 0; b < count; b++) {
      prefix += opts.tokensOf(m, b);
      pm[g] = m;
      pb[g] = b;
      pp[g] = prefix;
      g++;
    }
  }
  start[msgs.length] = g;
  posFor = opts.tokensKey === undefined ? undefined : { messages: msgs, key: opts.tokensKey, head };
  return { n: g, m: pm, b: pb, prefix: pp };
}

/** The block at flat position g. */
function blockAt(body: RequestBody, pos: Positions, g: number): ContentBlockParam {
  const c = body.messages[pos.m[g]].content;
  return typeof c === 'string' ? { type: 'text', text: c } : c[pos.b[g]];
}

function idAt(pos: Positions, g: number, opts: PlanOptions): string {
  const m = pos.m[g];
  const b = pos.b[g];
  return opts.blockIdAt?.(m, b) ?? `messages.${m}.content.${b}`;
}

function posAt(body: RequestBody, pos: Positions, g: number, opts: PlanOptions): Pos {
  return { m: pos.m[g], b: pos.b[g], g, prefix: pos.prefix[g], block: blockAt(body, pos, g), id: idAt(pos, g, opts) };
}

/** Index of the last non-blank system text block, or -1. */
function lastSystemBlock(system: RequestBody['system']): number {
  if (typeof system === 'string') return isBlank(system) ? -1 : 0;
  if (!system) return -1;
  for (let k = system.length - 1; k >= 0; k--) if (!isBlank(system[k].text)) return k;
  return -1;
}

/**
 * Plan at most {@link MAX_BREAKPOINTS} cache breakpoints and return the body with them set.
 *
 * Policy (strategy first, then guards):
 * 1. Start clean: every pre-existing cache_control (tools, system, messages, nested tool_result
 *    content, top-level automatic caching) is removed, so the count is ours.
 * 2. Prefix breakpoint: on the last non-empty system block (which covers tools + system), or on
 *    the last tool when there is no system text. Placed only if tools + system reach the model's
 *    minimum cacheable length. It survives any edit of the conversation.
 * 3. Tail breakpoint: on the last cacheable block of the conversation (the final message's, or
 *    the nearest earlier one when the final message has none). This writes the whole prefix for
 *    the next call.
 * 4. Read anchor: the latest of the recent calls' message breakpoints still present (matched by
 *    log block id) and before the first message that changed since the previous request
 *    (`firstChanged`: an edit invalidates every write after it) is where the cache was last written. If the tail is 20+
 * blocks past it, the
 *    API's 20-block lookback would miss it, so a breakpoint is kept exactly on it: this call reads
 *    everything up to it and writes the rest at the tail. Within 20 blocks no anchor is needed.
 *    Without `previous` nothing can be read, so no anchor is placed.
 *    Edit anchor: when a message of the previous request changed (an applied trim), a breakpoint on
 *    the last cacheable block before it writes the unchanged prefix there, a stepping stone for the
 *    next edit (without it, edits that move forward call by call leave no valid write behind them,
 *    and each one falls back to the last write before all of them). The read anchor is then judged
 *    against the edit anchor. System + read + edit + tail: never more than 4.
 * 5. Guards: never on thinking, redacted_thinking, empty text or unknown block types; never where
 *    the prefix is below the minimum (1,024 / 2,048 / 4,096 tokens per model). The fourth slot
 *    stays free on purpose; the count never exceeds 4.
 * All breakpoints use `ttl`, so the 1h-before-5m ordering rule cannot be broken. The input body is
 * not mutated: changed messages, blocks, tools and system are copies.
 */
export function planBreakpoints(input: RequestBody, opts: PlanOptions): Plan {
  const body = stripCacheControl(input);
  const min = opts.minTokens ?? minCacheableTokens(opts.model);
  const cc = cacheControl(opts.ttl);
  const breakpoints: Breakpoint[] = [];
  const headTokens = opts.toolsTokens + opts.systemTokens;

  const sys = lastSystemBlock(body.system);
  const tools = body.tools ?? [];
  if (headTokens >= min && (sys >= 0 || tools.length > 0)) {
    if (sys >= 0) {
      body.system =
        typeof body.system === 'string'
          ? [{ type: 'text', text: body.system, cache_control: cc }]
          : body.system!.map((s, k) => (k === sys ? withCacheControl(s, cc) : s));
      breakpoints.push({
        at: 'system',
        prefixTokens: headTokens,
        reason: 'tools + system prefix (survives conversation edits)',
      });
    } else {
      body.tools = tools.map((t, k) => (k === tools.length - 1 ? withCacheControl(t, cc) : t));
      breakpoints.push({ at: 'tools', prefixTokens: headTokens, reason: 'tools prefix (no system text)' });
    }
  }

  const pos = positions(body, opts);
  const at = (g: number): Pos => posAt(body, pos, g, opts);
  let tail: Pos | undefined;
  let heldBack = false;
  const holdFrom = opts.holdBackFrom;
  if (holdFrom !== undefined && holdFrom > 0 && holdFrom < body.messages.length) {
    for (let k = pos.n - 1; k >= 0 && !tail; k--)
      if (pos.m[k] < holdFrom && isCacheable(blockAt(body, pos, k))) tail = at(k);
    if (tail && tail.prefix >= min) heldBack = true;
    else tail = undefined;
  }
  for (let k = pos.n - 1; k >= 0 && !tail; k--) if (isCacheable(blockAt(body, pos, k))) tail = at(k);
  const anchors: { p: Pos; reason: string }[] = [];
  if (tail && tail.prefix >= min) {
    const prevIds = new Set((opts.previous ?? []).filter((p) => p.messageIndex !== undefined).map((p) => p.at));
    let written: Pos | undefined;
    const before = opts.firstChanged ?? Infinity;
    // The last position at or before the tail, before the first changed message, that a recent call wrote.
    if (prevIds.size > 0)
      for (let k = tail.g; k >= 0 && !written; k--)
        if (pos.m[k] < before && prevIds.has(idAt(pos, k, opts))) written = at(k);
    // An edit inside the previous request: a breakpoint just before it writes a stepping stone, so
    // the next edit further on rewrites from here, not from the last write before every earlier edit.
    let edge: Pos | undefined;
    if (before < body.messages.length) {
      for (let k = pos.n - 1; k >= 0 && !edge; k--)
        if (pos.m[k] < before && isCacheable(blockAt(body, pos, k))) edge = at(k);
      if (edge && (edge.prefix < min || edge.g >= tail.g || (written && edge.g <= written.g))) edge = undefined;
    }
    const readFrom = edge ?? tail;
    const gap = written ? readFrom.g - written.g : 0;
    if (written && gap >= BREAKPOINT_LOOKBACK_BLOCKS && isCacheable(written.block) && written.prefix >= min) {
      anchors.push({
        p: written,
        reason:
          `read anchor: previous write, ${gap} blocks before the ${edge ? 'edit' : 'tail'} (lookback is ` +
          `${BREAKPOINT_LOOKBACK_BLOCKS})`,
      });
    }
    if (edge)
      anchors.push({
        p: edge,
        reason: 'edit anchor: last block before the first edited message (the cached prefix ends here this call)',
      });
    anchors.push({
      p: tail,
      reason: heldBack
        ? 'tail: last cacheable block before the held messages (out of the write: a trim of them is due next call)'
        : 'tail: last cacheable block of the conversation',
    });
  }

  if (anchors.length > 0) {
    const messages = body.messages.slice();
    const copied = new Map<number, ContentBlockParam[]>();
    for (const { p, reason } of anchors) {
      if (breakpoints.length >= MAX_BREAKPOINTS) break;
      let content = copied.get(p.m);
      if (!content) {
        content = [...contentBlocks(messages[p.m].content)];
        copied.set(p.m, content);
        // A clone and an assignment (V8's spread-and-override is a slow path); same keys, same order.
        const copy = { ...messages[p.m] } as { content: unknown };
        copy.content = content;
        messages[p.m] = copy as Messages[number];
      }
      content[p.b] = withCacheControl(content[p.b], cc);
      breakpoints.push({ at: p.id, messageIndex: p.m, blockIndex: p.b, prefixTokens: p.prefix, reason });
    }
    body.messages = messages;
  }
  return { body, breakpoints, heldBack };
}
