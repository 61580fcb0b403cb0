/**
 * An independent prompt-cache simulator for the benchmarks, written from
 * docs/anthropic-api.md ("Prompt caching", "Models and prices") and
 * nothing else in this repository: it shares no code with src/core/cache.
 * Its job is to check the engine's simulator (bench "Cross-check" section).
 *
 * The rules, as the reference states them:
 * - The prompt is tools → system → messages, one position per tool definition,
 *   system block and message content block (string content = one text block).
 * - A breakpoint is a block with `cache_control`; a top-level `cache_control`
 *   puts one on the last cacheable block (and counts). Thinking blocks and empty
 *   text cannot carry one.
 * - Writes happen only at breakpoints, and only when the prefix up to the
 *   breakpoint reaches the model's minimum (below it nothing is cached, no error).
 * - A read: from each breakpoint the API looks back at most 20 block positions
 *   for an earlier written prefix ("20+ blocks past the last write" needs a second
 *   breakpoint, so positions p, p−1 … p−19). The longest prefix found is read.
 * - TTL counts from the last use; every hit refreshes it for free.
 * - Changing tool_choice or images invalidates the messages (not tools/system).
 * - Price on base input: uncached 1×, 5-minute write 1.25×, 1-hour write 2×, read 0.1×.
 *
 * One rule that is not in the reference text, measured on the m-claude
 * transcripts (test/bench/tokens.ts; src/core/models/behavior.ts):
 * models that do not keep earlier turns' thinking (Sonnet 4.5) drop every
 * thinking block before the last human turn (not billed), and thinking blocks
 * are removed for caching: they are not positions and not part of any prefix's
 * key, so a prefix cached inside a tool loop still matches when the next human
 * prompt drops the loop's thinking. The recorded usage shows it on most new
 * prompts after long loops with thinking (c76e5be5 calls 149, 174, 192, 232, 244,
 * ff59cfd2 182 read up to the previous call's breakpoint). An earlier version
 * read c76e5be5 call 6 and ff59cfd2 call 8 (task notifications that read only
 * up to the message before the loop) the other way; most new prompts disagree.
 *
 * Implementation: prefixes are nodes of a trie keyed by block content (without
 * its cache_control); a node holds the expiry of the cache entry written there.
 */

/** Reference: "looks back at most 20 block positions from each breakpoint". */
export const REF_LOOKBACK_POSITIONS = 20;
/** Reference: default TTL 5 minutes, `ttl: "1h"` one hour, both counted from the last use. */
export const REF_TTL_5M_MS = 5 * 60 * 1000;
export const REF_TTL_1H_MS = 60 * 60 * 1000;
/** Reference price multipliers on base input. */
export const REF_WRITE_5M = 1.25;
export const REF_WRITE_1H = 2;
export const REF_READ = 0.1;

/**
 * Reference "Models and prices": base input, USD per million tokens. Opus 4.5 is not in the table: $5 as its successors
 * (public list price).
 */
const INPUT_PRICE: readonly (readonly [RegExp, number])[] = [
  [/sonnet-5/, 2],
  [/sonnet-4/, 3],
  [/opus-(5|4-[5-9])/, 5],
  [/haiku-4-5/, 1],
];
/** Reference "Prompt caching": minimum cacheable prefix per model. */
const MIN_PREFIX: readonly (readonly [RegExp, number])[] = [
  [/opus-4-7|haiku-3-5|3-5-haiku/, 2048],
  [/opus-4-[56]|haiku-4-5/, 4096],
  [/sonnet-4|opus-4-[01]|opus-4(?!-)/, 1024],
];
/** Unlisted models: the most common floor. */
const DEFAULT_MIN_PREFIX = 1024;

export function refInputPrice(model: string): number {
  for (const [re, usd] of INPUT_PRICE) if (re.test(model)) return usd;
  throw new Error(`reference-cache-sim: no price for ${model}`);
}

export function refMinPrefix(model: string): number {
  for (const [re, min] of MIN_PREFIX) if (re.test(model)) return min;
  return DEFAULT_MIN_PREFIX;
}

/**
 * Measured (see the file comment): Sonnet 4.5 drops earlier turns' thinking, Opus 4.5 keeps it.
 * Older 4.x models are assumed to drop it like Sonnet 4.5; newer ones to keep it like Opus 4.5.
 */
export function refDropsEarlierThinking(model: string): boolean {
  return /sonnet-4-[0-5]|opus-4-[0-4]|haiku-4-5|claude-(sonnet|opus)-4-\d{8}/.test(model);
}

type Json = null | boolean | number | string | readonly Json[] | { readonly [k: string]: Json };
type Obj = { readonly [k: string]: Json };
/** The parts of a request body this simulator reads (a plain JSON object). */
export interface RefRequest {
  readonly model: string;
  readonly tools?: readonly Obj[];
  readonly system?: string | readonly Obj[];
  readonly messages: readonly { readonly role: string; readonly content: string | readonly Obj[] }[];
  readonly cache_control?: Obj;
  readonly tool_choice?: Json;
}

export interface RefUsage {
  /** Tokens billed as plain input (after the last written breakpoint, or everything when nothing is cached). */
  uncached: number;
  write5m: number;
  write1h: number;
  read: number;
  /** Tokens the API bills for this request (dropped thinking excluded). */
  total: number;
  /** USD, input side. */
  cost: number;
  /** Positions in the billed prompt, the read position (-1: none) and the written ones. */
  positions: number;
  readAt: number;
  writtenAt: number[];
}

export interface RefOptions {
  /** Tokens of one block as billed (tool definition, system block or message block). */
  readonly tokensOf: (block: Obj) => number;
  /** Price every call as this model (the skeptic's "Sonnet prices"); default: the request's model. */
  readonly priceAs?: string;
  /** Override of the thinking rule (ablation). */
  readonly dropsEarlierThinking?: (model: string) => boolean;
  /** Override of the lookback (ablation). */
  readonly lookback?: number;
}

interface Node {
  readonly children: Map<string, Node>;
  /** Expiry of the cache entry written at this prefix; 0 = never written. */
  expires: number;
  ttl: number;
}

const newNode = (): Node => ({ children: new Map(), expires: 0, ttl: 0 });

interface Position {
  readonly node: Node;
  readonly block: Obj;
  readonly tokensThrough: number;
  readonly breakpointTtl?: number;
}

/** Identity of a block: its exact JSON (key order matters to the API) with every `cache_control` removed. */
function identity(block: Obj): string {
  return JSON.stringify(block, (k, v: unknown) => (k === 'cache_control' ? undefined : v));
}

function canHoldBreakpoint(block: Obj): boolean {
  if (block.type === 'thinking' || block.type === 'redacted_thinking') return false;
  if (block.type === 'text') return typeof block.text === 'string' && block.text.length > 0;
  return true;
}

function ttlOf(cc: Json | undefined): number {
  return cc !== null && typeof cc === 'object' && !Array.isArray(cc) && (cc as Obj).ttl === '1h'
    ? REF_TTL_1H_MS
    : REF_TTL_5M_MS;
}

/** A user message that is not only tool results starts a human turn. */
function isHumanPrompt(m: RefRequest['messages'][number]): boolean {
  return m.role === 'user' && (typeof m.content === 'string' || m.content.some((b) => b.type !== 'tool_result'));
}

export class ReferenceCache {
  private readonly root = newNode();
  private readonly ids = new WeakMap<object, number>();
  private readonly interned = new Map<string, number>();

  /** Changes of the client's messages that the requests do not show (invalidateMessages). */
  private messageEpoch = 0;

  /** The client changed its messages in a way the requests do not show: message prefixes start anew. */
  invalidateMessages(): void {
    this.messageEpoch++;
  }

  constructor(private readonly o: RefOptions) {}

  /** One request sent at `atMs`: what the API would bill, and the cache after it. */
  call(body: RefRequest, atMs: number): RefUsage {
    const { positions, total } = this.flatten(body);
    const read = this.lookup(positions, atMs);
    const min = refMinPrefix(body.model);
    let from = read >= 0 ? positions[read].tokensThrough : 0;
    let write5m = 0;
    let write1h = 0;
    const writtenAt: number[] = [];
    positions.forEach((p, i) => {
      if (p.breakpointTtl === undefined || i <= read || p.tokensThrough < min) return;
      const keep = p.node.expires > atMs ? Math.max(p.node.ttl, p.breakpointTtl) : p.breakpointTtl;
      p.node.ttl = keep;
      p.node.expires = atMs + keep;
      if (p.breakpointTtl === REF_TTL_1H_MS) write1h += p.tokensThrough - from;
      else write5m += p.tokensThrough - from;
      from = p.tokensThrough;
      writtenAt.push(i);
    });
    const readTokens = read >= 0 ? positions[read].tokensThrough : 0;
    const uncached = total - readTokens - write5m - write1h;
    const price = refInputPrice(this.o.priceAs ?? body.model) / 1e6;
    const cost = price * (uncached + REF_WRITE_5M * write5m + REF_WRITE_1H * write1h + REF_READ * readTokens);
    return {
      uncached,
      write5m,
      write1h,
      read: readTokens,
      total,
      cost,
      positions: positions.length,
      readAt: read,
      writtenAt,
    };
  }

  /** Longest live prefix reachable from any breakpoint; refreshes every entry it hits. */
  private lookup(positions: readonly Position[], atMs: number): number {
    const lookback = this.o.lookback ?? REF_LOOKBACK_POSITIONS;
    let best = -1;
    positions.forEach((p, i) => {
      if (p.breakpointTtl === undefined) return;
      for (let k = i; k > i - lookback && k >= 0; k--) {
        const node = positions[k].node;
        if (node.expires > atMs) {
          node.expires = atMs + node.ttl;
          best = Math.max(best, k);
          return;
        }
      }
    });
    return best;
  }

  /**
   * The billed prompt as trie positions with cumulative tokens and breakpoints, and its
   * billed total (thinking after the last position, a thinking-only final message, is
   * billed but never cached).
   */
  private flatten(body: RefRequest): { positions: Position[]; total: number } {
    const out: Position[] = [];
    let node = this.root;
    let tokens = 0;
    const add = (block: Obj, tag: string): void => {
      node = this.child(node, `${tag}|${this.id(block)}`);
      tokens += this.o.tokensOf(block);
      const breakpointTtl =
        block.cache_control != null && canHoldBreakpoint(block) ? ttlOf(block.cache_control) : undefined;
      out.push({ node, block, tokensThrough: tokens, breakpointTtl });
    };
    for (const t of body.tools ?? []) add(t, 'tool');
    const system =
      typeof body.system === 'string'
        ? body.system
          ? [{ type: 'text', text: body.system }]
          : []
        : (body.system ?? []);
    for (const s of system) add(s, 'system');
    // tool_choice and the presence of images are part of the messages' identity.
    const hasImage = body.messages.some(
      (m) => typeof m.content !== 'string' && m.content.some((b) => b.type === 'image'),
    );
    node = this.child(node, `messages|${JSON.stringify(body.tool_choice ?? null)}|${hasImage}|${this.messageEpoch}`);
    let lastHuman = -1;
    const drops = (this.o.dropsEarlierThinking ?? refDropsEarlierThinking)(body.model);
    if (drops)
      body.messages.forEach((m, i) => {
        if (isHumanPrompt(m)) lastHuman = i;
      });
    body.messages.forEach((m, i) => {
      const blocks = typeof m.content === 'string' ? (m.content ? [{ type: 'text', text: m.content }] : []) : m.content;
      let first = true;
      for (const b of blocks) {
        if (drops && (b.type === 'thinking' || b.type === 'redacted_thinking')) {
          // Removed for caching: no position, no part of the key; billed (with what follows) unless dropped.
          if (!(i < lastHuman && m.role === 'assistant')) tokens += this.o.tokensOf(b);
          continue;
        }
        add(b, `${m.role}${first ? '^' : ''}`);
        first = false;
      }
    });
    // Automatic caching: a breakpoint on the last cacheable block, unless it already has one.
    if (body.cache_control != null) {
      for (let k = out.length - 1; k >= 0; k--) {
        if (!canHoldBreakpoint(out[k].block)) continue;
        if (out[k].breakpointTtl === undefined) out[k] = { ...out[k], breakpointTtl: ttlOf(body.cache_control) };
        break;
      }
    }
    return { positions: out, total: tokens };
  }

  /** A short key per distinct block content (blocks are memoized by object: they must not be mutated). */
  private id(block: Obj): number {
    let n = this.ids.get(block);
    if (n === undefined) {
      const text = identity(block);
      n = this.interned.get(text);
      if (n === undefined) this.interned.set(text, (n = this.interned.size));
      this.ids.set(block, n);
    }
    return n;
  }

  private child(node: Node, key: string): Node {
    let c = node.children.get(key);
    if (!c) node.children.set(key, (c = newNode()));
    return c;
  }
}
