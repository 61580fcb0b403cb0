/**
 * The request, usage and option shapes of the prompt-cache simulator (simulator.ts).
 */
export interface SimCacheControl {
  readonly type: string;
  readonly ttl?: string | null;
}
/** Any tool definition, system text block or message content block. */
export interface SimBlock {
  readonly type?: string | null;
  readonly cache_control?: SimCacheControl | null;
}
export interface SimMessage {
  readonly role: string;
  readonly content: string | readonly SimBlock[];
}
/** The parts of a Messages API request body that decide caching. */
export interface SimRequest {
  readonly model: string;
  readonly tools?: readonly SimBlock[] | null;
  readonly system?: string | readonly SimBlock[] | null;
  readonly messages: readonly SimMessage[];
  readonly cache_control?: SimCacheControl | null;
  readonly tool_choice?: unknown;
  readonly thinking?: unknown;
}

export type BlockLocation =
  | { readonly section: 'tools'; readonly index: number }
  | { readonly section: 'system'; readonly index: number }
  | { readonly section: 'messages'; readonly messageIndex: number; readonly blockIndex: number; readonly role: string };

/** Tokens of one block. String system/message content is passed as a `{type:'text', text}` block. */
export type TokensOf = (block: SimBlock, at: BlockLocation) => number;

export interface CacheUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

/** Why the last step came out as it did (for tests and the inspector). */
export interface CacheTrace {
  readonly totalTokens: number;
  readonly blockCount: number;
  /** Flat positions of the breakpoints, in prompt order. */
  readonly breakpoints: readonly number[];
  /** Flat position of the longest cache hit, or -1. */
  readonly readPosition: number;
  /** Flat positions written (or re-written) by this step. */
  readonly writePositions: readonly number[];
  /** Breakpoints whose prefix was below the model minimum (nothing cached there). */
  readonly belowMinimum: readonly number[];
}

export interface CacheSimulatorOptions {
  /** Minimum cacheable prefix in tokens, fixed or per model. Default: the model catalog's minCacheableTokens. */
  readonly minTokens?: number | ((model: string) => number);
  /** Whether the model drops earlier turns' thinking. Default: not keepsPriorThinking (measured per model). */
  readonly dropsEarlierThinking?: (model: string) => boolean;
  /**
   * Positions checked per breakpoint (default LOOKBACK_BLOCKS, simulator.ts); other values only for what-if
   * comparisons.
   */
  readonly lookbackBlocks?: number;
  /**
   * Skip re-hashing messages already simulated: a message whose content array is the same object as
   * at the same index of the previous step, after an unchanged prefix, keeps its positions. Only for
   * callers whose tokensOf is a pure function of the block object (sizes never change per object).
   */
  readonly reuseUnchangedMessages?: boolean;
}
