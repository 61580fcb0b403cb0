/** Text helpers shared by the file tools. */

/**
 * Directories never listed or searched unless asked for by path: VCS data and dependencies are noise and huge,
 * and `.trimline` holds the agent's own session journals (reading them back would feed the model its own log).
 */
export const DEFAULT_IGNORE: readonly string[] = ['.git', 'node_modules', '.trimline'];

/** Bytes inspected for a NUL to call a file binary (git's heuristic uses the first 8,000). */
const BINARY_SNIFF_BYTES = 8_000;

/** Files containing a NUL byte near the start are binary. */
export function isBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, BINARY_SNIFF_BYTES);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}

/** Lenient UTF-8 decode; a BOM is kept (as U+FEFF) so writing back preserves it. */
export function decodeText(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
}

/** Strict UTF-8 decode, or undefined when the bytes are not valid UTF-8 (editing would corrupt them). */
export function decodeStrict(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Lines of a text for display: split on LF, a CR before the LF dropped, the
 * empty string after a final newline not counted, a leading BOM removed.
 */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const lines = body.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

/**
 * Number lines for the model: the line number right-aligned to the width of
 * the largest number shown, then a tab (`  12\tcode`), like `cat -n` but narrower.
 */
export function numberLines(lines: readonly string[], firstLine: number): string[] {
  const width = String(firstLine + lines.length - 1).length;
  return lines.map((l, i) => `${String(firstLine + i).padStart(width)}\t${l}`);
}

/** 1-based line number of the character at `offset`. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** `1 file`, `3 files`. */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? word : many}`;
}

/** Workspace-relative display of a path argument (`.` for the root). */
export function displayPath(p: string | undefined): string {
  return p === undefined || p === '' ? '.' : p;
}
