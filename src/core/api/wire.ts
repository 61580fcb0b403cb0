/** Contract of the request builder, validator and cache planner. */
import type Anthropic from '@anthropic-ai/sdk';

export type RequestBody = Anthropic.MessageCreateParamsNonStreaming;

/** One rule violation, worded like the API's own 400 message where one exists. */
export interface Violation {
  readonly rule: string;
  readonly message: string;
  /** messages.N (and content.M) the violation is about. */
  readonly messageIndex?: number;
  readonly blockIndex?: number;
}

/** A repair the builder made so the request is valid; shown in the decision log. */
export interface Repair {
  readonly rule: string;
  readonly description: string;
  /** Log block ids that were dropped or changed. */
  readonly blockIds: readonly string[];
}

export type CacheTtl = '5m' | '1h';

export interface Breakpoint {
  /** Where it sits: 'tools' | 'system' | a log block id. */
  readonly at: string;
  /** messages.N / content.M in the request (absent for tools/system). */
  readonly messageIndex?: number;
  readonly blockIndex?: number;
  /** Estimated tokens of the prefix up to and including this breakpoint. */
  readonly prefixTokens: number;
  readonly reason: string;
}
