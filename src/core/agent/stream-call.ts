/**
 * One streamed model call through the SDK: deltas out as they arrive, the
 * complete message back, or the error as thrown. The SDK's accumulated
 * snapshot is kept so a cancelled call can record what was said so far.
 *
 * Response blocks become log params here, keeping only what the request
 * builder may send back (text, tool_use, thinking with its signature).
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { RequestBody } from '../api/wire';
import type { CallUsage, ContentBlockParam } from '../session/types';

export interface StreamHandlers {
  text(index: number, text: string): void;
  thinking(index: number, text: string): void;
  toolInput(index: number, toolUseId: string, name: string, partialJson: string): void;
}

export interface StreamCallResult {
  readonly message: Anthropic.Message;
  readonly requestId?: string;
}

/** A call in flight: `done` settles with the message or the SDK's error; `partial()` is the snapshot so far. */
export interface StreamingCall {
  readonly done: Promise<StreamCallResult>;
  partial(): Anthropic.Message | undefined;
}

/** Start one streamed call; aborting `signal` makes `done` reject with APIUserAbortError. */
export function startStreamCall(
  client: Anthropic,
  body: RequestBody,
  signal: AbortSignal,
  on: StreamHandlers,
): StreamingCall {
  const stream = client.messages.stream(body, { signal });
  stream.on('streamEvent', (event, snapshot) => {
    if (event.type !== 'content_block_delta') return;
    const d = event.delta;
    if (d.type === 'text_delta') on.text(event.index, d.text);
    else if (d.type === 'thinking_delta') on.thinking(event.index, d.thinking);
    else if (d.type === 'input_json_delta') {
      const block = snapshot.content[event.index];
      if (block?.type === 'tool_use') on.toolInput(event.index, block.id, block.name, d.partial_json);
    }
  });
  const done = stream.finalMessage().then((message) => ({ message, requestId: stream.request_id ?? undefined }));
  return { done, partial: () => stream.currentMessage };
}

/** Only the four usage fields that price and calibrate a call (the SDK adds more). */
export function callUsage(u: Anthropic.Usage): CallUsage {
  return {
    input_tokens: u.input_tokens,
    output_tokens: u.output_tokens,
    cache_creation_input_tokens: u.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: u.cache_read_input_tokens ?? 0,
  };
}

/** One response block as a log param; undefined for block types the loop does not send back. */
function toParam(b: Anthropic.ContentBlock): ContentBlockParam | undefined {
  switch (b.type) {
    case 'text':
      return { type: 'text', text: b.text };
    case 'tool_use':
      return { type: 'tool_use', id: b.id, name: b.name, input: b.input };
    case 'thinking':
      return { type: 'thinking', thinking: b.thinking, signature: b.signature };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: b.data };
    default:
      return undefined;
  }
}

/** A complete response's content as log params (server-tool blocks the loop never asks for are dropped). */
export function responseContent(content: readonly Anthropic.ContentBlock[]): ContentBlockParam[] {
  const out: ContentBlockParam[] = [];
  for (const b of content) {
    const p = toParam(b);
    if (p) out.push(p);
  }
  return out;
}

/**
 * What may be kept of a cut-off response: its non-empty text. Partial tool
 * inputs and unsigned thinking cannot be trusted, so they are not recorded.
 */
export function partialContent(snapshot: Anthropic.Message | undefined): ContentBlockParam[] {
  if (!snapshot) return [];
  const out: ContentBlockParam[] = [];
  for (const b of snapshot.content) if (b.type === 'text' && b.text.trim()) out.push({ type: 'text', text: b.text });
  return out;
}

/** The tool_use blocks of a response, in order. */
export function toolUses(content: readonly ContentBlockParam[]): Anthropic.ToolUseBlockParam[] {
  return content.filter((b): b is Anthropic.ToolUseBlockParam => b.type === 'tool_use');
}
