/** The short text that replaces an old tool result: tool name, status, size, reference ids, a marker. */
import { toolResultText } from '../session/log';
import type { ContentBlockParam } from '../session/types';
import { DEFAULT_REF_PATTERNS, defaultRefsOf, extractRefs, isDefaultPatterns, type RefPattern } from './refs';

/** Every trimmed text starts with this, so the model (and a reader) knows it is not the original. */
export const TRIM_MARKER = '[trimmed by Trimline';

/**
 * Signs of failure in a tool result's text when the tool did not set is_error. `has`: texts of which a match holds one
 * (looked for first: most texts hold none, and `includes` is cheaper than the regex).
 */
const ERROR_SIGNS: readonly { readonly re: RegExp; readonly has?: readonly string[] }[] = [
  { re: /^\s*(error|fatal|exception)\b/i },
  { re: /<tool_use_error>/, has: ['<tool_use_error>'] },
  { re: /Traceback \(most recent call last\)/, has: ['Traceback (most recent call last)'] },
  { re: /\bexit(?:ed with)? code [1-9]\d*/i },
  { re: /\bcommand not found\b/, has: ['command not found'] },
  {
    re: /\bENOENT\b|\bEACCES\b|\bNo such file or directory\b/,
    has: ['ENOENT', 'EACCES', 'No such file or directory'],
  },
  // mini-swe-agent's observation template with a failing exit status.
  { re: /^<returncode>[1-9]\d*<\/returncode>/ },
];

/** Characters of a result's text looked at for {@link ERROR_SIGNS}. */
const STATUS_HEAD_CHARS = 2000;

/** `text`: the block's {@link toolResultText}, when the caller has it already. */
export function resultStatus(b: ContentBlockParam, text?: string): 'OK' | 'ERROR' {
  if (b.type === 'tool_result' && b.is_error !== undefined) return b.is_error ? 'ERROR' : 'OK';
  const head = (text ?? toolResultText(b)).slice(0, STATUS_HEAD_CHARS);
  const signed = ERROR_SIGNS.some(({ re, has }) => (!has || has.some((h) => head.includes(h))) && re.test(head));
  return signed ? 'ERROR' : 'OK';
}

export interface SummaryOptions {
  readonly toolName?: string;
  readonly refPatterns?: readonly RefPattern[];
  /** Most reference ids to keep; the rest are counted. */
  readonly maxRefs: number;
  /** Characters of the first meaningful line kept as a preview. */
  readonly previewChars: number;
  /** Why, in a few words (shown to the model after the marker). */
  readonly label: string;
}

/** Lines that say nothing as a preview (line-number gutters, blank, fences). */
function firstMeaningfulLine(text: string): string {
  for (const raw of text.split('\n', 40)) {
    const line = raw.replace(/^\s*\d+[→\t|:]\s?/, '').trim();
    if (line.length > 2 && !/^[`~-]{3,}$/.test(line)) return line;
  }
  return '';
}

/** Lines of a text (newlines + 1), counted without splitting it. */
function lineCount(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

export function summarizeToolResult(b: ContentBlockParam, o: SummaryOptions): string {
  const text = toolResultText(b);
  const lines = text ? lineCount(text) : 0;
  const patterns = o.refPatterns ?? DEFAULT_REF_PATTERNS;
  const refs = isDefaultPatterns(patterns) ? defaultRefsOf(b, () => text) : extractRefs(text, patterns);
  const kept = refs.slice(0, o.maxRefs);
  const more = refs.length - kept.length;
  let preview = firstMeaningfulLine(text);
  if (preview.length > o.previewChars) preview = `${preview.slice(0, o.previewChars)}…`;
  const parts = [
    `${TRIM_MARKER}: ${o.label}; original restorable]`,
    `${o.toolName ?? 'tool'} [${resultStatus(b, text)}] ${lines} lines, ${text.length} chars`,
  ];
  if (preview) parts.push(`first line: ${preview}`);
  if (kept.length) parts.push(`refs: ${kept.join(' ')}${more > 0 ? ` (+${more} more)` : ''}`);
  return parts.join('\n');
}
