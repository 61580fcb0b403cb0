/**
 * Compacting an old tool_use input (a Write's file content, an Edit's old/new text):
 * short fields (paths, commands, flags) stay as they are, long values become a marker
 * with their size. The trim overlay stores the compacted input as JSON; the session
 * turns it back into the block's `input` (see applyTrim), so the call stays valid.
 */
import { TRIM_MARKER } from './summary-text';

function describe(v: unknown): string {
  if (typeof v === 'string') return `${TRIM_MARKER}: ${v.length} chars, ${v.split('\n').length} lines]`;
  const json = JSON.stringify(v) ?? '';
  return `${TRIM_MARKER}: ${Array.isArray(v) ? `${v.length} items, ` : ''}${json.length} chars]`;
}

/** The compacted input, or undefined when nothing in it is longer than `maxChars`. */
export function compactInput(input: unknown, maxChars: number): Record<string, unknown> | undefined {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return undefined;
  const out: Record<string, unknown> = {};
  let changed = false;
  for (const [k, v] of Object.entries(input as Record<string, unknown>)) {
    const size = typeof v === 'string' ? v.length : (JSON.stringify(v) ?? '').length;
    if (size > maxChars) {
      out[k] = describe(v);
      changed = true;
    } else out[k] = v;
  }
  return changed ? out : undefined;
}
