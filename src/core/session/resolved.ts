/** What the model sees of a logged message and its blocks once overlays apply (Session.resolveMessage). */
import type { Overlay, SummaryOverlay } from './overlay';
import type { ContentBlockParam, LogBlock, LogMessage } from './types';

export type BlockState = 'verbatim' | 'trimmed' | 'summarized' | 'pruned' | 'pinned';

export interface ResolvedBlock {
  readonly block: LogBlock;
  readonly state: BlockState;
  /** What the model sees of this block; undefined when the block is not sent. */
  readonly sent?: ContentBlockParam;
  /** The overlay that decided the state (the "why"). */
  readonly overlay?: Overlay;
}

export interface ResolvedMessage {
  readonly message: LogMessage;
  readonly position: number;
  readonly revision: number;
  readonly blocks: readonly ResolvedBlock[];
  /** Set on the first message of an active summary range: the summary is sent in its place. */
  readonly summaryStart?: SummaryOverlay;
}
