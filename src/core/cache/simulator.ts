/**
 * Prompt-cache simulator: replays the Messages API's caching rules over a
 * sequence of requests and reports the usage the API would report.
 *
 * Rules (docs/anthropic-api.md, "Prompt caching"):
 * - The prompt is one flat sequence of block positions: tools, then system
 *   blocks, then every message content block. A prefix is identified by its
 *   content (a chain hash of every block up to that position), so editing any
 *   block changes every later prefix.
 * - Breakpoints are blocks carrying `cache_control` plus, with top-level
 *   `cache_control` (automatic caching), the last cacheable block.
 * - Reads: each breakpoint looks for a live entry at its own position or at the
 *   positions before it, {@link LOOKBACK_BLOCKS} positions in all ("20+ blocks
 *   past the last write" needs a second breakpoint); the longest hit over all
 *   breakpoints is the cache read. A hit refreshes that entry's TTL.
 * - Writes happen only at breakpoints after the read point, and only when the
 *   prefix up to the breakpoint reaches the model's minimum cacheable length.
 * - Usage: `cache_read` = tokens up to the read point, `cache_creation` =
 *   tokens from there to the last written breakpoint, `input_tokens` = the rest.
 * - Thinking, on models that do not keep earlier turns' thinking (Sonnet 4.5,
 *   see models/behavior.ts): every thinking block before the last human prompt
 *   is dropped (not billed), and thinking blocks do not key the cache ("thinking
 *   blocks are removed for caching"): they are no position and no part of any
 *   prefix's identity; the ones still sent are billed with the next position. So
 *   a prefix cached inside a tool loop still matches when the next prompt drops
 *   the loop's thinking. Measured on the m-claude Sonnet 4.5 sessions: after
 *   tool loops of 5–26 calls with thinking, new prompts read everything up to
 *   the previous call's breakpoint (e.g. c76e5be5 calls 149, 174, 192, 232, 244;
 *   ff59cfd2 182); the few that did not read only the system prompt, which no
 *   thinking rule explains (src/core/report/fit.ts, client invalidations).
 *
 * Pure: no I/O, no clock (time is passed in). Blocks are hashed once per
 * object identity (blocks must not be mutated in place after being passed in),
 * so a long session of large requests costs O(new blocks) hashing per step.
 */
import { keepsPriorThinking, minCacheableTokens } from '../models';
import { chain, hashString } from './hash';
import { PrefixTable } from './prefix-table';
import { readAndWrite } from './sim-read-write';
import { BlockIdentities } from './sim-identity';
import { LOOKBACK_BLOCKS, thinkingDroppedBefore, thinkingDroppedIn, ttlMs } from '../api/cache-rules';
import {
  blockJson,
  isCacheable,
  isThinking,
  ROLE_TAG,
  TAG_FIRST_IN_MESSAGE,
  TAG_OTHER_ROLE,
  TAG_SYSTEM,
  TAG_TOOL,
} from './sim-blocks';
import { containsImage, imagesIn, unchangedPrefix, type HeadState, type MessageMemo } from './sim-memo';
import type {
  BlockLocation,
  CacheSimulatorOptions,
  CacheTrace,
  CacheUsage,
  SimBlock,
  SimRequest,
  TokensOf,
} from './sim-types';

export type {
  BlockLocation,
  CacheSimulatorOptions,
  CacheTrace,
  CacheUsage,
  SimBlock,
  SimCacheControl,
  SimMessage,
  SimRequest,
  TokensOf,
} from './sim-types';

export { hashString } from './hash';
export { LOOKBACK_BLOCKS, TTL_1H_MS, TTL_5M_MS, ttlMs } from '../api/cache-rules';

/** Expired entries are swept every this many steps so a long simulation keeps bounded memory. */
const SWEEP_EVERY_STEPS = 64;

/** The location passed to a {@link TokensOf} that declares no second parameter (it never reads it). */
const UNASKED_LOCATION: BlockLocation = Object.freeze({
  section: 'messages',
  messageIndex: -1,
  blockIndex: -1,
  role: '',
});

export class CacheSimulator {
  /** Cache entries by the 64-bit chain hash of their prefix. */
  private readonly entries = new PrefixTable();
  /** Block, model and boundary hashes, memoized per object. */
  private readonly ids = new BlockIdentities();
  private readonly minTokens: (model: string) => number;
  private readonly dropsThinking: (model: string) => boolean;
  private readonly lookback: number;
  private steps = 0;
  // Per-step scratch, grown as needed and reused across steps.
  private chainA = new Uint32Array(1024);
  private chainB = new Uint32Array(1024);
  private cum = new Float64Array(1024);
  private last: CacheTrace | undefined;
  private readonly reuse: boolean;
  private prevHead: HeadState | undefined;
  private prevMessages: MessageMemo[] = [];
  private prevBreakpoints: number[] = [];
  private prevBpTtl: number[] = [];

  constructor(opts: CacheSimulatorOptions = {}) {
    const m = opts.minTokens;
    this.minTokens = typeof m === 'number' ? () => m : (m ?? minCacheableTokens);
    this.dropsThinking = opts.dropsEarlierThinking ?? ((model) => !keepsPriorThinking(model));
    this.lookback = opts.lookbackBlocks ?? LOOKBACK_BLOCKS;
    this.reuse = opts.reuseUnchangedMessages === true;
  }

  /** The trace of the most recent {@link step}. */
  get lastTrace(): CacheTrace | undefined {
    return this.last;
  }

  /** Live (unexpired at `nowMs`) entries, for tests and diagnostics. */
  liveEntries(nowMs: number): number {
    return this.entries.live(nowMs);
  }

  /**
   * The client changed something in its messages that the requests given here do not show
   * (a recording that read nothing past the system prompt while these rules keep the
   * messages cached, see src/core/report/fit.ts): from the next step on, message prefixes
   * are new ones; tools and system stay cached.
   */
  invalidateMessages(): void {
    this.ids.newMessageEpoch();
  }

  clear(): void {
    this.entries.clear();
    this.last = undefined;
    this.prevHead = undefined;
    this.prevMessages = [];
  }

  /**
   * Simulate one request at time `nowMs`; updates the cache and returns the usage the API would report.
   * The entries it reads or writes live from `refreshMs` on (default `nowMs`; a recorded session passes the
   * end of the response: the data show the TTL counted from there, see report/fit.ts `callTimings`).
   */
  step(body: SimRequest, tokensOf: TokensOf, nowMs: number, refreshMs = nowMs): CacheUsage {
    const breakpoints: number[] = [];
    const bpTtl: number[] = [];
    let n = 0;
    let a = 0;
    let b = 0;
    let total = 0;
    let lastCacheable = -1;
    let lastCacheableHasCc = false;
    /** Tokens of thinking blocks waiting for the next position (see the file comment). */
    let carried = 0;
    [a, b] = this.ids.model(body.model);

    const push = (block: SimBlock, at: BlockLocation, tag: number, hash: [number, number]): void => {
      [a, b] = chain(a, b, hash[0], hash[1], tag);
      this.ensure(n + 1);
      this.chainA[n] = a;
      this.chainB[n] = b;
      total += tokensOf(block, at) + carried;
      carried = 0;
      this.cum[n] = total;
      if (isCacheable(block)) {
        lastCacheable = n;
        lastCacheableHasCc = block.cache_control != null;
        if (block.cache_control != null) {
          breakpoints.push(n);
          bpTtl.push(ttlMs(block.cache_control));
        }
      }
      n++;
    };

    // A tokensOf that does not take the location (one parameter) is not given one: no object per block per step.
    const wantsAt = tokensOf.length > 1;
    const tools = body.tools ?? [];
    for (let index = 0; index < tools.length; index++)
      push(tools[index], wantsAt ? { section: 'tools', index } : UNASKED_LOCATION, TAG_TOOL, this.ids.of(tools[index]));
    const system = body.system;
    if (typeof system === 'string') {
      if (system.length > 0) {
        const block: SimBlock = { type: 'text', text: system } as SimBlock;
        push(block, { section: 'system', index: 0 }, TAG_SYSTEM, hashString(blockJson(block)));
      }
    } else if (system) {
      for (let index = 0; index < system.length; index++)
        push(
          system[index],
          wantsAt ? { section: 'system', index } : UNASKED_LOCATION,
          TAG_SYSTEM,
          this.ids.of(system[index]),
        );
    }

    const unkeyedThinking = this.dropsThinking(body.model);
    const msgs = body.messages;
    const lastHuman = thinkingDroppedBefore(msgs, unkeyedThinking);
    // Messages unchanged since the last step keep their positions (reuseUnchangedMessages): same head, same content
    // arrays.
    const reusable = this.reuse && !wantsAt;
    const prev = this.prevMessages;
    let from = reusable ? unchangedPrefix(prev, msgs, lastHuman) : 0;
    const images = imagesIn(prev, msgs, from);

    // tool_choice, thinking settings and the presence of images invalidate the message cache only
    // (and so does a change the request does not show, see invalidateMessages).
    const boundary = this.ids.boundary(body.tool_choice ?? null, body.thinking ?? null, images);
    [a, b] = chain(a, b, boundary[0], boundary[1], 0);

    const head: HeadState | undefined = reusable ? { a, b, n, total, tokensOf } : undefined;
    const ph = this.prevHead;
    let memos: MessageMemo[] = [];
    if (!(head && ph && ph.a === a && ph.b === b && ph.n === n && ph.total === total && ph.tokensOf === tokensOf))
      from = 0;
    if (from > 0) {
      const p = prev[from - 1];
      ({ n, a, b, total, carried, lastCacheable, lastCacheableHasCc } = p);
      for (let i = 0; i < p.breakpoints; i++) {
        breakpoints.push(this.prevBreakpoints[i]);
        bpTtl.push(this.prevBpTtl[i]);
      }
      // The previous step's memos up to `from` stay as they are: truncate in place (no per-step copy of the history).
      prev.length = from;
      memos = prev;
    }
    for (let messageIndex = from; messageIndex < msgs.length; messageIndex++) {
      const msg = msgs[messageIndex];
      const blocks = this.ids.blocksOf(msg);
      const roleTag = ROLE_TAG[msg.role] ?? TAG_OTHER_ROLE;
      const dropThinking = thinkingDroppedIn(msg.role, messageIndex, lastHuman);
      let first = true;
      blocks.forEach((blk, blockIndex) => {
        if (unkeyedThinking && isThinking(blk)) {
          // Not a position, not part of the prefix's identity; billed with the next position when still sent.
          if (!dropThinking)
            carried += tokensOf(blk, { section: 'messages', messageIndex, blockIndex, role: msg.role });
          return;
        }
        const tag = roleTag + (first ? TAG_FIRST_IN_MESSAGE : 0);
        first = false;
        push(
          blk,
          wantsAt ? { section: 'messages', messageIndex, blockIndex, role: msg.role } : UNASKED_LOCATION,
          tag,
          this.ids.of(blk),
        );
      });
      if (head) {
        const content = typeof msg.content === 'string' ? undefined : msg.content;
        const withImages = (memos.length > 0 && memos[memos.length - 1].images) || containsImage(msg);
        memos.push({
          content,
          role: msg.role,
          drop: dropThinking,
          images: withImages,
          n,
          a,
          b,
          total,
          carried,
          breakpoints: breakpoints.length,
          lastCacheable,
          lastCacheableHasCc,
        });
      }
    }
    if (head && msgs.length) {
      this.prevHead = head;
      this.prevMessages = memos;
      this.prevBreakpoints = breakpoints.slice();
      this.prevBpTtl = bpTtl.slice();
    }
    // Thinking after the last position (a thinking-only final message): billed, never cached.
    total += carried;

    if (body.cache_control != null && lastCacheable >= 0 && !lastCacheableHasCc) {
      breakpoints.push(lastCacheable);
      bpTtl.push(ttlMs(body.cache_control));
    }

    return this.resolve(body.model, n, total, breakpoints, bpTtl, nowMs, refreshMs);
  }

  /** System blocks alone (another session reads a shared prefix): as {@link step}, without the messages' machinery. */
  stepSystem(
    model: string,
    system: readonly SimBlock[],
    tokensOf: TokensOf,
    nowMs: number,
    refreshMs = nowMs,
  ): CacheUsage {
    const breakpoints: number[] = [];
    const bpTtl: number[] = [];
    let [a, b] = this.ids.model(model);
    let total = 0;
    this.ensure(system.length);
    for (let n = 0; n < system.length; n++) {
      const blk = system[n];
      const h = this.ids.of(blk);
      [a, b] = chain(a, b, h[0], h[1], TAG_SYSTEM);
      this.chainA[n] = a;
      this.chainB[n] = b;
      this.cum[n] = total += tokensOf(blk, UNASKED_LOCATION);
      if (!isCacheable(blk) || blk.cache_control == null) continue;
      breakpoints.push(n);
      bpTtl.push(ttlMs(blk.cache_control));
    }
    return this.resolve(model, system.length, total, breakpoints, bpTtl, nowMs, refreshMs);
  }

  private resolve(
    model: string,
    n: number,
    total: number,
    breakpoints: number[],
    bpTtl: number[],
    nowMs: number,
    refreshMs: number,
  ): CacheUsage {
    const positions = { chainA: this.chainA, chainB: this.chainB, cum: this.cum };
    const rules = { lookback: this.lookback, minTokens: this.minTokens(model) };
    const { usage, trace } = readAndWrite(
      this.entries,
      positions,
      rules,
      { n, total, breakpoints, bpTtl },
      nowMs,
      refreshMs,
    );
    this.steps++;
    if (this.steps % SWEEP_EVERY_STEPS === 0) this.entries.sweep(nowMs);
    this.last = trace;
    return usage;
  }

  /**
   * `copy` is `original` with only its own cache_control changed (a breakpoint moved onto it):
   * the same content identity, so the same hash, without serializing the copy.
   */
  shareIdentity(copy: SimBlock, original: SimBlock): void {
    this.ids.share(copy, original);
  }

  private ensure(size: number): void {
    if (size <= this.chainA.length) return;
    const cap = Math.max(size, this.chainA.length * 2);
    const chainA = new Uint32Array(cap);
    const chainB = new Uint32Array(cap);
    const cum = new Float64Array(cap);
    chainA.set(this.chainA);
    chainB.set(this.chainB);
    cum.set(this.cum);
    this.chainA = chainA;
    this.chainB = chainB;
    this.cum = cum;
  }
}
