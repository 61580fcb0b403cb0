/** Listing stored sessions for a picker: title, last update, size. */
import fs from 'node:fs';
import path from 'node:path';
import type { ContentBlockParam } from '../session';
import { sessionIdOf, scanJournal } from './load';
import { JOURNAL_EXTENSION } from './records';

/** Characters of the first prompt kept as a title: one line in a quick pick. */
export const TITLE_MAX_CHARS = 80;

export interface SessionSummary {
  readonly sessionId: string;
  readonly file: string;
  /** The first user prompt, on one line and shortened; `(no prompt yet)` for an empty session. */
  readonly title: string;
  /** Last modification of the journal (ISO 8601). */
  readonly updatedAt: string;
  readonly messageCount: number;
  readonly model?: string;
}

/** The user's own text in a message (tool results are not prompts). */
function promptText(content: readonly ContentBlockParam[]): string {
  return content
    .map((b) => (b.type === 'text' ? b.text : ''))
    .filter(Boolean)
    .join(' ');
}

/** One line, at most TITLE_MAX_CHARS. */
export function makeTitle(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > TITLE_MAX_CHARS ? `${line.slice(0, TITLE_MAX_CHARS - 1)}…` : line;
}

/** Summarize one journal file without building its session. */
export function summarizeJournal(file: string): SessionSummary {
  const scan = scanJournal(fs.readFileSync(file, 'utf8'));
  let title = '';
  let messageCount = 0;
  let sessionId = sessionIdOf(file);
  let model: string | undefined;
  for (const { record } of scan.records) {
    if (record.type === 'header') {
      sessionId = record.sessionId;
      model = record.model;
    } else if (record.type === 'message') {
      messageCount++;
      if (!title && record.message.role === 'user') title = makeTitle(promptText(record.message.content));
    }
  }
  const updatedAt = fs.statSync(file).mtime.toISOString();
  return { sessionId, file, title: title || '(no prompt yet)', updatedAt, messageCount, model };
}

/** Sessions stored in `dir`, most recently updated first. A missing directory has none. */
export function listSessions(dir: string): SessionSummary[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const out: SessionSummary[] = [];
  for (const name of names) {
    if (!name.endsWith(JOURNAL_EXTENSION)) continue;
    try {
      out.push(summarizeJournal(path.join(dir, name)));
    } catch {
      // Unreadable file (removed meanwhile, permissions): not a session we can offer.
    }
  }
  return out.sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0));
}
