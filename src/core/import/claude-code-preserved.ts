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
 */
import type { ImportIssue } from '../session/types';
import type { ConvLine } from './claude-code-group';
import { isRecord, type JsonRecord } from './util';

/** A compact boundary that kept messages. */
export interface PreservedBoundary {
  readonly line: number;
  readonly headUuid: string;
  readonly tailUuid: string;
}

/** The uuid links of every record (any kind: a kept chain may pass through attachments or system records). */
export type ParentLinks = Map<string, string | null>;

/** Record a line's uuid → parentUuid link; returns the boundary when the line is a compact boundary with a preserved segment. */
export function readLinks(rec: JsonRecord, line: number, links: ParentLinks): PreservedBoundary | undefined {
  if (typeof rec.uuid === 'string') links.set(rec.uuid, typeof rec.parentUuid === 'string' ? rec.parentUuid : null);
  if (rec.type !== 'system' || rec.subtype !== 'compact_boundary' || !isRecord(rec.compactMetadata)) return undefined;
  const seg = rec.compactMetadata.preservedSegment;
  if (!isRecord(seg) || typeof seg.headUuid !== 'string' || typeof seg.tailUuid !== 'string') return undefined;
  return { line, headUuid: seg.headUuid, tailUuid: seg.tailUuid };
}

/** Uuids from tail back to head, or undefined when the walk breaks (missing link, loop, null parent before head). */
function walk(b: PreservedBoundary, links: ParentLinks): Set<string> | undefined {
  const seen = new Set<string>();
  let cur: string | null | undefined = b.tailUuid;
  while (typeof cur === 'string' && links.has(cur) && !seen.has(cur)) {
    seen.add(cur);
    if (cur === b.headUuid) return seen;
    cur = links.get(cur);
  }
  return undefined;
}

/**
 * The selected lines with, after each compact summary that follows a
 * boundary with a preserved segment, copies of the kept lines (file order,
 * marked `preserved`). Boundaries whose segment cannot be followed are reported.
 */
export function withPreservedCopies(lines: readonly ConvLine[], boundaries: readonly PreservedBoundary[], links: ParentLinks, issues: ImportIssue[]): ConvLine[] {
  if (!boundaries.length) return [...lines];
  const copiesAfter = new Map<number, ConvLine[]>();
  for (const b of boundaries) {
    const kept = walk(b, links);
    if (!kept) {
      issues.push({ line: b.line, message: 'compact boundary: preserved segment does not link tail to head; the history restarts at the summary' });
      continue;
    }
    const summary = lines.findIndex((l) => l.line > b.line && l.rec.isCompactSummary === true);
    if (summary < 0) {
      issues.push({ line: b.line, message: 'compact boundary with a preserved segment but no compact summary after it: kept messages not followed' });
      continue;
    }
    const copies = lines.filter((l) => l.line < b.line && typeof l.rec.uuid === 'string' && kept.has(l.rec.uuid)).map((l): ConvLine => ({ ...l, preserved: true }));
    if (copies.length) copiesAfter.set(summary, [...(copiesAfter.get(summary) ?? []), ...copies]);
  }
  const out: ConvLine[] = [];
  lines.forEach((l, i) => out.push(l, ...(copiesAfter.get(i) ?? [])));
  return out;
}
