/**
 * What the user does in the inspector, applied to a session as overlays authored by
 * `user` (pins and user trims win over strategies; restore removes overlays, the log
 * is never touched), each with a decision-log entry. Shared by both hosts.
 */
import type { ActionResult, OriginalBlock, OriginalsResult, WebviewRequest } from '../../protocol';
import type { ContextEngine } from '../engine/context-engine';
import { applyTrim, type Session } from '../session/session';
import type { LogBlock } from '../session/types';
import { buildDigest } from '../trimming/digest';
import { summarizeToolResult, TRIM_MARKER } from '../trimming/summary-text';
import { refOf } from './flat';
import { previewText } from './snapshot';
import { fmtTokens } from '../../protocol/format';

/** Recent messages a user compaction keeps verbatim (two or three tool rounds). */
export const COMPACT_KEEP_RECENT = 6;
/** Characters of each original block returned by `originals`, and the most blocks. */
export const ORIGINAL_MAX_CHARS = 20_000;
export const ORIGINAL_MAX_BLOCKS = 200;
/** Default user trim: like the strategies' summaries (tool, status, size, first line, refs). */
const USER_TRIM = { maxRefs: 12, previewChars: 160, label: 'trimmed by the user' } as const;

/** A request the host cannot honour (unknown block, nothing to restore…): shown to the user as is. */
export class InspectorActionError extends Error {}

export type UserAction = Extract<WebviewRequest, { op: 'pin' | 'unpin' | 'trim' | 'restore' | 'compact' }>;

function blockOf(session: Session, blockId: string): LogBlock {
  const b = session.block(blockId);
  if (!b) throw new InspectorActionError(`no block ${blockId} in this session`);
  return b;
}

/** Apply one user action to the engine's session; `callIndex` is the next request's index. */
export function applyUserAction(engine: ContextEngine, req: UserAction, callIndex: number): ActionResult {
  const { session, tokens } = engine;
  const log = (
    action: 'pin' | 'unpin' | 'trim' | 'restore',
    blockId: string,
    reason: string,
    tokensSaved: number,
    overlayIds: string[],
  ): void => {
    engine.decisions.add({ callIndex, by: 'user', action, targets: [blockId], reason, tokensSaved, overlayIds });
  };
  if (req.op === 'compact') return compact(engine, callIndex);
  const block = blockOf(session, req.blockId);
  const ref = refOf(session, block.id);
  const size = tokens.block(block.param).tokens;
  switch (req.op) {
    case 'pin': {
      if (session.isPinned(block.id)) return { message: `${ref} is already pinned` };
      const o = session.addOverlay({
        kind: 'pin',
        blockId: block.id,
        author: 'user',
        reason: 'pinned by the user: always sent verbatim',
        callIndex,
        tokensBefore: size,
        tokensAfter: size,
      });
      log('pin', block.id, o.reason, 0, [o.id]);
      return { message: `Pinned ${ref}: it is sent verbatim from now on` };
    }
    case 'unpin': {
      const pins = session.overlaysOnBlock(block.id).filter((o) => o.kind === 'pin');
      if (!pins.length) return { message: `${ref} is not pinned` };
      for (const p of pins) session.removeOverlay(p.id, 'user');
      log(
        'unpin',
        block.id,
        'unpinned by the user',
        0,
        pins.map((p) => p.id),
      );
      return { message: `Unpinned ${ref}: strategies may trim it again` };
    }
    case 'trim':
      return trim(engine, block, req.text, callIndex);
    case 'restore': {
      const removed = session.restore(block.id, 'user');
      if (!removed.length) return { message: `${ref} is already sent as recorded` };
      log(
        'restore',
        block.id,
        'restored by the user',
        0,
        removed.map((o) => o.id),
      );
      return {
        message:
          `Restored ${ref} (${removed.length} overlay${removed.length === 1 ? '' : 's'} removed): the original is ` +
          'sent again',
      };
    }
  }
}

function trim(engine: ContextEngine, block: LogBlock, text: string | undefined, callIndex: number): ActionResult {
  const { session, tokens } = engine;
  if (block.kind !== 'tool_result' && block.kind !== 'text')
    throw new InspectorActionError(
      `only tool results and text can be trimmed (${refOf(session, block.id)} is ${block.kind})`,
    );
  const own = text?.trim();
  const replacement = own
    ? `${TRIM_MARKER}: summary by the user; original restorable]\n${own}`
    : summarizeToolResult(block.param, { ...USER_TRIM, toolName: block.toolName });
  const before = tokens.block(block.param).tokens;
  const after = tokens.block(applyTrim(block.param, replacement)).tokens;
  // A trim that saves nothing is refused (and an earlier trim of the block stays as it is).
  if (after >= before) throw new InspectorActionError(notShorter(refOf(session, block.id), before, after));
  // A new user trim replaces the previous one rather than stacking on it.
  for (const o of session.overlaysOnBlock(block.id))
    if (o.kind === 'trim' && o.author === 'user') session.removeOverlay(o.id, 'user');
  const reason = own ? 'trimmed by the user with their own summary' : 'trimmed by the user';
  const o = session.addOverlay({
    kind: 'trim',
    blockId: block.id,
    text: replacement,
    author: 'user',
    reason,
    callIndex,
    tokensBefore: before,
    tokensAfter: after,
  });
  engine.decisions.add({
    callIndex,
    by: 'user',
    action: 'trim',
    targets: [block.id],
    reason,
    tokensSaved: before - after,
    overlayIds: [o.id],
  });
  const ref = refOf(session, block.id);
  return { message: `Trimmed ${ref}: ${fmtTokens(before)} → ${fmtTokens(after)} tokens` };
}

/** Why a trim or a compaction that would not make the context smaller is refused. */
export function notShorter(what: string, before: number, after: number): string {
  const how = after > before ? 'would be longer than the original' : 'would be no shorter than the original';
  return (
    `Not trimmed: the summary of ${what} ${how} (${fmtTokens(before)} → ${fmtTokens(after)} tokens); the ` +
    'original is kept.'
  );
}

/** A window may start at an assistant message or at a user prompt, never at tool results (pairs stay whole). */
function validStart(session: Session, p: number): boolean {
  const m = session.messages[p];
  if (m.role === 'assistant') return !m.meta.interrupted;
  return !m.blocks.some((b) => b.kind === 'tool_result');
}

/**
 * Compact now: the history before the last {@link COMPACT_KEEP_RECENT} messages is
 * replaced by one extractive digest (the user's prompts and the reference ids seen),
 * a single restorable summary overlay. Stops at the first pinned block.
 */
function compact(engine: ContextEngine, callIndex: number): ActionResult {
  const { session, tokens } = engine;
  const n = session.messages.length;
  const epoch = engine.builder.epochStart(session, n);
  let cut = -1;
  for (let p = n - COMPACT_KEEP_RECENT; p > epoch; p--) {
    if (validStart(session, p)) {
      cut = p;
      break;
    }
  }
  for (let p = epoch; p < cut; p++) {
    if (session.messages[p].blocks.some((b) => session.isPinned(b.id))) {
      cut = p;
      while (cut > epoch && !validStart(session, cut)) cut--;
      break;
    }
  }
  if (cut <= epoch) return { message: 'Nothing to compact: the history is already short (or pinned)' };
  const covering = session.allOverlays().filter((o) => o.kind === 'summary');
  const existing = covering.find((s) => s.kind === 'summary' && (session.position(s.toMessageId) ?? -1) >= cut - 1);
  if (existing) return { message: 'Nothing to compact: that history is already summarized' };
  const what = (tokensBefore: number): string =>
    `${cut - epoch} earlier messages (about ${tokensBefore} tokens) compacted by the user`;
  // Refused before anything changes when the digest would not make the context smaller than it is now.
  const sentNow = engine.index.rangeTokens(epoch, cut);
  const draft = tokens.text(buildDigest(session, epoch, cut - 1, what(sentNow))).tokens;
  if (draft >= sentNow) throw new InspectorActionError(notShorter(`messages ${epoch}–${cut - 1}`, sentNow, draft));
  for (const s of covering) session.removeOverlay(s.id, 'user');
  const before = engine.index.rangeTokens(epoch, cut);
  const text = buildDigest(session, epoch, cut - 1, what(before));
  const after = tokens.text(text).tokens;
  const o = session.addOverlay({
    kind: 'summary',
    fromMessageId: session.messages[epoch].id,
    toMessageId: session.messages[cut - 1].id,
    text,
    author: 'user',
    reason: `compacted by the user: messages ${epoch}–${cut - 1} replaced by a digest`,
    callIndex,
    tokensBefore: before,
    tokensAfter: after,
  });
  engine.decisions.add({
    callIndex,
    by: 'user',
    action: 'apply',
    targets: [session.messages[epoch].id],
    reason: o.reason,
    tokensSaved: before - after,
    overlayIds: [o.id],
  });
  return { message: `Compacted messages ${epoch}–${cut - 1}: ${fmtTokens(before)} → ${fmtTokens(after)} tokens` };
}

/** The blocks an overlay covers, in log order. */
function coveredBlocks(session: Session, overlayId: string): { blocks: LogBlock[]; total: number } {
  const o = session.overlay(overlayId);
  if (!o) throw new InspectorActionError(`overlay ${overlayId} no longer exists (restored or replaced)`);
  if (o.kind === 'summary') {
    const from = session.position(o.fromMessageId) ?? 0;
    const to = session.position(o.toMessageId) ?? -1;
    const blocks: LogBlock[] = [];
    let total = 0;
    for (let p = from; p <= to; p++) {
      for (const b of session.messages[p].blocks) {
        total++;
        if (blocks.length < ORIGINAL_MAX_BLOCKS) blocks.push(b);
      }
    }
    return { blocks, total };
  }
  if (o.kind === 'prune' && !o.blockId) {
    const m = session.messages[session.position(o.messageId) ?? -1];
    return { blocks: m ? [...m.blocks] : [], total: m?.blocks.length ?? 0 };
  }
  return { blocks: [blockOf(session, o.blockId!)], total: 1 };
}

/** What an overlay replaced (the originals, as text) and what is sent instead. */
export function originalsOf(engine: ContextEngine, overlayId: string): OriginalsResult {
  const { session, tokens } = engine;
  const o = session.overlay(overlayId)!;
  const { blocks, total } = coveredBlocks(session, overlayId);
  const out: OriginalBlock[] = blocks.map((b) => {
    const full = previewText(b.param, Number.MAX_SAFE_INTEGER);
    const role = session.messageOf(b.id)?.role ?? 'user';
    const ob: OriginalBlock = {
      ref: refOf(session, b.id),
      blockId: b.id,
      role,
      kind: b.kind,
      tokens: tokens.block(b.param).tokens,
      text: full.slice(0, ORIGINAL_MAX_CHARS),
      truncated: full.length > ORIGINAL_MAX_CHARS,
    };
    if (b.toolName) ob.tool = b.toolName;
    return ob;
  });
  const result: OriginalsResult = {
    overlayId,
    kind: o.kind,
    author: o.author,
    reason: o.reason,
    blocks: out,
    omitted: total - out.length,
  };
  if (o.kind === 'trim' || o.kind === 'summary') result.replacement = o.text;
  return result;
}
