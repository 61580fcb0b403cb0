/** Token accounting contract. Counts carry their quality so the UI never passes an estimate off as exact. */
import type { ContentBlockParam } from '../session/types';

export type TokenQuality = 'estimated' | 'calibrated' | 'exact';

export interface TokenCount {
  readonly tokens: number;
  readonly quality: TokenQuality;
  /**
   * Part of the count was estimated from characters on a latency path (always with
   * quality `estimated`); an exact count replaces it later, see `refinements()`.
   */
  readonly provisional?: boolean;
}

/** Kinds of content the calibration may learn separate ratios for. */
export type ContentClass = 'text' | 'tool_use' | 'tool_result' | 'thinking' | 'code' | 'other';

export interface TokenAccountant {
  /** Tokens of one block as the model will bill it (calibrated when usage has been seen). */
  block(param: ContentBlockParam): TokenCount;
  /** Tokens of free text (summaries, system prompt). */
  text(text: string, cls?: ContentClass): TokenCount;
  /** Raw js-tiktoken (cl100k_base) count, cached by content hash. */
  raw(text: string): number;
  /** Bumped whenever provisional counts were made exact: a holder of provisional counts should count again. */
  refinements?(): number;
}
