/**
 * Loading a journal: rebuild the Session exactly (messages, overlays added and
 * removed in their original order, calls) and collect the non-session records
 * (usage, decisions, calibration). Never throws on bad content: problems become
 * issues. A torn last line (no trailing newline, or unparseable) is ignored;
 * records whose id was already seen are skipped.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { CallVerdict, VerdictUsage } from '../../protocol/verdicts';
import type { RequestFingerprint } from '../cache/fingerprint';
import { PrintFolder } from '../cache/print-delta';
import { Session, type CallUsage, type ImportIssue } from '../session';
import { JOURNAL_EXTENSION, parseRecord, splitJournal, type HeaderRecord, type JournalRecord } from './records';

export interface ScannedRecord {
  readonly line: number;
  readonly record: JournalRecord;
}

export interface ScanResult {
  /** Valid records, first occurrence of each id, in file order. */
  readonly records: readonly ScannedRecord[];
  readonly issues: ImportIssue[];
  /** Records skipped because their id had been seen before. */
  readonly duplicates: number;
  /** The file ends with a torn record (not followed by a newline). */
  readonly tornTail: boolean;
}

/** Parse a journal's text into unique records, reporting what was skipped and why. */
export function scanJournal(text: string): ScanResult {
  const { lines, torn } = splitJournal(text);
  const issues: ImportIssue[] = [];
  const records: ScannedRecord[] = [];
  const seen = new Set<string>();
  let duplicates = 0;
  const lastLine = lines.length ? lines[lines.length - 1].line : -1;
  for (const { line, text: t } of lines) {
    const parsed = parseRecord(t);
    if ('error' in parsed) {
      // The last line is torn if a crash cut it (even when a newline happens to follow).
      const tornLast = line === lastLine && !torn && parsed.error === 'not valid JSON';
      issues.push({
        line,
        message: tornLast ? 'torn last record (not valid JSON) ignored' : `${parsed.error}; record skipped`,
      });
      continue;
    }
    if (seen.has(parsed.record.id)) {
      duplicates++;
      continue;
    }
    seen.add(parsed.record.id);
    if (parsed.warning) issues.push({ line, message: parsed.warning });
    records.push({ line, record: parsed.record });
  }
  if (torn) issues.push({ line: torn.line, message: 'torn last record (no trailing newline) ignored' });
  return { records, issues, duplicates, tornTail: torn !== undefined };
}

export interface LoadedJournal {
  readonly file: string;
  readonly sessionId: string;
  readonly session: Session;
  readonly header?: HeaderRecord;
  readonly usage: readonly { readonly callIndex: number; readonly usage: CallUsage }[];
  readonly decisions: readonly unknown[];
  readonly calibrations: readonly unknown[];
  /** History-compression calls (billed, not part of the conversation). */
  readonly compressions: readonly CompressionEntry[];
  /** Cache verdicts of the calls (proxied sessions), in file order. */
  readonly verdicts: readonly VerdictEntry[];
  /**
   * The request of the file's last verdict, folded back from the journal (absent in journals without prints, or when a
   * delta did not fit).
   */
  readonly lastSent?: SentEntry;
  readonly issues: ImportIssue[];
  readonly duplicates: number;
}

export interface VerdictEntry {
  readonly lineage: string;
  readonly verdict: CallVerdict;
}

/** A journaled request of a lineage: what a restarted proxy compares the lineage's next call with. */
export interface SentEntry {
  readonly lineage: string;
  /** Its number in the lineage and in its session. */
  readonly call: number;
  readonly sessionCall: number;
  readonly print: RequestFingerprint;
  readonly responseId?: string;
  readonly usage?: VerdictUsage;
}

export interface CompressionEntry {
  readonly callIndex: number;
  readonly model: string;
  readonly usage: CallUsage;
}

/** Session id of a journal file: its name without the extension. */
export function sessionIdOf(file: string): string {
  return path.basename(file, JOURNAL_EXTENSION);
}

/** Apply one session record; returns a problem to report, if any. */
function applyRecord(session: Session, r: JournalRecord): string | undefined {
  switch (r.type) {
    case 'message':
      session.append(r.message.role, r.message.content, r.message.meta, r.message.id);
      return undefined;
    case 'overlay-added':
      try {
        session.addOverlay(r.overlay);
      } catch (e) {
        return `overlay ${r.overlay.id} not restored: ${e instanceof Error ? e.message : String(e)}`;
      }
      return undefined;
    case 'overlay-removed':
      return session.removeOverlay(r.overlayId, r.by)
        ? undefined
        : `removal of overlay ${r.overlayId}, which is not active; ignored`;
    case 'call': {
      const { index, ...call } = r.call;
      const rec = session.recordCall(call);
      return rec.index === index ? undefined : `call ${index} replayed as call ${rec.index} (a call record is missing)`;
    }
    default:
      return undefined;
  }
}

/** Rebuild a session from journal text (the file name is used for ids and issues). */
export function loadJournalText(text: string, file: string): LoadedJournal {
  const scan = scanJournal(text);
  const issues = [...scan.issues];
  const header = scan.records.find((r) => r.record.type === 'header')?.record as HeaderRecord | undefined;
  if (!header && scan.records.length)
    issues.push({ message: 'no header record; system prompt, tools and model unknown' });
  const session = new Session({ system: header?.system, tools: header?.tools, model: header?.model });
  const usage: { callIndex: number; usage: CallUsage }[] = [];
  const decisions: unknown[] = [];
  const calibrations: unknown[] = [];
  const compressions: CompressionEntry[] = [];
  const verdicts: VerdictEntry[] = [];
  const prints = new PrintFolder();
  let last: { lineage: string; verdict: CallVerdict; responseId?: string } | undefined;
  for (const { line, record: r } of scan.records) {
    if (r.type === 'usage') usage.push({ callIndex: r.callIndex, usage: r.usage });
    else if (r.type === 'decision') decisions.push(r.decision);
    else if (r.type === 'calibration') calibrations.push(r.calibration);
    else if (r.type === 'compression') compressions.push({ callIndex: r.callIndex, model: r.model, usage: r.usage });
    else if (r.type === 'verdict') {
      verdicts.push({ lineage: r.lineage, verdict: r.verdict });
      prints.fold(r.lineage, r.verdict.sessionCall, r.print);
      last = { lineage: r.lineage, verdict: r.verdict, responseId: r.responseId };
    } else {
      const problem = applyRecord(session, r);
      if (problem) issues.push({ line, message: problem });
    }
  }
  issues.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  const folded = last && prints.print(last.lineage);
  const lastSent: SentEntry | undefined =
    last && folded?.call === last.verdict.sessionCall
      ? {
          lineage: last.lineage,
          call: last.verdict.call,
          sessionCall: last.verdict.sessionCall,
          print: folded.print,
          responseId: last.responseId,
          usage: last.verdict.usage,
        }
      : undefined;
  return {
    file,
    sessionId: header?.sessionId ?? sessionIdOf(file),
    session,
    header,
    usage,
    decisions,
    calibrations,
    compressions,
    verdicts,
    lastSent,
    issues,
    duplicates: scan.duplicates,
  };
}

/** Load `<dir>/<sessionId>.jsonl` (or any journal file). A missing file is an error; everything else is an issue. */
export function loadJournal(file: string): LoadedJournal {
  return loadJournalText(fs.readFileSync(file, 'utf8'), file);
}
