/** Contracts of the trimming pipeline: strategies propose overlays, the cache-aware applier decides. */
import type { NewOverlay } from '../session/overlay';
import type { Session } from '../session/session';
import type { TokenAccountant } from '../tokens/types';
import type { MessageIndex } from './message-index';

/** When a strategy runs: always, or only when the view is above a share of the context window. */
export type Trigger = { kind: 'always' } | { kind: 'above'; fraction: number };

export type DecisionAction = 'apply' | 'defer' | 'skip' | 'restore' | 'pin' | 'unpin' | 'trim' | 'repair';

/** One entry of the "why" log. */
export interface Decision {
  readonly seq: number;
  readonly callIndex: number;
  /** `strategy:<name>`, `cache-aware`, `user`, `agent`, `request-builder`. */
  readonly by: string;
  readonly action: DecisionAction;
  /** Block or message ids the decision is about. */
  readonly targets: readonly string[];
  readonly reason: string;
  readonly tokensSaved: number;
  readonly overlayIds?: readonly string[];
}

/** An overlay a strategy wants; the applier may apply it now, defer it, or drop it. */
export interface Proposal {
  readonly overlay: NewOverlay;
  /** Log position of the first message it changes (where the cached prefix would break). */
  readonly position: number;
  /** Estimated tokens saved per request once applied. */
  readonly saved: number;
  /** Must be applied now regardless of cache cost (e.g. the window is over a hard limit). */
  readonly urgent?: boolean;
  /** Id of an overlay this one supersedes (removed when this one is applied). */
  readonly replaces?: string;
  /** Called when the applier applies it (strategies advance their state then, not before). */
  readonly onApplied?: () => void;
}

export interface StrategyContext {
  readonly session: Session;
  readonly index: MessageIndex;
  readonly tokens: TokenAccountant;
  readonly callIndex: number;
  /** The request covers log messages [epochStart, upTo). */
  readonly epochStart: number;
  readonly upTo: number;
  readonly contextWindow: number;
  /** Estimated tokens the next request would send with what is applied so far (incremental). */
  viewTokens(): number;
  /** Estimated tokens of one message as currently sent. */
  messageTokens(pos: number): number;
  /** Whether a proposal is already pending for this target (strategies skip it). */
  isPending(targetId: string): boolean;
  propose(p: Proposal): void;
}

export interface Strategy {
  readonly name: string;
  readonly trigger: Trigger;
  /**
   * This strategy removes a turn's intermediate steps once the turn is closed (tool-pruning): a
   * saving on the current turn's content then lasts only for the rest of its loop.
   */
  readonly prunesClosedTurns?: boolean;
  /** Incremental: called once per model call; must only look at what is new since its last run. */
  run(ctx: StrategyContext): void;
  /**
   * What this strategy will propose on the request's last messages at the next call if the tool
   * loop goes on (one more round completes): the engine may then hold them out of this call's
   * cache write (cache/hold-back.ts). One entry per placement. Must not change any state.
   */
  foresee?(ctx: StrategyContext): Foresight[];
}

/** Trims due at the next call on the messages from `position` to the request's end, saving `saved` tokens. */
export interface Foresight {
  readonly position: number;
  readonly saved: number;
}

export interface StrategyOptionDoc {
  readonly name: string;
  readonly type: 'number' | 'string' | 'boolean' | 'string[]';
  readonly default: unknown;
  readonly description: string;
}

export interface StrategyDoc {
  readonly name: string;
  readonly summary: string;
  readonly options: readonly StrategyOptionDoc[];
}
