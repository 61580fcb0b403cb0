/**
 * Text from transcripts, tool results and files, made safe to show: the one
 * sanitizer for everything Trimline prints to a terminal, and the bidi rule of
 * the HTML views (the report page, the inspector and chat webviews).
 *
 * A terminal obeys control characters: ESC starts CSI/OSC sequences that clear
 * the screen, move the cursor, retitle the window or write the clipboard; C1
 * controls (U+0080–U+009F) are the 8-bit forms of the same (U+009B is CSI);
 * a lone CR rewrites the current line. Unicode bidi controls reorder what is
 * displayed, in a terminal and in a browser alike ("Trojan Source"), so a path
 * or a command can read differently from what it is.
 *
 * THE RULE (one for every output): each unsafe code point is replaced by its
 * visible escape `\u{hex}` (lowercase hex, no padding): ESC → `\u{1b}`,
 * U+202E → `\u{202e}`, NUL → `\u{0}`. Nothing is dropped, so what was hidden
 * can be seen and reported. Unsafe code points are:
 * - C0 controls U+0000–U+001F, except `\n` and `\t` in multi-line text
 *   (`terminalSafe`); a CRLF pair counts as `\n` there; one-line fields
 *   (`terminalSafeLine`) escape `\n`, `\t` and `\r` too;
 * - DEL U+007F and the C1 controls U+0080–U+009F;
 * - bidi controls: U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069.
 * Escaping the ESC character is enough to defuse a whole CSI/OSC sequence: the
 * rest of it is printable text. The output is printable, and sanitizing it again
 * changes nothing.
 *
 * JSON output (`--json`, `--jsonl`) keeps its meaning instead: JSON.stringify
 * already escapes C0; `jsonTerminalSafe` escapes DEL, C1 and bidi as `\uXXXX`,
 * which parses back to the same strings.
 *
 * In HTML, C0/C1 controls are inert, so `bidiVisible` applies the rule to the
 * bidi controls only. Pure (no Node or DOM API): the webviews import it too.
 */

/** The bidi controls (embeddings, overrides, isolates and the implicit marks). */
const BIDI = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';
/** Unsafe in multi-line text: C0 except \t (U+0009) and \n (U+000A), DEL, C1, bidi. */
const TEXT_UNSAFE = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${BIDI}]`, 'g');
/** Unsafe in a one-line field: every C0, DEL, C1, bidi. */
const LINE_UNSAFE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${BIDI}]`, 'g');
/** Unsafe in JSON text printed to a terminal (C0 is already escaped by JSON.stringify). */
const JSON_UNSAFE = new RegExp(`[\\u007f-\\u009f${BIDI}]`, 'g');
const BIDI_ONLY = new RegExp(`[${BIDI}]`, 'g');

/** The visible escape of one code point: `\u{1b}`. */
export function visibleEscape(ch: string): string {
  return `\\u{${(ch.codePointAt(0) ?? 0).toString(16)}}`;
}

/** Multi-line text for a terminal: `\n` and `\t` kept (CRLF read as `\n`), every other unsafe code point escaped. */
export function terminalSafe(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(TEXT_UNSAFE, visibleEscape);
}

/** A one-line field (a name, a path, a table cell) for a terminal: line breaks and tabs escaped too. */
export function terminalSafeLine(text: string): string {
  return text.replace(LINE_UNSAFE, visibleEscape);
}

/**
 * JSON text (from JSON.stringify) for a terminal: DEL, C1 and bidi as `\uXXXX` escapes; it parses to the same value.
 */
export function jsonTerminalSafe(json: string): string {
  return json.replace(JSON_UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Text for an HTML view: the bidi controls escaped, everything else unchanged. */
export function bidiVisible(text: string): string {
  return text.replace(BIDI_ONLY, visibleEscape);
}
