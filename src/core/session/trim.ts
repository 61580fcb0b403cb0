/** What a trim overlay sends in place of a block. */
import type { ContentBlockParam } from './types';

/** The block as sent under a trim: tool results keep id and is_error; text keeps its type. */
export function applyTrim(param: ContentBlockParam, text: string): ContentBlockParam {
  if (param.type === 'tool_result') {
    const out: ContentBlockParam = { type: 'tool_result', tool_use_id: param.tool_use_id, content: text };
    if (param.is_error !== undefined) out.is_error = param.is_error;
    return out;
  }
  if (param.type === 'tool_use') return { type: 'tool_use', id: param.id, name: param.name, input: trimmedInput(text) };
  return { type: 'text', text };
}

/**
 * A trim of a tool_use carries the replacement input as a JSON object (see
 * trimming/compact-input.ts); any other text is wrapped so the input stays an object.
 */
function trimmedInput(text: string): Record<string, unknown> {
  if (text.startsWith('{')) {
    try {
      const v = JSON.parse(text) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
    } catch {
      // not JSON: wrapped below
    }
  }
  return { trimmed: text };
}
