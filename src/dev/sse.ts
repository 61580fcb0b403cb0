/**
 * Turning an assistant turn into the API's response shapes.
 *
 * Streaming framing (confirmed against the SDK's own fixture
 * anthropics/anthropic-sdk-typescript tests/lib/fixtures/tool_use_response.txt
 * and the SDK parser in core/streaming.ts): each event is
 *
 *   event: <type>\ndata: <json>\n\n
 *
 * in the order message_start (empty content, input usage, output_tokens 1),
 * per block content_block_start / content_block_delta* / content_block_stop,
 * a `ping` after the first block starts, message_delta (stop_reason and the
 * cumulative usage), message_stop. tool_use blocks start with `input: {}` and
 * stream their JSON as `input_json_delta` chunks (the first one empty, as the
 * API does) cut at arbitrary points; thinking blocks stream `thinking_delta`
 * then one `signature_delta`.
 */
import { hashString } from '../core/cache/simulator';
import { seededId } from './errors';
import type { ReportedUsage, ScriptedBlock, ScriptedTurn, StopReason } from './types';

export interface SseEvent {
  readonly event: string;
  readonly data: unknown;
}

export function encodeEvent(e: SseEvent): string {
  return `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;
}

/** A content block as sent to the client, ids and signatures filled in. */
export type OutBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string };

export interface OutMessage {
  readonly id: string;
  readonly model: string;
  readonly content: readonly OutBlock[];
  readonly stopReason: StopReason;
  readonly usage: ReportedUsage & {
    readonly cache_creation: { readonly ephemeral_5m_input_tokens: number; readonly ephemeral_1h_input_tokens: number };
  };
  /** The cache diagnostics beta's answer (diagnostics.ts), when the request asked for it. */
  readonly diagnostics?: { readonly cache_miss_reason: unknown };
}

const SIGNATURE_TAG = 'trimline-test-server';

/** Signatures the server issues: opaque base64 that binds the thinking text (so edits are detectable). */
export function signThinking(thinking: string): string {
  const [a, b] = hashString(`${SIGNATURE_TAG}\u0000${thinking}`);
  return Buffer.from(JSON.stringify({ v: SIGNATURE_TAG, h: `${a.toString(16)}${b.toString(16)}` })).toString('base64');
}

/** true/false for signatures this server issued, undefined for anything else. */
export function verifyThinking(thinking: string, signature: string): boolean | undefined {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(signature, 'base64').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof decoded !== 'object' || decoded === null || (decoded as { v?: unknown }).v !== SIGNATURE_TAG)
    return undefined;
  return signThinking(thinking) === signature;
}

export function materialize(turn: ScriptedTurn, idSeed: number): { content: OutBlock[]; stopReason: StopReason } {
  let toolIndex = 0;
  const content = turn.content.map((b: ScriptedBlock): OutBlock => {
    switch (b.type) {
      case 'text':
        return { type: 'text', text: b.text };
      case 'tool_use':
        return {
          type: 'tool_use',
          id: b.id ?? seededId('toolu_', idSeed * 31 + ++toolIndex),
          name: b.name,
          input: b.input ?? {},
        };
      case 'thinking':
        return { type: 'thinking', thinking: b.thinking, signature: b.signature ?? signThinking(b.thinking) };
      case 'redacted_thinking':
        return { type: 'redacted_thinking', data: b.data };
    }
  });
  const stopReason = turn.stop_reason ?? (content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');
  return { content, stopReason };
}

/** The non-streaming response body. */
export function messageJson(msg: OutMessage): Record<string, unknown> {
  return {
    id: msg.id,
    type: 'message',
    role: 'assistant',
    model: msg.model,
    content: msg.content.map((b) => (b.type === 'text' ? { ...b, citations: null } : b)),
    stop_reason: msg.stopReason,
    stop_sequence: null,
    stop_details: null,
    usage: { ...msg.usage, service_tier: 'standard' },
    ...(msg.diagnostics ? { diagnostics: msg.diagnostics } : {}),
  };
}

/** Deterministic pseudo-random chunk sizes (mulberry32). */
export function chunker(seed: number): (text: string, min: number, max: number) => string[] {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return (text, min, max) => {
    const out: string[] = [];
    let i = 0;
    while (i < text.length) {
      let end = Math.min(text.length, i + min + Math.floor(next() * (max - min + 1)));
      // Never split a surrogate pair.
      const code = text.charCodeAt(end - 1);
      if (end < text.length && code >= 0xd800 && code <= 0xdbff) end++;
      out.push(text.slice(i, end));
      i = end;
    }
    return out;
  };
}

/** Text deltas are a few characters to a few words, like the API's. */
const TEXT_CHUNK = { min: 1, max: 24 } as const;
/** Tool input arrives in small arbitrary slices of its JSON. */
const JSON_CHUNK = { min: 1, max: 12 } as const;
const THINKING_CHUNK = { min: 8, max: 48 } as const;

export function streamEvents(msg: OutMessage, seed: number): SseEvent[] {
  const split = chunker(seed);
  const events: SseEvent[] = [];
  const u = msg.usage;
  events.push({
    event: 'message_start',
    data: {
      type: 'message_start',
      message: {
        id: msg.id,
        type: 'message',
        role: 'assistant',
        model: msg.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        stop_details: null,
        usage: {
          input_tokens: u.input_tokens,
          cache_creation_input_tokens: u.cache_creation_input_tokens,
          cache_read_input_tokens: u.cache_read_input_tokens,
          cache_creation: u.cache_creation,
          output_tokens: 1,
          service_tier: 'standard',
        },
        ...(msg.diagnostics ? { diagnostics: msg.diagnostics } : {}),
      },
    },
  });
  const delta = (index: number, d: Record<string, unknown>): SseEvent => ({
    event: 'content_block_delta',
    data: { type: 'content_block_delta', index, delta: d },
  });
  msg.content.forEach((block, index) => {
    const start = (content_block: Record<string, unknown>): void => {
      events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block } });
      if (index === 0) events.push({ event: 'ping', data: { type: 'ping' } });
    };
    switch (block.type) {
      case 'text':
        start({ type: 'text', text: '' });
        for (const part of split(block.text, TEXT_CHUNK.min, TEXT_CHUNK.max)) {
          events.push(delta(index, { type: 'text_delta', text: part }));
        }
        break;
      case 'tool_use':
        start({ type: 'tool_use', id: block.id, name: block.name, input: {} });
        events.push(delta(index, { type: 'input_json_delta', partial_json: '' }));
        for (const part of split(JSON.stringify(block.input), JSON_CHUNK.min, JSON_CHUNK.max)) {
          events.push(delta(index, { type: 'input_json_delta', partial_json: part }));
        }
        break;
      case 'thinking':
        start({ type: 'thinking', thinking: '', signature: '' });
        for (const part of split(block.thinking, THINKING_CHUNK.min, THINKING_CHUNK.max)) {
          events.push(delta(index, { type: 'thinking_delta', thinking: part }));
        }
        events.push(delta(index, { type: 'signature_delta', signature: block.signature }));
        break;
      case 'redacted_thinking':
        start({ type: 'redacted_thinking', data: block.data });
        break;
    }
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  events.push({
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: msg.stopReason, stop_sequence: null, stop_details: null },
      usage: {
        input_tokens: u.input_tokens,
        cache_creation_input_tokens: u.cache_creation_input_tokens,
        cache_read_input_tokens: u.cache_read_input_tokens,
        output_tokens: u.output_tokens,
      },
    },
  });
  events.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return events;
}

export function errorEvent(errorType: string, message: string): SseEvent {
  return { event: 'error', data: { type: 'error', error: { type: errorType, message } } };
}
