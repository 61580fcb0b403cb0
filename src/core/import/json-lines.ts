/**
 * The lines of a JSONL text, parsed once. `trimline report` reads each file
 * twice (the billed responses, claude-code-usage.ts, and the conversation,
 * claude-code.ts): both take the lines from here, so every line is split and
 * `JSON.parse`d once per file. The last texts are remembered (a file and a
 * subagent's part of it) until {@link releaseJsonLines}. Parsed records are shared: readers
 * must not mutate them.
 */

export interface JsonLine {
  /** 1-based line number in the text. */
  readonly line: number;
  /** The line, trimmed. */
  readonly raw: string;
  /** The parsed value; absent when the line is not JSON (then `error`). */
  readonly rec?: unknown;
  readonly error?: string;
}

/** The texts remembered, newest first: a file, and the subagent text cut from it (claude-code-usage.ts). */
const REMEMBERED = 2;
let recent: { readonly text: string; readonly lines: readonly JsonLine[] }[] = [];

/** Every non-empty line of `text`, trimmed and parsed. */
export function jsonLines(text: string): readonly JsonLine[] {
  const hit = recent.find((r) => r.text === text);
  if (hit) return hit.lines;
  const out: JsonLine[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].trim();
    if (!raw) continue;
    try {
      out.push({ line: i + 1, raw, rec: JSON.parse(raw) as unknown });
    } catch (e) {
      out.push({ line: i + 1, raw, error: e instanceof Error ? e.message : String(e) });
    }
  }
  recent = [{ text, lines: out }, ...recent].slice(0, REMEMBERED);
  return out;
}

/** Forget the remembered texts (a report calls it when done with a file). */
export function releaseJsonLines(): void {
  recent = [];
}
