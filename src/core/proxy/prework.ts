/**
 * The text-bound work of a big proxied request, as pure functions of bytes and plain data, so
 * that it can run in a worker thread (offload.ts) while the event loop serves other clients:
 * decoding and parsing the body, the digest of each new message, the refs of each huge tool
 * result (what its summary will name), the digests of the messages sent upstream, and the
 * upstream body's bytes. Each gives exactly what the request path computes in-line.
 */
import type { RequestBody } from '../api/wire';
import { toolResultText } from '../session/log';
import type { MessageParam } from '../session/types';
import { contentKey, KNOWN_KEY_MIN_CHARS } from '../tokens/hash';
import { hashString } from '../cache/hash';
import { blockJson } from '../cache/sim-blocks';
import type { SimBlock } from '../cache/sim-types';
import { DEFAULT_REF_PATTERNS, extractRefs } from '../trimming/refs';
import { messageDigest } from './digest';
import { messagesArray, spans, type MessageSpans } from './raw-prefix';

/** Tool results at least this long get their refs found off the event loop (shorter ones take under a ms). */
export const REFS_MIN_CHARS = 64 * 1024;

/** Which bytes of the body to parse: all, or without the known messages [open + 1, tail) (raw-prefix.ts). */
export interface ParseJob {
  readonly raw: Uint8Array;
  readonly skip?: { readonly open: number; readonly tail: number };
  /** Find the byte spans of the messages from `first` on, from byte `from` (default: the messages' `[`). */
  readonly spans?: { readonly first: number; readonly from?: number };
}

/** The refs of one huge tool result: block `block` of the parsed body's message `message`. */
export interface FoundRefs {
  readonly message: number;
  readonly block: number;
  readonly toolUseId: string;
  readonly chars: number;
  readonly refs: string[];
}

/** A huge text's content key: the text of block `block` of message `message` (`part`: of its content array). */
export interface TextKey {
  readonly message: number;
  readonly block: number;
  readonly part?: number;
  readonly key: string;
}

export interface Parsed {
  /** The parsed body (its messages without the skipped ones), or undefined when it is not JSON. */
  readonly body?: RequestBody;
  /** Digest of each message of `body.messages`, in order (none when it is not a Messages request). */
  readonly digests: string[];
  readonly refs: FoundRefs[];
  /** The token counter's keys of the huge texts (tokens/hash.ts): the event loop does not hash them again. */
  readonly keys?: TextKey[];
  /** The spans asked for (registry.ts keeps them for the next request's known prefix). */
  readonly spans?: MessageSpans;
}

/** Decode and parse a body, digest its messages and find the refs of its huge tool results. */
export function parseBody(job: ParseJob): Parsed {
  const raw = Buffer.from(job.raw.buffer, job.raw.byteOffset, job.raw.byteLength);
  const json = job.skip
    ? raw.toString('utf8', 0, job.skip.open + 1) + raw.toString('utf8', job.skip.tail)
    : raw.toString('utf8');
  let body: RequestBody;
  try {
    body = JSON.parse(json) as RequestBody;
  } catch {
    return { digests: [], refs: [] };
  }
  if (typeof body !== 'object' || body === null || !Array.isArray(body.messages))
    return { body, digests: [], refs: [] };
  const digests = messageDigests(body.messages);
  const refs = hugeResultRefs(body.messages);
  const keys = hugeTextKeys(body.messages);
  if (!job.spans) return { body, digests, refs, keys };
  const { first } = job.spans;
  const from = job.spans.from ?? messagesArray(raw);
  const found = spans(raw, from, first, first + body.messages.length);
  return { body, digests, refs, keys, spans: { first, from, spans: found } };
}

/** The huge text of a block (or of one part of its content), where the token counter measures one. */
export function hugeText(messages: readonly MessageParam[], k: Omit<TextKey, 'key'>): string | undefined {
  const m = messages[k.message];
  const b = Array.isArray(m?.content) ? m.content[k.block] : undefined;
  if (!b) return undefined;
  let text: unknown;
  if (k.part === undefined) text = b.type === 'text' ? b.text : b.type === 'tool_result' ? b.content : undefined;
  else if (b.type === 'tool_result' && Array.isArray(b.content)) {
    const p = b.content[k.part];
    text = p?.type === 'text' ? p.text : undefined;
  }
  return typeof text === 'string' && text.length >= KNOWN_KEY_MIN_CHARS ? text : undefined;
}

function hugeTextKeys(messages: readonly MessageParam[]): TextKey[] {
  const out: TextKey[] = [];
  const add = (k: Omit<TextKey, 'key'>): void => {
    const text = hugeText(messages, k);
    if (text !== undefined) out.push({ ...k, key: contentKey(text) });
  };
  messages.forEach((m, message) => {
    if (!Array.isArray(m.content)) return;
    m.content.forEach((b, block) => {
      add({ message, block });
      if (b.type === 'tool_result' && Array.isArray(b.content))
        b.content.forEach((_, part) => add({ message, block, part }));
    });
  });
  return out;
}

export function messageDigests(messages: readonly MessageParam[]): string[] {
  return messages.map((m) => messageDigest(m));
}

function hugeResultRefs(messages: readonly MessageParam[]): FoundRefs[] {
  const out: FoundRefs[] = [];
  messages.forEach((m, message) => {
    if (!Array.isArray(m.content)) return;
    m.content.forEach((b, block) => {
      if (b.type !== 'tool_result') return;
      const text = toolResultText(b);
      if (text.length < REFS_MIN_CHARS) return;
      const refs = extractRefs(text, DEFAULT_REF_PATTERNS);
      out.push({ message, block, toolUseId: b.tool_use_id, chars: text.length, refs });
    });
  });
  return out;
}

export interface Sending {
  /** Digests of `undigested` (messages of the body the verdicts have not digested yet). */
  readonly digests: string[];
  /** The upstream body's bytes, as the request path makes them. */
  readonly bytes: Uint8Array;
  /** The cache simulator's identity of each huge block of the body (cache/sim-identity.ts), by place. */
  readonly identities?: BlockIdentity[];
}

/** Block `block` of message `message` is identified by `hash` (its JSON is at least KNOWN_KEY_MIN_CHARS long). */
export interface BlockIdentity {
  readonly message: number;
  readonly block: number;
  readonly hash: [number, number];
}

function hugeBlockIdentities(messages: readonly MessageParam[]): BlockIdentity[] {
  const out: BlockIdentity[] = [];
  messages.forEach((m, message) => {
    if (!Array.isArray(m.content)) return;
    m.content.forEach((b, block) => {
      const json = blockJson(b as SimBlock);
      if (json.length >= KNOWN_KEY_MIN_CHARS) out.push({ message, block, hash: hashString(json) });
    });
  });
  return out;
}

/** What a call sends upstream: its bytes, and the digests the verdicts lack. */
export function sendBody(body: RequestBody, undigested: readonly MessageParam[]): Sending {
  const bytes = Buffer.from(JSON.stringify(body), 'utf8');
  return { digests: messageDigests(undigested), bytes, identities: hugeBlockIdentities(body.messages) };
}
