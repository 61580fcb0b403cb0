/**
 * What a Claude Code version changes between what it records and what it sends (reference,
 * "What real clients send and record"), so a replay with `none` sends what the client sent.
 * One function per quirk, each with the versions that have it and a regression test named
 * after it (test/unit/import/claude-code-quirks.test.ts).
 */
import type { ContentBlockParam } from '../session/types';

/** `major.minor.patch` of a line's `version`, or undefined. */
function parseVersion(v: unknown): readonly [number, number, number] | undefined {
  const m = typeof v === 'string' ? /^(\d+)\.(\d+)\.(\d+)/.exec(v) : null;
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

/** `version` is at least `min`. */
export function versionAtLeast(version: unknown, min: readonly [number, number, number]): boolean {
  const v = parseVersion(version);
  if (!v) return false;
  for (let i = 0; i < 3; i++) if (v[i] !== min[i]) return v[i] > min[i];
  return true;
}

/**
 * Claude Code 2.1.332 (run 2026-11-28) sends a tool_result's text with its trailing whitespace
 * removed, while its transcript keeps it (`…\n8\t` recorded, `…\n8` sent). Earlier versions
 * sent the text as recorded.
 */
export const TRIMS_TOOL_RESULT_TRAILING_WHITESPACE: readonly [number, number, number] = [2, 1, 332];

/** The tool_result as that version sent it: string content, or the last text block, without trailing whitespace. */
export function toolResultAsSent(b: ContentBlockParam, version: unknown): ContentBlockParam {
  if (b.type !== 'tool_result' || !versionAtLeast(version, TRIMS_TOOL_RESULT_TRAILING_WHITESPACE)) return b;
  const c = b.content;
  if (typeof c === 'string') {
    const t = c.trimEnd();
    // Whitespace alone stays as recorded: what the client sends for it is not known.
    return t === c || t === '' ? b : { ...b, content: t };
  }
  if (!Array.isArray(c) || !c.length) return b;
  const last = c[c.length - 1];
  if (last.type !== 'text') return b;
  const t = last.text.trimEnd();
  return t === last.text || t === '' ? b : { ...b, content: [...c.slice(0, -1), { ...last, text: t }] };
}
