/** The shapes of the context engine's calls: its options, what one call needs, and the request it prepares. */
import type { BlockMap } from '../request/build';
import type { Breakpoint, CacheTtl, Repair, RequestBody } from '../api/wire';
import type { MessageParam } from '../session/types';
import type { TokenEstimator } from '../tokens';
import type { TokenQuality } from '../tokens/types';
import type { PipelineConfig } from '../trimming';
import type { ClientPrefix } from './client-prefix';

export interface EngineOptions {
  model?: string;
  maxTokens?: number;
  /** Strategy spec: `none`, `default` or a comma list. */
  strategy?: string;
  config?: PipelineConfig;
  ttl?: CacheTtl;
  estimator?: TokenEstimator;
  /** The client's system prompt and tools when the session does not hold them (a replayed transcript). */
  clientPrefix?: ClientPrefix;
}

export interface CallStats {
  callIndex: number;
  messages: number;
  blocks: number;
  /** Estimated tokens of the messages sent (excludes system and tools). */
  sentTokens: number;
  /** The same without any trimming. */
  untrimmedTokens: number;
  quality: TokenQuality;
  overlays: number;
  appliedThisCall: number;
  pending: number;
  pendingSavings: number;
  repairs: number;
  breakpoints: number;
}

export interface PreparedCall {
  body: RequestBody;
  breakpoints: Breakpoint[];
  repairs: readonly Repair[];
  blockMap: BlockMap;
  stats: CallStats;
  /** The messages before breakpoints were planned. */
  messages: readonly MessageParam[];
  /** First request message that differs from the previous prepared request (undefined on the first). */
  firstChanged?: number;
  /**
   * Log position from which messages were held out of the cache write (cache/hold-back.ts); undefined when none were.
   */
  heldFrom?: number;
}

export interface PrepareInput {
  callIndex: number;
  /** Messages [epochStart, upTo) form the request (default: all). */
  upTo?: number;
  epochStart?: number;
  /** Time of the call (ms), for the cache TTL. */
  now?: number;
  /**
   * The caller knows the cache is cold from a message position on for this call (e.g. the
   * proxied client changed its system prompt or tools: position 0), and why.
   */
  coldFrom?: { position: number; why: string };
}
