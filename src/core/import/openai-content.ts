/**
 * OpenAI chat message pieces → Anthropic content blocks, for the OpenAI-style
 * chat importer (openai-chat.ts): `content` as a string or an array of parts,
 * and `tool_calls[].function.arguments` (a JSON string) as a `tool_use` input.
 * Problems are returned as texts for the caller to report as issues.
 */
import type { ContentBlockParam, TextBlockParam } from '../session/types';
import { describe, isRecord, type JsonRecord } from './util';

/** Part types that carry plain text: chat completions `text`, Responses API `input_text` / `output_text`. */
const TEXT_PART_TYPES: ReadonlySet<string> = new Set(['text', 'input_text', 'output_text']);

/** A `data:image/…;base64,…` URL. */
const DATA_URL = /^data:(image\/(?:png|jpeg|gif|webp));base64,(.*)$/s;

/**
 * Blocks of a message's `content`: a string (one text block, none when
 * empty), null or missing (no blocks), or parts (text parts as text blocks,
 * `image_url` parts as image blocks; other parts left out and reported).
 */
export function contentBlocks(content: unknown, problems: string[]): ContentBlockParam[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return content.length ? [{ type: 'text', text: content }] : [];
  if (!Array.isArray(content)) {
    problems.push(`content is ${describe(content)}, expected a string, null or an array of parts: left out`);
    return [];
  }
  const out: ContentBlockParam[] = [];
  content.forEach((part: unknown, i) => {
    const text = partText(part);
    if (text !== undefined) {
      if (text.length) out.push({ type: 'text', text });
      return;
    }
    const image =
      isRecord(part) && (part.type === 'image_url' || part.type === 'input_image') ? imageBlock(part) : undefined;
    if (image) out.push(image);
    else problems.push(`content[${i}] (${partKind(part)}) is not a text or image part: left out`);
  });
  return out;
}

/** The text of a text part (`{type:'text', text}` or a bare string), else undefined. */
function partText(part: unknown): string | undefined {
  if (typeof part === 'string') return part;
  if (!isRecord(part) || typeof part.type !== 'string' || !TEXT_PART_TYPES.has(part.type)) return undefined;
  return typeof part.text === 'string' ? part.text : undefined;
}

function partKind(part: unknown): string {
  return isRecord(part) && typeof part.type === 'string' ? `type ${JSON.stringify(part.type)}` : describe(part);
}

/** `image_url: {url}` (or a bare string): base64 data URLs and http(s) URLs become image blocks. */
function imageBlock(part: JsonRecord): ContentBlockParam | undefined {
  const ref = part.image_url;
  const url = typeof ref === 'string' ? ref : isRecord(ref) && typeof ref.url === 'string' ? ref.url : undefined;
  if (!url) return undefined;
  const data = DATA_URL.exec(url);
  if (data) {
    const media = data[1] as 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
    return { type: 'image', source: { type: 'base64', media_type: media, data: data[2] } };
  }
  if (/^https?:\/\//.test(url)) return { type: 'image', source: { type: 'url', url } };
  return undefined;
}

/**
 * The content of a tool message as a `tool_result` content: the text (text
 * parts joined with newlines) when there is only text, else the blocks;
 * undefined when empty (a tool_result without content).
 */
export function toolResultContent(content: unknown, problems: string[]): string | ContentBlockParam[] | undefined {
  if (typeof content === 'string') return content.length ? content : undefined;
  const blocks = contentBlocks(content, problems);
  if (!blocks.length) return undefined;
  if (blocks.every((b) => b.type === 'text')) return (blocks as TextBlockParam[]).map((b) => b.text).join('\n');
  return blocks;
}

/** Plain text of some blocks (text blocks joined), for a tool result kept as user text. */
export function blocksText(content: string | ContentBlockParam[] | undefined): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
}

/**
 * A `tool_use` input from `function.arguments`: the parsed JSON object; an
 * empty or missing string is `{}`; an object given as such is kept; anything
 * else (broken JSON, a JSON value that is not an object) is `{ raw: "…" }`
 * with a problem.
 */
export function toolInput(args: unknown, problems: string[]): Record<string, unknown> {
  if (args === undefined || args === null || (typeof args === 'string' && !args.trim())) return {};
  if (isRecord(args)) return args;
  if (typeof args !== 'string') {
    problems.push(`arguments is ${describe(args)}, expected a JSON string: kept as {"raw": …}`);
    return { raw: JSON.stringify(args) };
  }
  try {
    const parsed: unknown = JSON.parse(args);
    if (isRecord(parsed)) return parsed;
    problems.push(`arguments are JSON ${describe(parsed)}, not an object: kept as {"raw": …}`);
  } catch (e) {
    problems.push(
      `arguments are not valid JSON (${e instanceof Error ? e.message.slice(0, 80) : String(e)}): kept as {"raw": …}`,
    );
  }
  return { raw: args };
}

/**
 * LiteLLM's `thinking_blocks` of an assistant message (Claude through an
 * OpenAI-style client): signed `thinking` and `redacted_thinking` blocks, kept
 * as they are; a block without its signature cannot be sent back and is left
 * out (reported).
 */
export function thinkingBlocks(v: unknown, problems: string[]): ContentBlockParam[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) {
    problems.push(`thinking_blocks is ${describe(v)}, expected an array: left out`);
    return [];
  }
  const out: ContentBlockParam[] = [];
  v.forEach((b: unknown, i) => {
    if (
      isRecord(b) &&
      b.type === 'thinking' &&
      typeof b.thinking === 'string' &&
      typeof b.signature === 'string' &&
      b.signature
    ) {
      out.push({ type: 'thinking', thinking: b.thinking, signature: b.signature });
    } else if (isRecord(b) && b.type === 'redacted_thinking' && typeof b.data === 'string') {
      out.push({ type: 'redacted_thinking', data: b.data });
    } else {
      problems.push(`thinking_blocks[${i}] is not a signed thinking block: left out`);
    }
  });
  return out;
}

/** Characters the Messages API allows in a tool_use id. */
const INVALID_ID_CHARS = /[^a-zA-Z0-9_-]/g;

/**
 * Hands out tool_use ids unique within the transcript: the call id when it is
 * new and valid, else the id with invalid characters replaced and a `_2`, `_3`
 * … suffix. Agent transcripts reuse ids (SWE-agent demonstrations do); the API
 * rejects a request whose tool_use ids repeat.
 */
/** True when the API accepts `id` as a tool_use id as it is. */
export function isValidToolId(id: string): boolean {
  return id.length > 0 && !/[^a-zA-Z0-9_-]/.test(id);
}

export class ToolIds {
  private readonly used = new Set<string>();

  take(wanted: string): string {
    const base = wanted.replace(INVALID_ID_CHARS, '_') || 'call';
    let id = base;
    for (let n = 2; this.used.has(id); n++) id = `${base}_${n}`;
    this.used.add(id);
    return id;
  }
}
