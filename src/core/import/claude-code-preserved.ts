/**
 * Claude Code's partial compaction: a `compact_boundary` whose
 * `compactMetadata.preservedSegment` is `{ headUuid, anchorUuid, tailUuid }`.
 *
 * When Claude Code compacts and keeps some messages (session-memory compact,
 * reactive compact, "summarize up to here"), it does not write the kept
 * messages again: they stay where they were, before the boundary. Its loader
 * walks tail → head by `parentUuid`, relinks head to the anchor (the summary
 * message, or the boundary itself) and zeroes the kept messages' usage; new
 * messages chain off the tail. So every request after such a compaction held
 * the summary, then the kept messages head..tail, then the new messages.
 *
 * Here: the kept lines are copied right after the compact summary that
 * follows the boundary, marked `preserved`. The originals stay where they are
 * (the calls before the compaction sent them there); the copies are context
 * only: a copied response is never a call of its own and carries no usage, so
 * each API response is still counted once. A walk that does not reach the
 * head (a missing or looping link) is followed by Claude Code as no relink; it
 * is reported and nothing is copied.
 *
 * "Summarize from here" (a partial compaction started from the message
 * selector) writes a boundary whose `compactMetadata` carries
 * `messagesSummarized` and `userContext` and no `preservedSegment`. Its
 * `logicalParentUuid` is the last KEPT message: the current context up to and
 * including it stays, what follows it up to the boundary was summarized. Every
 * request after it held the kept messages, then the summary, then the new
 * messages. Here the kept lines (the `parentUuid` chain from it back to the
 * epoch's first record, in chain order, an earlier preserved segment's head
 * relinked to its anchor as Claude Code's loader does) are copied right
 * BEFORE the summary, marked `preserved` like the copies above; the first copy
 * starts the new epoch (`startsEpoch`) and the summary is marked `keptBefore`,
 * so it does not start one again. No `logicalParentUuid`, or a chain that
 * breaks (a missing link or a loop): reported, and the history restarts at
 * the summary.
 */
import type { ImportIssue } from '../session/types';
import type { ConvLine } from './claude-code-group';
import { isRecord, type JsonRecord } from './util';

/** Flag of a message copied next to a compact summary because a partial compaction kept it. */
export const PRESERVED_FLAG = 'preserved';

/**
 * A compact boundary that kept messages: a preserved segment (copied after the summary) or "summarize from here"
 * (copied before it).
 */
export type PreservedBoundary =
  | {
      readonly kind: 'segment';
      readonly line: number;
      readonly headUuid: string;
      readonly tailUuid: string;
      readonly anchorUuid?: string;
    }
  | { readonly kind: 'upTo'; readonly line: number; readonly lastKeptUuid?: string };

/** The uuid links of every record (any kind: a kept chain may pass through attachments or system records). */
export type ParentLinks = Map<string, string | null>;

/**
 * Record a line's uuid → parentUuid link; returns the boundary when the line is a compact boundary that kept messages
 * (either kind).
 */
export function readLinks(rec: JsonRecord, line: number, links: ParentLinks): PreservedBoundary | undefined {
  if (typeof rec.uuid === 'string') links.set(rec.uuid, typeof rec.parentUuid === 'string' ? rec.parentUuid : null);
  if (rec.type !== 'system' || rec.subtype !== 'compact_boundary' || !isRecord(rec.compactMetadata)) return undefined;
  const meta = rec.compactMetadata;
  const seg = meta.preservedSegment;
  if (isRecord(seg) && typeof seg.headUuid === 'string' && typeof seg.tailUuid === 'string')
    return {
      kind: 'segment',
      line,
      headUuid: seg.headUuid,
      tailUuid: seg.tailUuid,
      ...(typeof seg.anchorUuid === 'string' ? { anchorUuid: seg.anchorUuid } : {}),
    };
  if (seg !== undefined || (typeof meta.messagesSummarized !== 'number' && typeof meta.userContext !== 'string'))
    return undefined;
  return {
    kind: 'upTo',
    line,
    ...(typeof rec.logicalParentUuid === 'string' ? { lastKeptUuid: rec.logicalParentUuid } : {}),
  };
}

/** Uuids from tail back to head, or undefined when the walk breaks (missing link, loop, null parent before head). */
function walk(from: string, links: ParentLinks, head?: string): Set<string> | undefined {
  const seen = new Set<string>();
  let cur: string | null | undefined = from;
  while (typeof cur === 'string' && links.has(cur) && !seen.has(cur)) {
    seen.add(cur);
    if (cur === head) return seen;
    cur = links.get(cur);
  }
  // Without a head, the chain is whole when it ends on a record with no parent (the epoch's first).
  return head === undefined && cur === null ? seen : undefined;
}

/** The kept uuids of a boundary, or the issue that makes it fall back to restarting at the summary. */
function keptOf(b: PreservedBoundary, links: ParentLinks): Set<string> | string {
  if (b.kind === 'segment')
    return (
      walk(b.tailUuid, links, b.headUuid) ??
      'compact boundary: preserved segment does not link tail to head; the history restarts at the summary'
    );
  if (b.lastKeptUuid === undefined)
    return (
      '"summarize from here" compact boundary without logicalParentUuid: kept messages not followed, the history ' +
      'restarts at the summary'
    );
  return (
    walk(b.lastKeptUuid, links) ??
    `"summarize from here" compact boundary: the kept messages do not link back from ${b.lastKeptUuid} (missing ` +
      'link or loop); the history restarts at the summary'
  );
}

/**
 * The selected lines with copies of the kept lines (file order, marked
 * `preserved`) after each compact summary that follows a boundary with a
 * preserved segment, or before it for "summarize from here". Boundaries whose
 * kept messages cannot be followed are reported.
 */
export function withPreservedCopies(
  lines: readonly ConvLine[],
  boundaries: readonly PreservedBoundary[],
  links: ParentLinks,
  issues: ImportIssue[],
): ConvLine[] {
  if (!boundaries.length) return [...lines];
  const copiesAfter = new Map<number, ConvLine[]>();
  const copiesBefore = new Map<number, ConvLine[]>();
  for (const b of boundaries) {
    const kept = keptOf(b, links);
    if (typeof kept === 'string') {
      issues.push({ line: b.line, message: kept });
      continue;
    }
    const summary = lines.findIndex((l) => l.line > b.line && l.rec.isCompactSummary === true);
    if (summary < 0) {
      issues.push({
        line: b.line,
        message:
          'compact boundary with a preserved segment but no compact summary after it: kept messages not followed',
      });
      continue;
    }
    if (b.kind === 'segment') {
      const copies = lines
        .filter((l) => l.line < b.line && typeof l.rec.uuid === 'string' && kept.has(l.rec.uuid))
        .map((l): ConvLine => ({ ...l, preserved: true }));
      if (copies.length) copiesAfter.set(summary, [...(copiesAfter.get(summary) ?? []), ...copies]);
      // As Claude Code's loader: the head now follows the anchor, so a later chain walks summary → kept → new.
      if (b.anchorUuid !== undefined) links.set(b.headUuid, b.anchorUuid);
      continue;
    }
    // In context order (the chain from its first record on): a kept segment of an earlier compaction sits after its
    // summary.
    const byUuid = new Map(
      lines.filter((l) => l.line < b.line && typeof l.rec.uuid === 'string').map((l) => [l.rec.uuid, l]),
    );
    const copies = [...kept]
      .reverse()
      .flatMap((u) => byUuid.get(u) ?? [])
      .map((l): ConvLine => ({ ...l, preserved: true }));
    if (copies.length) copiesBefore.set(summary, [{ ...copies[0], startsEpoch: true }, ...copies.slice(1)]);
  }
  const out: ConvLine[] = [];
  lines.forEach((l, i) => {
    const before = copiesBefore.get(i);
    if (before) out.push(...before, { ...l, keptBefore: true }, ...(copiesAfter.get(i) ?? []));
    else out.push(l, ...(copiesAfter.get(i) ?? []));
  });
  return out;
}
