/**
 * Format detection. Importers form an ordered list: the first whose `detect`
 * accepts the input parses it. To add a format (e.g. the trimline journal),
 * write a `TranscriptImporter` and call `registerImporter`; detection, the
 * "not a transcript" error text and `parseTranscript` pick it up, and the
 * report prices the calls its `recorded` hands over (recorded.ts).
 *
 * Order matters: line-oriented formats come before whole-JSON ones because a
 * one-line JSONL file is also a valid JSON document.
 */
import type { ImportedSession, TranscriptFormat } from '../session/types';
import { ImportError, parseJson, type JsonParse } from './errors';
import type { RecordedTranscript } from './recorded';

/** What a detector sees: the text, the file name, and the text parsed once as a whole JSON value. */
export interface TranscriptInput {
  readonly file: string;
  readonly text: string;
  readonly json: JsonParse;
}

export interface TranscriptImporter {
  readonly format: TranscriptFormat;
  /** Name used in the "not a … transcript" error, e.g. `Claude Code JSONL`. */
  readonly label: string;
  /** What the format looks like, for the same error, e.g. `one JSON object per line with "type":"user"|"assistant"`. */
  readonly expects: string;
  /** Cheap check; must not throw. */
  detect(input: TranscriptInput): boolean;
  /** Full parse; throws `ImportError` only when the file as a whole is unusable. */
  parse(input: TranscriptInput): ImportedSession;
  /**
   * The calls the transcript records as billed, with their usage and model, for the report (recorded.ts).
   * `counted` holds the dedupe keys (`RecordedCall.key`) of responses counted so far over every file of a
   * report: skip those (count them as `duplicates`) and add the keys of this file's calls. Absent: the format
   * records no usage, and the report lists the file as not anchored. May throw `ImportError` like `parse`.
   */
  recorded?(input: TranscriptInput, counted: Set<string>): RecordedTranscript;
  /**
   * Files beside `file` that `recorded` reads too (e.g. Cline's ui_messages.json): their size and mtime join
   * the file's in the report's per-file cache, so a change to them is seen. Must not throw.
   */
  companions?(file: string): readonly string[];
  /** True for a file name a report's directory walk reads for this format (every `.jsonl` is read anyway). */
  walks?(name: string): boolean;
}

const importers: TranscriptImporter[] = [];

/**
 * Add an importer. `first: true` puts it ahead of the built-in ones (a new
 * format with a distinctive header should be detected before the permissive
 * JSON formats); otherwise it is appended. An importer of the same format is
 * replaced. Returns a function that removes it again.
 */
export function registerImporter(importer: TranscriptImporter, options: { first?: boolean } = {}): () => void {
  const existing = importers.findIndex((i) => i.format === importer.format);
  if (existing >= 0) importers.splice(existing, 1);
  if (options.first) importers.unshift(importer);
  else importers.push(importer);
  return () => {
    const at = importers.indexOf(importer);
    if (at >= 0) importers.splice(at, 1);
  };
}

/** The registered importers, in detection order. */
export function registeredImporters(): readonly TranscriptImporter[] {
  return importers;
}

/** How many leading bytes are checked for NUL characters when deciding a file is binary. */
const BINARY_SNIFF_CHARS = 8192;

/** True for text that contains a NUL in its first `BINARY_SNIFF_CHARS` characters (no transcript format has one). */
export function looksBinary(text: string): boolean {
  return text.slice(0, BINARY_SNIFF_CHARS).includes('\u0000');
}

/** What importers see of `text` (no byte-order mark, parsed once). Throws `ImportError` for an empty or binary file. */
export function transcriptInput(text: string, file: string): TranscriptInput {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (!body.trim()) throw new ImportError(file, 'empty file, not a transcript');
  if (looksBinary(body)) throw new ImportError(file, 'binary file, not a transcript', 1);
  return { file, text: body, json: parseJson(body) };
}

/** The first importer that accepts `input`. Throws `ImportError` (naming every known format) when none does. */
export function detectImporter(input: TranscriptInput): TranscriptImporter {
  for (const importer of importers) if (importer.detect(input)) return importer;
  throw notATranscript(input);
}

/** Detect the format of `text` and parse it. Throws `ImportError` for an unusable file. */
export function detectAndParse(text: string, file: string): ImportedSession {
  const input = transcriptInput(text, file);
  return detectImporter(input).parse(input);
}

/** One transcript as the report reads it: its format, the calls it records as billed, and its import on demand. */
export interface TranscriptRecord {
  readonly format: TranscriptFormat;
  /** No conversation and no bad line when the importer has no `recorded` (the format records no usage). */
  readonly recorded: RecordedTranscript;
  /** The import of the whole file (`recorded.parsed` when the importer made it already). */
  session(): ImportedSession;
}

/** Detect the format of `text` and read its recorded calls (`TranscriptImporter.recorded`). Throws `ImportError`. */
export function readTranscriptRecord(text: string, file: string, counted: Set<string>): TranscriptRecord {
  const input = transcriptInput(text, file);
  const importer = detectImporter(input);
  const recorded = importer.recorded?.(input, counted) ?? { conversations: [], badLines: 0 };
  return { format: importer.format, recorded, session: () => recorded.parsed ?? importer.parse(input) };
}

/** The files beside `file` that some importer reads with it (`TranscriptImporter.companions`). */
export function companionFiles(file: string): string[] {
  return importers.flatMap((i) => i.companions?.(file) ?? []);
}

/** True for a file name a directory walk reads: any `.jsonl`, and the names an importer `walks`. */
export function isWalkedName(name: string): boolean {
  return name.endsWith('.jsonl') || importers.some((i) => i.walks?.(name) === true);
}

/** The error for a file no importer accepts: names every known format and, for broken JSON, the syntax error. */
function notATranscript(input: TranscriptInput): ImportError {
  const labels = importers.map((i) => i.label);
  const names =
    labels.length > 1 ? `${labels.slice(0, -1).join(', ')} or ${labels[labels.length - 1]}` : (labels[0] ?? 'known');
  if (!input.json.ok && looksLikeJsonDocument(input.text)) {
    return new ImportError(
      input.file,
      `invalid JSON (${input.json.error}), so not a ${names} transcript`,
      input.json.line,
    );
  }
  const expected = importers.map((i) => `${i.label}: ${i.expects}`).join('; ');
  return new ImportError(input.file, `not a ${names} transcript (expected ${expected})`, 1);
}

/**
 * Text meant as one JSON document (so a syntax error is the problem to report):
 * it starts with `[`, or with `{` on a first line that is not a complete JSON
 * value by itself (which would make it JSON lines of some foreign format).
 */
function looksLikeJsonDocument(text: string): boolean {
  const body = text.trimStart();
  if (body[0] === '[') return true;
  if (body[0] !== '{') return false;
  const firstLine = body.split('\n', 1)[0];
  try {
    JSON.parse(firstLine);
    return false;
  } catch {
    return true;
  }
}
