/** The bill model's types: blocks, messages and requests as the bill sees them, and what one step reports. */
import type { CacheUsage } from '../cache/simulator';

/**
 * A sent message as {@link SpanSink} sees it: its blocks as billed (thinking folded into the next block). One object
 * per unchanged message.
 */
export interface SpanParts {
  readonly folded: readonly { readonly block: BillBlock; readonly tokens: number }[];
}

/**
 * Told, once per step, the request's messages as billed and the token offset of the first
 * (after the system prompt): each block sits at the offset plus the tokens before it. An
 * unchanged message is the same {@link SpanParts} object from step to step, so a sink can
 * carry what it worked out for the messages it saw before.
 */
export type SpanSink = (parts: readonly SpanParts[], start: number) => void;

/** One block as the bill model sees it: a content identity, a size, whether it is thinking. */
export interface BillBlock {
  /** Content identity: equal ids are equal bytes (a log block id, plus a digest when a strategy replaced it). */
  readonly id: string;
  readonly tokens: number;
  readonly thinking: boolean;
  /** Log block id this stands for (offenders, strategies). */
  readonly logId?: string;
}

export interface BillMessage {
  readonly role: 'user' | 'assistant';
  readonly blocks: readonly BillBlock[];
  /** A user message holding more than tool results: a new human turn starts here. */
  readonly humanTurn: boolean;
  /** The client restarted or signed in again here: it rebuilt its system prompt (see {@link isClientRestart}). */
  readonly clientRestart?: boolean;
}

/** A write by a request the transcript does not hold: when, and the block its breakpoint was on. */
export interface TurnEndWrite {
  readonly at: number;
  /** The block's id (the last block of the last response when no block of the request has it). */
  readonly block: string;
}

export interface BillRequest {
  readonly now: number;
  /** Client invalidations so far that rewrote the session part of the system prompt (a new session block each). */
  readonly sessionEpoch?: number;
  /** When the entries the request read or wrote start their TTL again (default: `now`). */
  readonly refresh?: number;
  readonly messages: readonly BillMessage[];
  /** TTL of the message breakpoint. */
  readonly ttl: '5m' | '1h';
  /** TTL of the system-prompt breakpoints (default: `ttl`); Claude Code ≥ 2.1.29 writes them for 1 hour. */
  readonly systemTtl?: '5m' | '1h';
  /**
   * What the inferred system prompt was built from (the client version: Claude Code's first system block
   * carries `cc_version`): another key is other bytes from the first system block on.
   */
  readonly prefixKey?: string;
  /** Id of the block carrying the message breakpoint; default (or when absent): the last block. */
  readonly breakpointAt?: string;
  /**
   * Ids of blocks carrying further message breakpoints before it (the engine's read anchors, which the proxy sends
   * as placed): each is a write and a lookback start of its own.
   */
  readonly anchors?: readonly string[];
  /**
   * Client-side invalidations so far (see {@link clientInvalidations}): the
   * messages of epoch n are other bytes than those of epoch n−1 from their
   * first block on, so the cache restarts after the system prompt.
   */
  readonly epoch?: number;
  /**
   * Whether the client's other sessions had the shared prefix warm at this request (default: true when the
   * prefix is {@link InferredPrefix.sharedWarm}); false where the recording read less than it.
   */
  readonly othersWarm?: boolean;
  /**
   * When the previous turn ended (the end of its response), a request the transcript does not hold wrote the
   * cache up to a block of the history (fit.ts turnEndWritesOf); undefined: none.
   */
  readonly turnEndWrite?: TurnEndWrite;
  /** What the request sent of an earlier conversation the transcript does not hold, after the system prompt. */
  readonly earlier?: { readonly key: string; readonly tokens: number };
}

/** The part of every request the transcript does not hold, inferred from usage. */
export interface InferredPrefix {
  /** Tools and stable system blocks: the first call's cache read when it had one. */
  readonly shared: number;
  /** Kept warm by the client's other sessions (true when the first call read it from cache). */
  readonly sharedWarm: boolean;
  /** Project system block and injected reminders. */
  readonly session: number;
  /**
   * An earlier conversation the transcript does not hold, sent after the system prompt by the first call
   * (a transcript that starts mid-conversation; report/earlier-conversation.ts); per call in
   * {@link BillRequest.earlier}.
   */
  readonly earlier?: number;
  /** The first call read its earlier conversation from cache: warm from the calls before the transcript. */
  readonly warmAtStart?: boolean;
}

export interface BillStep {
  readonly usage: CacheUsage;
  /** Input-side cost, USD. */
  readonly cost: number;
  /** Of it, cache writes (5m and 1h), USD. */
  readonly writeCost: number;
  readonly totalInput: number;
  /** Tokens of the prefix read from cache at this call (for per-block pricing). */
  readonly readTokens: number;
  /** Tokens up to the end of the last write. */
  readonly writtenUpTo: number;
}
