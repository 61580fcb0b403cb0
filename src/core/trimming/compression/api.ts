/**
 * How the host drives LLM history compression.
 *
 * Agent loop (once, after creating the engine):
 *   const summarizer = new SdkSummarizer(client, { model: cheaperModel, onUsage });
 *   attachSummarizer(engine.pipeline, summarizer, { model: engine.model, decisions: engine.decisions });
 * then before every `engine.prepare(...)`:
 *   await prepareCompression(engine.session, engine, { callIndex, signal });
 *
 * "Compact Now" command:
 *   const r = await compactNow(engine.session, engine, undefined, signal, { summarizer });
 *   // r.applied: the new summary overlays; r.skipped: why nothing happened
 *
 * A ContextEngine is a CompressionHost as it is (index, tokens, contextWindow, model,
 * decisions, pipeline).
 */
import type { SummaryOverlay } from '../../session/overlay';
import type { Session } from '../../session/session';
import type { CallUsage } from '../../session/types';
import type { TokenAccountant } from '../../tokens/types';
import { CompressionStrategy } from './strategy';
import type { CompressionOutcome } from './types';
import { compressionDefaults, type CompressionKind } from './options';
import type { Summarizer } from './summarizer';
import type { DecisionLog } from '../decisions';
import type { MessageIndex } from '../message-index';
import type { Strategy } from '../types';

export interface CompressionHost {
  readonly index: MessageIndex;
  readonly tokens: TokenAccountant;
  readonly contextWindow: number;
  /** The agent's model (asked for when the summarizer has no model of its own). */
  readonly model: string;
  readonly decisions?: DecisionLog;
  /** A Pipeline fits: its strategies, and its applier's pending proposals. */
  readonly pipeline?: {
    readonly strategies: readonly Strategy[];
    readonly applier?: { isPending(id: string): boolean };
  };
}

/** The compression strategies of a pipeline, in order. */
export function compressionStrategies(
  pipeline: { readonly strategies: readonly Strategy[] } | undefined,
): CompressionStrategy[] {
  return (pipeline?.strategies ?? []).filter((s): s is CompressionStrategy => s instanceof CompressionStrategy);
}

/** Give every compression strategy of the pipeline its model client; returns how many there are. */
export function attachSummarizer(
  pipeline: { readonly strategies: readonly Strategy[] },
  summarizer: Summarizer,
  opts: { model?: string; decisions?: DecisionLog } = {},
): number {
  const list = compressionStrategies(pipeline);
  for (const s of list) s.attach(summarizer, opts);
  return list.length;
}

export interface PrepareCompressionOptions {
  /** Attached to the pipeline's compression strategies first (else the one attached before is used). */
  readonly summarizer?: Summarizer;
  readonly signal?: AbortSignal;
  /** The index of the model call about to be prepared (default: calls recorded so far). */
  readonly callIndex?: number;
  readonly epochStart?: number;
  readonly upTo?: number;
}

/**
 * Await before `engine.prepare`: each compression strategy above its trigger summarizes
 * now, and the pipeline run inside `engine.prepare` applies the result. Model errors are
 * reported in the outcomes (and the decision log), never thrown; an abort is thrown.
 */
export async function prepareCompression(
  session: Session,
  host: CompressionHost,
  opts: PrepareCompressionOptions = {},
): Promise<CompressionOutcome[]> {
  const out: CompressionOutcome[] = [];
  for (const s of compressionStrategies(host.pipeline)) {
    if (opts.summarizer) s.attach(opts.summarizer, { decisions: host.decisions });
    else if (host.decisions) s.attach(s.attachedSummarizer, { decisions: host.decisions });
    out.push(
      await s.prepareAsync({
        session,
        index: host.index,
        contextWindow: host.contextWindow,
        model: host.model,
        callIndex: opts.callIndex ?? session.calls.length,
        epochStart: opts.epochStart,
        upTo: opts.upTo,
        signal: opts.signal,
        isPending: (id) => host.pipeline?.applier?.isPending(id) ?? false,
      }),
    );
  }
  return out;
}

export interface CompactOptions {
  readonly summarizer?: Summarizer;
  readonly callIndex?: number;
  readonly epochStart?: number;
  readonly upTo?: number;
}

export interface CompactResult {
  readonly strategy: CompressionKind;
  /** The summary overlays added (restorable with `session.removeOverlay(id)`). */
  readonly applied: SummaryOverlay[];
  /** Ids of earlier compression overlays they superseded. */
  readonly removed: string[];
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly usage?: CallUsage;
  /** Why nothing (or less than planned) was applied. */
  readonly skipped?: string;
}

function resolveStrategy(
  host: CompressionHost,
  strategy: CompressionStrategy | CompressionKind | undefined,
): CompressionStrategy {
  if (strategy instanceof CompressionStrategy) return strategy;
  const mine = compressionStrategies(host.pipeline);
  if (strategy === undefined) return mine[0] ?? new CompressionStrategy('whole-history');
  return mine.find((s) => s.name === strategy) ?? new CompressionStrategy(strategy, compressionDefaults(strategy));
}

/**
 * "Compact Now": compress the history before the current turn at once, whatever the
 * trigger, and apply the result directly (the user asked; the cache cost is accepted).
 * Pins and the current turn stay verbatim. `strategy` defaults to the pipeline's first
 * compression strategy, else `whole-history`. Throws when no summarizer is available,
 * when the model call fails, or on abort; the session is unchanged then.
 */
export async function compactNow(
  session: Session,
  host: CompressionHost,
  strategy?: CompressionStrategy | CompressionKind,
  signal?: AbortSignal,
  opts: CompactOptions = {},
): Promise<CompactResult> {
  const s = resolveStrategy(host, strategy);
  const summarizer = opts.summarizer ?? s.attachedSummarizer;
  if (!summarizer)
    throw new Error(
      `Compact Now: no summarizer for ${s.name} (pass one, or attach it to the pipeline with attachSummarizer)`,
    );
  s.cancel();
  const callIndex = opts.callIndex ?? session.calls.length;
  const plan = s.plan({
    session,
    index: host.index,
    epochStart: opts.epochStart ?? 0,
    upTo: opts.upTo ?? session.messages.length,
    callIndex,
    model: host.model,
    onDemand: true,
  });
  const none = { strategy: s.name, applied: [], removed: [], tokensBefore: 0, tokensAfter: 0 };
  if (!plan)
    return {
      ...none,
      skipped: 'nothing to compress: only the current turn, the first prompt and pinned messages are left',
    };
  const prepared = await s.summarize(plan, summarizer, signal);
  if (signal?.aborted) throw signal.reason ?? new Error('aborted');
  const applied: SummaryOverlay[] = [];
  const removed: string[] = [];
  let before = 0;
  let after = 0;
  let dropped = plan.summaries.length - prepared.summaries.length;
  for (const p of prepared.summaries) {
    const built = s.stillValid(session, p.planned)
      ? s.overlayFor(session, host.index, host.tokens, p, callIndex, 'on demand (Compact Now)')
      : undefined;
    if (!built) {
      dropped++;
      continue;
    }
    for (const id of p.planned.replaces) {
      if (session.overlay(id) && session.removeOverlay(id, s.author)) removed.push(id);
    }
    const added = session.addOverlay(built.overlay);
    if (added.kind === 'summary') applied.push(added);
    before += added.tokensBefore;
    after += added.tokensAfter;
    host.decisions?.add({
      callIndex,
      by: s.author,
      action: 'apply',
      targets: [p.planned.fromMessageId],
      reason: added.reason,
      tokensSaved: built.saved,
      overlayIds: [added.id],
    });
  }
  const skipped =
    dropped > 0
      ? `${dropped} of ${plan.summaries.length} ranges not applied (empty answer, no saving, or changed meanwhile)`
      : undefined;
  return {
    strategy: s.name,
    applied,
    removed,
    tokensBefore: before,
    tokensAfter: after,
    usage: prepared.usage,
    skipped,
  };
}
