/**
 * An MCP tool result, as the model should see it (issue 11, "faithfully"):
 * - text → text; images the API accepts → image blocks;
 * - `resource_link` and embedded resources → text that keeps the URI (summaries
 *   keep URIs as references, so a later call can still name the resource);
 * - `structuredContent` → its JSON, when the server sent no text;
 * - audio, binary resources and anything unknown → a one-line note naming what was left out;
 * - `isError` → is_error.
 * Every text passes through `redact` first: a server's secrets never enter the session.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { ToolResult, ToolResultPart } from '../agent/tools/types';
import { redact } from './redact';

/** Image types the Messages API takes in an image block; others become a note. */
export const API_IMAGE_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
/** What an empty, successful result says (the API rejects empty content). */
export const EMPTY_RESULT_TEXT = '(the tool returned no content)';

type ImageMediaType = Anthropic.Base64ImageSource['media_type'];

/** Bytes of base64 data (for the notes on content left out). */
export function base64Bytes(data: string): number {
  const pad = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - pad);
}

/** A note on content that is not passed to the model. */
function leftOut(what: string, why: string): string {
  return `[${what} left out: ${why}]`;
}

/** One MCP content block → the parts the model sees. */
export function convertContent(c: ContentBlock, secrets: readonly string[]): ToolResultPart[] {
  const text = (t: string): ToolResultPart => ({ type: 'text', text: redact(t, secrets) });
  switch (c.type) {
    case 'text':
      return c.text ? [text(c.text)] : [];
    case 'image':
      if (API_IMAGE_TYPES.has(c.mimeType))
        return [{ type: 'image', source: { type: 'base64', media_type: c.mimeType as ImageMediaType, data: c.data } }];
      return [
        text(
          leftOut(
            `image (${c.mimeType}, ${base64Bytes(c.data)} bytes)`,
            'the Messages API takes only JPEG, PNG, GIF and WebP images',
          ),
        ),
      ];
    case 'audio':
      return [
        text(leftOut(`audio (${c.mimeType}, ${base64Bytes(c.data)} bytes)`, 'the Messages API does not take audio')),
      ];
    case 'resource_link': {
      const mime = c.mimeType ? ` (${c.mimeType})` : '';
      const desc = c.description ? ` — ${c.description}` : '';
      return [text(`[resource link] ${c.name}: ${c.uri}${mime}${desc}`)];
    }
    case 'resource': {
      const r = c.resource;
      const mime = r.mimeType ? ` (${r.mimeType})` : '';
      if ('text' in r && typeof r.text === 'string') return [text(`[resource] ${r.uri}${mime}\n${r.text}`)];
      const bytes = 'blob' in r && typeof r.blob === 'string' ? base64Bytes(r.blob) : 0;
      return [
        text(
          `[resource] ${r.uri}${mime} ` +
            `${leftOut(`binary content (${bytes} bytes)`, 'binary resources are not sent to the model')}`,
        ),
      ];
    }
    default: {
      const kind = (c as { type?: unknown }).type;
      return [
        text(leftOut(`content of type ${JSON.stringify(kind)}`, 'Trimline does not know how to show it to the model')),
      ];
    }
  }
}

/** The plain text of parts (images as `[image]`), for logs, the CLI and summaries. */
export function partsText(parts: readonly ToolResultPart[]): string {
  return parts.map((p) => (p.type === 'text' ? p.text : '[image]')).join('\n');
}

/** A whole MCP tool result → the agent's ToolResult (blocks only when there is an image). */
export function convertToolResult(
  result: CallToolResult | { toolResult: unknown },
  secrets: readonly string[],
): ToolResult {
  if ('toolResult' in result && !('content' in result)) {
    // Protocol 2024-10-07 servers answer with `toolResult` instead of content.
    const t = redact(JSON.stringify(result.toolResult) ?? 'null', secrets);
    return { content: t, is_error: false };
  }
  const r = result as CallToolResult;
  const parts = (r.content ?? []).flatMap((c) => convertContent(c, secrets));
  const hasText = parts.some((p) => p.type === 'text');
  if (!hasText && r.structuredContent !== undefined)
    parts.unshift({ type: 'text', text: redact(JSON.stringify(r.structuredContent, null, 2), secrets) });
  if (!parts.length) parts.push({ type: 'text', text: EMPTY_RESULT_TEXT });
  const is_error = r.isError === true;
  const content = partsText(parts);
  return parts.some((p) => p.type === 'image') ? { content, is_error, blocks: parts } : { content, is_error };
}
