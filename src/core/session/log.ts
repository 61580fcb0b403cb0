/** Building immutable log records from raw Messages API content. */
import { classifyUserBlocks } from './client-text';
import type { BlockKind, ContentBlockParam, LogBlock, LogMessage, MessageMeta, Role } from './types';

const KNOWN_KINDS: ReadonlySet<string> = new Set([
  'text',
  'thinking',
  'redacted_thinking',
  'tool_use',
  'tool_result',
  'image',
  'document',
]);

export function blockKind(b: ContentBlockParam): BlockKind {
  return KNOWN_KINDS.has(b.type) ? (b.type as BlockKind) : 'other';
}

/** Normalize message content: a string becomes one text block. */
export function normalizeContent(content: string | readonly ContentBlockParam[]): ContentBlockParam[] {
  if (typeof content === 'string') return content.length ? [{ type: 'text', text: content }] : [];
  return [...content];
}

/**
 * Make a log message. `toolNames` maps tool_use ids to tool names so tool_result
 * blocks know which tool produced them; tool_use blocks of this message are added to it.
 */
export function makeMessage(
  id: string,
  seq: number,
  role: Role,
  content: string | readonly ContentBlockParam[],
  meta: MessageMeta = {},
  toolNames?: Map<string, string>,
): LogMessage {
  const observed = role === 'user' && meta.observation === true;
  const params = normalizeContent(content);
  // Text-form tool output of Cline-style clients, per block (the proxy sees raw content: no importer marks it).
  const output = role === 'user' ? classifyUserBlocks(params) : [];
  const blocks: LogBlock[] = params.map((param, index) => {
    const kind = blockKind(param);
    let toolName: string | undefined;
    let toolUseId: string | undefined;
    if (param.type === 'tool_use') {
      toolName = param.name;
      toolUseId = param.id;
      toolNames?.set(param.id, param.name);
    } else if (param.type === 'tool_result') {
      toolUseId = param.tool_use_id;
      toolName = toolNames?.get(param.tool_use_id);
    }
    const block: LogBlock = { id: `${id}.${index}`, messageId: id, index, kind, param, toolName, toolUseId };
    const text = output[index];
    // A client's text-form tool output: trimmed like a tool result, named by its header.
    if (text)
      return Object.freeze({ ...block, toolName: text.toolName, toolTarget: text.target, observation: true as const });
    // Environment output of a thought-action loop (MessageMeta.observation): trimmed like a tool result.
    return Object.freeze(observed && kind !== 'tool_result' ? { ...block, observation: true as const } : block);
  });
  return Object.freeze({ id, seq, role, blocks: Object.freeze(blocks), meta });
}

/** Text of a tool_result's content (strings and text blocks; other blocks by placeholder). */
export function toolResultText(b: ContentBlockParam): string {
  if (b.type !== 'tool_result') return b.type === 'text' ? b.text : '';
  const c = b.content;
  if (c === undefined) return '';
  if (typeof c === 'string') return c;
  return c.map((x) => (x.type === 'text' ? x.text : `[${x.type}]`)).join('\n');
}

/** Plain text of any block, as the estimator and searches see it. */
export function blockText(b: ContentBlockParam): string {
  switch (b.type) {
    case 'text':
      return b.text;
    case 'thinking':
      return b.thinking;
    case 'redacted_thinking':
      return b.data;
    case 'tool_use':
      return `${b.name} ${JSON.stringify(b.input)}`;
    case 'tool_result':
      return toolResultText(b);
    default:
      return JSON.stringify(b);
  }
}
