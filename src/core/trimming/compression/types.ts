/** Types of LLM history compression (strategy.ts) and small helpers shared by its files. */
import type { Session } from '../../session/session';
import type { CallUsage } from '../../session/types';
import type { CompressionKind } from './options';
import type { Segment } from './range';
import type { SummaryRequest } from './summarizer';
import type { MessageIndex } from '../message-index';

export interface PlanInput {
  readonly session: Session;
  readonly index: MessageIndex;
  readonly epochStart: number;
  readonly upTo: number;
  readonly callIndex: number;
  /** Model asked for (a summarizer may substitute its own, cheaper one). */
  readonly model: string;
  /** Compact Now: no minimum size, partial chunks included, ranges the user restored may be compressed again. */
  readonly onDemand: boolean;
  readonly isPending?: (id: string) => boolean;
}

export interface PlannedSummary extends Segment {
  readonly fromMessageId: string;
  readonly toMessageId: string;
  /** Visible messages replaced (carried memory not counted). */
  readonly messages: number;
  /** Tokens of the range that are not an earlier compression (what is new to summarize). */
  readonly newTokens: number;
  /** Texts carried verbatim (preserveMemory), oldest first. */
  readonly memory: readonly string[];
  /** Compression overlays this one supersedes (removed when it is applied). */
  readonly replaces: readonly string[];
  /** First position the summarizer reads (last-n-messages reads only the tail), and how many messages it reads. */
  readonly inputFrom: number;
  readonly inputMessages: number;
  readonly request: SummaryRequest;
}

export interface CompressionPlan {
  readonly strategy: CompressionKind;
  readonly callIndex: number;
  readonly summaries: readonly PlannedSummary[];
}

export interface PreparedSummary {
  readonly planned: PlannedSummary;
  /** The overlay text (memory + header + summary or facts). */
  readonly text: string;
  readonly model: string;
}

export interface PreparedCompression {
  readonly plan: CompressionPlan;
  readonly summaries: readonly PreparedSummary[];
  readonly usage: CallUsage;
}

export type CompressionStatus =
  'ready' | 'below-threshold' | 'nothing-to-compress' | 'no-summarizer' | 'cooling-down' | 'failed' | 'empty';

export interface CompressionOutcome {
  readonly strategy: CompressionKind;
  readonly status: CompressionStatus;
  readonly error?: string;
  readonly usage?: CallUsage;
}

export interface AsyncPrepareInput {
  readonly session: Session;
  readonly index: MessageIndex;
  readonly contextWindow: number;
  readonly model: string;
  readonly callIndex: number;
  readonly epochStart?: number;
  readonly upTo?: number;
  readonly signal?: AbortSignal;
  /** Whether the pipeline's applier still holds a proposal for this target (a deferred compression is not redone). */
  readonly isPending?: (id: string) => boolean;
}

export interface Job {
  readonly promise: Promise<void>;
  readonly controller: AbortController;
}

export const ZERO_USAGE: CallUsage = {
  input_tokens: 0,
  output_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
};

export function addUsage(a: CallUsage, b: CallUsage): CallUsage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_creation_input_tokens: (a.cache_creation_input_tokens ?? 0) + (b.cache_creation_input_tokens ?? 0),
    cache_read_input_tokens: (a.cache_read_input_tokens ?? 0) + (b.cache_read_input_tokens ?? 0),
  };
}

export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new Error('aborted');
}

/** Wait for `p`, or throw as soon as `signal` aborts. */
export function untilDone(p: Promise<void>, signal?: AbortSignal): Promise<void> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
