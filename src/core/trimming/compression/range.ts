/**
 * Which messages an LLM compression may replace. Pure functions of the session
 * view; no model call.
 *
 * The history before the current turn is cut into segments, each replaced by
 * one summary overlay (a user `<summary>` block), so every rule of the request
 * holds by construction:
 * - Kept verbatim: the latest user prompt and (by default) everything after it;
 *   the first prompt (the original task) when asked; every message with a pinned
 *   or user-restored block, together with the other half of its tool rounds.
 *   A segment that would contain one of them is split around it.
 * - A segment never starts with a user message answering tool calls made before
 *   it, and never ends with an assistant tool_use (its results would follow a
 *   summary: a dangling call); such trailing tool calls are dropped from the
 *   range and stay verbatim.
 * - A segment never cuts through an active summary (of any author): the summary
 *   is either inside it (it then shadows the old one, which comes back on
 *   restore) or outside it.
 */
import { isStrategyAuthor, type Author, type SummaryOverlay } from '../../session/overlay';
import type { Session } from '../../session/session';
import { isCompressionKind } from './options';
import type { MessageIndex } from '../message-index';

/** Log positions [from, to], inclusive. */
export interface Segment {
  readonly from: number;
  readonly to: number;
}

export interface Span extends Segment {
  readonly overlay: SummaryOverlay;
}

export function isCompressionAuthor(a: Author): boolean {
  return isStrategyAuthor(a) && isCompressionKind(a.slice('strategy:'.length));
}

/** The summaries the view shows (active), by position, with their ranges. */
export function activeSpans(session: Session): Span[] {
  const out: Span[] = [];
  for (const o of session.allOverlays()) {
    if (o.kind !== 'summary') continue;
    const from = session.position(o.fromMessageId);
    const to = session.position(o.toMessageId);
    if (from === undefined || to === undefined || to < from) continue;
    if (session.activeSummaryAt(from) !== o) continue;
    out.push({ from, to, overlay: o });
  }
  return out.sort((a, b) => a.from - b.from || b.to - a.to);
}

export interface RangeInput {
  readonly session: Session;
  readonly index: MessageIndex;
  readonly epochStart: number;
  readonly upTo: number;
  readonly keepFirstPrompt: boolean;
  readonly keepCurrentTurn: boolean;
  readonly keepRecentMessages: number;
  /** Messages under an active compression summary stay as they are (chunked with preserveMemory). */
  readonly keepCompressed: boolean;
  /** Further positions to keep (e.g. ranges whose summary the user restored). */
  readonly keep?: (pos: number) => boolean;
}

/** Structural facts about one message that the cut rules need. */
export class Shape {
  constructor(
    private readonly session: Session,
    readonly spans: readonly Span[],
  ) {}

  /** A user message answering tool calls of the previous message. */
  answersCalls(p: number): boolean {
    const m = this.session.messages[p];
    return m.role === 'user' && (m.meta.unansweredToolUses === true || m.blocks.some((b) => b.kind === 'tool_result'));
  }

  /** An assistant message whose tool calls are answered by the next message. */
  callsTools(p: number): boolean {
    const m = this.session.messages[p];
    return m.role === 'assistant' && m.blocks.some((b) => b.kind === 'tool_use');
  }

  /** The span that contains p with p after its start, if any. */
  startsInside(p: number): Span | undefined {
    return this.spans.find((s) => s.from < p && s.to >= p);
  }

  /** The span that contains p with p before its end, if any. */
  endsInside(p: number): Span | undefined {
    return this.spans.find((s) => s.from <= p && s.to > p);
  }

  /** A range may end at p (inclusive) and the next one start at p + 1. */
  validCut(p: number): boolean {
    return (
      !this.callsTools(p) && !(p + 1 < this.session.messages.length && this.answersCalls(p + 1)) && !this.endsInside(p)
    );
  }

  /** Shrink a segment until both ends obey the rules; undefined when nothing is left. */
  adjust(seg: Segment): Segment | undefined {
    let { from, to } = seg;
    for (let changed = true; changed && from <= to;) {
      changed = false;
      const a = this.startsInside(from);
      if (a) {
        from = a.to + 1;
        changed = true;
      } else if (this.answersCalls(from)) {
        from++;
        changed = true;
      }
      if (from > to) break;
      const b = this.endsInside(to);
      if (b) {
        to = b.from - 1;
        changed = true;
      } else if (this.callsTools(to)) {
        to--;
        changed = true;
      }
    }
    return from <= to ? { from, to } : undefined;
  }
}

/** Positions kept because of a pin or a user restore, with the other half of their tool rounds. */
function keptByUser(session: Session, index: MessageIndex, from: number, to: number): Set<number> {
  const keep = new Set<number>();
  for (let p = from; p < to; p++) {
    const m = session.messages[p];
    if (!m.blocks.some((b) => session.isPinned(b.id) || session.isUserRestored(b.id))) continue;
    keep.add(p);
    for (const b of m.blocks) {
      const r = b.toolUseId ? index.roundOf(b.toolUseId) : undefined;
      if (!r) continue;
      keep.add(r.assistantPos);
      if (r.resultPos >= 0) keep.add(r.resultPos);
    }
  }
  return keep;
}

/** The segments of the history that may be compressed now, oldest first. */
export function compressibleSegments(inp: RangeInput, shape: Shape): Segment[] {
  const { session, index, epochStart, upTo } = inp;
  const prompts = index.prompts.filter((p) => p >= epochStart && p < upTo);
  if (prompts.length === 0) return [];
  const latest = prompts[prompts.length - 1];
  const end = inp.keepCurrentTurn ? latest : Math.max(epochStart, Math.min(upTo, upTo - inp.keepRecentMessages));
  const keep = keptByUser(session, index, epochStart, end);
  keep.add(latest);
  if (inp.keepFirstPrompt) keep.add(prompts[0]);
  if (inp.keepCompressed) {
    for (const s of shape.spans)
      if (isCompressionAuthor(s.overlay.author)) for (let p = s.from; p <= s.to; p++) keep.add(p);
  }
  const raw: Segment[] = [];
  let start = -1;
  for (let p = epochStart; p < end; p++) {
    const kept = keep.has(p) || (inp.keep?.(p) ?? false);
    if (kept) {
      if (start >= 0) raw.push({ from: start, to: p - 1 });
      start = -1;
    } else if (start < 0) start = p;
  }
  if (start >= 0) raw.push({ from: start, to: end - 1 });
  const out: Segment[] = [];
  for (const r of raw) {
    const a = shape.adjust(r);
    if (a) out.push(a);
  }
  return out;
}

/** Split a segment into chunks of about n visible messages, cut only where the rules allow. */
export function chunksOf(
  seg: Segment,
  n: number,
  shape: Shape,
  visible: (p: number) => boolean,
  includeRemainder: boolean,
): Segment[] {
  const out: Segment[] = [];
  let start = seg.from;
  let count = 0;
  for (let p = seg.from; p <= seg.to; p++) {
    if (visible(p)) count++;
    if (count >= n && (p === seg.to || shape.validCut(p))) {
      out.push({ from: start, to: p });
      start = p + 1;
      count = 0;
    }
  }
  if (start <= seg.to && includeRemainder && count > 0) out.push({ from: start, to: seg.to });
  return out;
}

/** The last n visible messages of a segment (not starting with answers to calls made before them). */
export function lastN(seg: Segment, n: number, shape: Shape, visible: (p: number) => boolean): number {
  let from = seg.to + 1;
  let count = 0;
  for (let p = seg.to; p >= seg.from && count < n; p--) {
    if (visible(p)) count++;
    from = p;
  }
  while (from <= seg.to && (shape.answersCalls(from) || shape.startsInside(from))) from++;
  return from;
}
