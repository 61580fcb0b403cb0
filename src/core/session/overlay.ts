/**
 * Overlays: every change to what the model sees is one of these typed records
 * laid over the immutable log. Removing an overlay (restore) brings back the
 * original bytes, because the log was never touched.
 */

/** Who made a decision: a strategy (`strategy:<name>`), the user, or the agent (trim_tool_result). */
export type Author = 'user' | 'agent' | `strategy:${string}`;

interface OverlayCommon {
  readonly id: string;
  readonly author: Author;
  /** Human-readable "why", shown in the inspector and the CLI. */
  readonly reason: string;
  /** The model call index at which the overlay was created. */
  readonly callIndex: number;
  /** Estimated tokens of the covered content before and after the overlay. */
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly createdAt?: string;
}

/** Keep a block verbatim: wins over every strategy and over the agent. */
export interface PinOverlay extends OverlayCommon {
  readonly kind: 'pin';
  readonly blockId: string;
}

/** Replace a block's content (tool_result content or text) with `text`. */
export interface TrimOverlay extends OverlayCommon {
  readonly kind: 'trim';
  readonly blockId: string;
  readonly text: string;
}

/** Replace the messages fromSeq..toSeq (inclusive, by log position) with one summary. */
export interface SummaryOverlay extends OverlayCommon {
  readonly kind: 'summary';
  readonly fromMessageId: string;
  readonly toMessageId: string;
  readonly text: string;
}

/** Hide a block, or a whole message when blockId is absent. */
export interface PruneOverlay extends OverlayCommon {
  readonly kind: 'prune';
  readonly messageId: string;
  readonly blockId?: string;
}

export type Overlay = PinOverlay | TrimOverlay | SummaryOverlay | PruneOverlay;
export type OverlayKind = Overlay['kind'];

/** Distributive Omit, so callers can create any overlay without its id. */
export type NewOverlay = Overlay extends infer O
  ? O extends Overlay
    ? Omit<O, 'id'> & { id?: string }
    : never
  : never;

export function isStrategyAuthor(a: Author): a is `strategy:${string}` {
  return a.startsWith('strategy:');
}

/** Ranking used when several overlays compete for one block: higher wins. */
export function authorRank(a: Author): number {
  if (a === 'user') return 3;
  if (a === 'agent') return 2;
  return 1;
}
