/**
 * Trimline's own session journal (src/core/store) as a transcript: `trimline inspect`
 * reads a journal like any recorded session (the proxy's journals of Claude Code or SDK
 * sessions included). Detected by its first record: the header, with `v` (the journal
 * format version). Not in the importer registry yet (registerImporter can add it; the
 * registry's error texts list the built-in formats).
 */
import type { ImportedSession } from '../session/types';
import { loadJournalText } from '../store/load';
import { JOURNAL_VERSION } from '../store/records';
import type { TranscriptImporter, TranscriptInput } from './detect';
import { ImportError } from './errors';

/** The first line of a journal (written by `Journal.attach`). */
function firstRecord(text: string): Record<string, unknown> | undefined {
  const line = text.slice(0, text.indexOf('\n') >= 0 ? text.indexOf('\n') : text.length).trim();
  try {
    const v = JSON.parse(line) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function detectJournal(input: TranscriptInput): boolean {
  const r = firstRecord(input.text);
  return r !== undefined && r.v === JOURNAL_VERSION && r.type === 'header' && typeof r.sessionId === 'string';
}

function parseJournal(input: TranscriptInput): ImportedSession {
  const loaded = loadJournalText(input.text, input.file);
  if (!loaded.header) throw new ImportError(input.file, 'a Trimline journal without its header record');
  const usage = new Map(loaded.usage.map((u) => [u.callIndex, u.usage]));
  const s = loaded.session;
  return {
    format: 'trimline-journal',
    file: input.file,
    system: s.system,
    tools: s.tools,
    model: s.model,
    messages: [...s.messages],
    calls: s.calls.map((c) => (c.usage || !usage.has(c.index) ? c : { ...c, usage: usage.get(c.index) })),
    issues: [...loaded.issues],
  };
}

export const journalImporter: TranscriptImporter = {
  format: 'trimline-journal',
  label: 'Trimline journal',
  expects: 'one JSON record per line, the first a {"v":1,"type":"header"} record',
  detect: detectJournal,
  parse: parseJournal,
};
