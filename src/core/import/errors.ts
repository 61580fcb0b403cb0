/**
 * The one error the importers throw: the file as a whole is not a transcript
 * we can read (empty, binary, corrupt JSON, none of the known formats, no
 * conversation at all). Problems inside a readable transcript are never fatal:
 * they become `ImportIssue`s instead.
 */

/**
 * Longest problem text kept in a message, so one bad input cannot flood a
 * terminal; long enough for the "not a … transcript (expected …)" text that
 * lists every registered format.
 */
const MAX_PROBLEM_CHARS = 640;

/** Collapse whitespace (including newlines from JSON snippets) and cap the length: messages stay one line. */
export function oneLine(text: string, max = MAX_PROBLEM_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * A transcript file that cannot be imported. `message` is one line:
 * `<file>: line <n>: <problem>` (the line part only when it is known).
 */
export class ImportError extends Error {
  readonly file: string;
  readonly line?: number;
  /** The problem alone, without file and line. */
  readonly problem: string;

  constructor(file: string, problem: string, line?: number) {
    const p = oneLine(problem);
    super(line === undefined ? `${file}: ${p}` : `${file}: line ${line}: ${p}`);
    this.name = 'ImportError';
    this.file = file;
    this.line = line;
    this.problem = p;
  }
}

/** Result of parsing a whole text as one JSON value. */
export type JsonParse =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: string; readonly line?: number };

/** Parse JSON, turning a syntax error into a one-line description and a 1-based line number when V8 gives one. */
export function parseJson(text: string): JsonParse {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e) {
    const raw = e instanceof Error ? e.message : String(e);
    return { ok: false, error: describeJsonError(raw), line: jsonErrorLine(raw, text) };
  }
}

/** V8's message without the position suffix and the quoted snippet (which may hold huge or multi-line text). */
function describeJsonError(raw: string): string {
  const noSnippet = raw.replace(V8_SNIPPET_SUFFIX, '');
  return oneLine(noSnippet.replace(/\s*in JSON at position \d+.*$/s, '').replace(/^JSON\.parse:\s*/, ''), 120);
}

/** V8's `, ..."<snippet>"... is not valid JSON` ending of "Unexpected token" messages. */
const V8_SNIPPET_SUFFIX = /,\s*(?:\.\.\.)?".*"(?:\.\.\.)?\s*is not valid JSON$/s;

/** V8's "Unexpected token" message: the token, whether the snippet was cut before, and the snippet. */
const V8_UNEXPECTED_TOKEN = /^Unexpected token '(.+?)', (\.\.\.)?"(.*)"(?:\.\.\.)? is not valid JSON$/s;

/** Characters V8 shows before the bad token in a cut snippet (its kMaxContextCharacters). */
const V8_SNIPPET_CONTEXT_CHARS = 10;

/**
 * 1-based line of a JSON syntax error: from "(line N" (Node 22+) or "position
 * N"; for Node 20's positionless "Unexpected token" messages, by finding the
 * quoted snippet in the text; the last line for "end of JSON input".
 */
function jsonErrorLine(raw: string, text: string): number | undefined {
  const explicit = /\(line (\d+) column \d+\)/.exec(raw);
  if (explicit) return Number(explicit[1]);
  const pos = /at position (\d+)/.exec(raw);
  if (pos) return lineAt(text, Number(pos[1]));
  if (/end of JSON input/i.test(raw)) return lineAt(text, text.trimEnd().length);
  const token = V8_UNEXPECTED_TOKEN.exec(raw);
  const at = token ? text.indexOf(token[3]) : -1;
  if (!token || at < 0) return undefined;
  const offset = token[2] ? V8_SNIPPET_CONTEXT_CHARS : Math.max(0, token[3].indexOf(token[1]));
  return lineAt(text, at + offset);
}

/** 1-based line number of a character offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}
