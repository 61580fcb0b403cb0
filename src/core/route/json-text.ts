/**
 * Edits of JSON and JSONC text (VS Code's settings.json, Claude Code's settings.json, Copilot's
 * chatLanguageModels.json) that change one property and keep every other byte: jsonc-parser's
 * `modify` (the library VS Code edits its own settings files with) computes the minimal edit,
 * comments, trailing commas and the file's own indentation included.
 */
import { applyEdits, findNodeAtLocation, modify, parse, parseTree } from 'jsonc-parser/lib/esm/main.js';
import type { JSONPath, ParseError } from 'jsonc-parser/lib/esm/main.js';

/** The file's indentation, guessed from its first indented line (default two spaces). */
function indentOf(text: string): { insertSpaces: boolean; tabSize: number } {
  const m = /\n([ \t]+)\S/.exec(text);
  if (!m) return { insertSpaces: true, tabSize: 2 };
  if (m[1].startsWith('\t')) return { insertSpaces: false, tabSize: 1 };
  return { insertSpaces: true, tabSize: Math.min(m[1].length, 8) };
}

/** The end-of-line sequence the file uses. */
function eolOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

/** Parses JSONC; undefined when the text is not a JSON value (a broken file is never edited). */
export function parseJsonc(text: string): unknown {
  if (text.trim() === '') return undefined;
  const errors: ParseError[] = [];
  const v: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  return errors.length === 0 ? v : undefined;
}

/** Thrown when a file cannot be edited safely (not JSON, or not the shape the agent reads). */
export class RouteEditError extends Error {}

/**
 * Sets (or, with `value` undefined, removes) the property at `path`; every other byte stays.
 * An empty file becomes `{ … }` with just that property.
 */
export function setJsonValue(text: string, path: JSONPath, value: unknown): string {
  const base = text.trim() === '' ? '{}' : text;
  if (text.trim() !== '' && parseJsonc(text) === undefined) throw new RouteEditError('the file is not valid JSON');
  const { insertSpaces, tabSize } = indentOf(base);
  const edits = modify(base, path, value, { formattingOptions: { insertSpaces, tabSize, eol: eolOf(base) } });
  const out = applyEdits(base, edits);
  return text.trim() === '' && !out.endsWith('\n') ? `${out}\n` : out;
}

/** The value at `path`, or undefined when absent (or the text is not JSON). */
export function getJsonValue(text: string, path: JSONPath): unknown {
  let v = parseJsonc(text);
  for (const k of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<string | number, unknown>)[k];
  }
  return v;
}

/** The source text of the value at `path` (comments and layout inside it included), or undefined. */
export function getJsonRaw(text: string, path: JSONPath): string | undefined {
  const tree = parseTree(text, [], { allowTrailingComma: true });
  const node = tree && findNodeAtLocation(tree, path);
  return node ? text.slice(node.offset, node.offset + node.length) : undefined;
}

/** Sets the value at `path` to `value`, then puts `raw` (its original source text) in its place. */
export function setJsonRaw(text: string, path: JSONPath, value: unknown, raw: string | undefined): string {
  const out = setJsonValue(text, path, value);
  if (raw === undefined || value === undefined) return out;
  const tree = parseTree(out, [], { allowTrailingComma: true });
  const node = tree && findNodeAtLocation(tree, path);
  return node ? out.slice(0, node.offset) + raw + out.slice(node.offset + node.length) : out;
}
