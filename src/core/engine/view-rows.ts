/**
 * One row per log block of the current epoch: what the inspector and `trimline inspect`
 * show. Tokens are what the block costs as sent (0 when not sent) next to its original.
 */
import type { BlockState } from '../session/session';
import type { BlockKind, Role } from '../session/types';
import { outputReason } from '../session/user-text';
import type { TokenQuality } from '../tokens/types';
import type { ContextEngine, PreparedCall } from './context-engine';

export interface ViewRow {
  /** `<message position>.<block index>` */
  readonly ref: string;
  readonly blockId: string;
  readonly messageId: string;
  readonly position: number;
  readonly role: Role;
  /** The block's kind; `observation` for environment output of a thought-action loop (LogBlock.observation). */
  readonly kind: BlockKind | 'observation';
  readonly tool?: string;
  readonly tokens: number;
  readonly originalTokens: number;
  readonly quality: TokenQuality;
  readonly state: BlockState;
  /** The decision behind the state: who and why. */
  readonly why?: string;
  readonly by?: string;
  readonly overlayId?: string;
  /** A cache breakpoint sits on this block. */
  readonly breakpoint: boolean;
  /** This block is inside the prefix cached by the previous request. */
  readonly cached: boolean;
  /** Whether the block is in the request at all (pruned/summarized blocks are not). */
  readonly sent: boolean;
}

export interface ViewTotals {
  readonly sentTokens: number;
  readonly untrimmedTokens: number;
  readonly byState: Record<BlockState, number>;
}

/** The `by` of a row that no automatic strategy may change (session/user-text.ts). */
export const PROTECTED_BY = 'protected';

export function viewRows(engine: ContextEngine, prepared: PreparedCall, from = 0, cachedUpTo = 0): ViewRow[] {
  const { session, tokens } = engine;
  const bp = new Set(prepared.breakpoints.filter((b) => b.messageIndex !== undefined).map((b) => b.at));
  const rows: ViewRow[] = [];
  const quality = tokens.quality();
  for (let pos = from; pos < session.messages.length; pos++) {
    const r = session.resolveMessage(pos);
    for (const b of r.blocks) {
      const original = tokens.block(b.block.param).tokens;
      const sentTokens = b.sent ? tokens.block(b.sent).tokens : 0;
      // A block with no overlay may still have a deferred proposal: say so.
      const deferred = b.overlay
        ? undefined
        : (engine.decisions.about(b.block.id).at(-1) ?? engine.decisions.about(r.message.id).at(-1));
      const pendingWhy = deferred?.action === 'defer' ? deferred.reason : undefined;
      rows.push({
        ref: `${pos}.${b.block.index}`,
        blockId: b.block.id,
        messageId: r.message.id,
        position: pos,
        role: r.message.role,
        kind: b.block.observation ? 'observation' : b.block.kind,
        tool: b.block.toolName,
        tokens: sentTokens,
        originalTokens: original,
        quality,
        state: b.state,
        // Protected user text says so (who: "protected", why: the rule), unless an overlay the user made decides it.
        why: b.overlay ? b.overlay.reason : (b.protectedReason ?? pendingWhy ?? outputReason(b.block)),
        by: b.overlay?.author ?? (b.protectedReason ? PROTECTED_BY : pendingWhy ? 'cache-aware' : undefined),
        overlayId: b.overlay?.id,
        breakpoint: bp.has(b.block.id),
        cached: pos < cachedUpTo,
        sent: b.sent !== undefined,
      });
    }
  }
  return rows;
}

export function totals(rows: readonly ViewRow[]): ViewTotals {
  const byState: Record<BlockState, number> = { verbatim: 0, trimmed: 0, summarized: 0, pruned: 0, pinned: 0 };
  let sentTokens = 0;
  let untrimmedTokens = 0;
  for (const r of rows) {
    byState[r.state]++;
    sentTokens += r.tokens;
    untrimmedTokens += r.originalTokens;
  }
  return { sentTokens, untrimmedTokens, byState };
}
