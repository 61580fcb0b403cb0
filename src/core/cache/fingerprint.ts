/**
 * What of a request decides whether the next one can read the prompt cache, kept small
 * enough to hold one per session: the model, a hash per tool definition and per system
 * block, a digest per message, the TTL of the last breakpoint and when it was sent. No
 * content is kept. Hashes leave `cache_control` out: a marker's placement is not content
 * (reference, "Prompt caching"; the simulator keys prefixes the same way).
 */
import { createHash } from 'node:crypto';
import { messageDigest } from './message-digest';
import type { MessageParam } from '../session/types';
import { ttlMs } from '../api/cache-rules';

export interface ToolPrint {
  readonly name: string;
  readonly hash: string;
}

export interface RequestFingerprint {
  readonly model: string;
  readonly tools: readonly ToolPrint[];
  readonly system: readonly string[];
  /** Digest of each message as sent upstream. */
  readonly messages: readonly string[];
  /** Role of each message as sent (for "message 3 (user)"). */
  readonly roles: readonly string[];
  /** Digest of each message as the client sent it (differs from `messages` when Trimline rewrote them). */
  readonly clientMessages: readonly string[];
  /** TTL (ms) of the request's last breakpoint; undefined when it has none (nothing is cached). */
  readonly ttlMs: number | undefined;
  /** When it was sent (ms). */
  readonly at: number;
}

/** The request parts read here (a Messages API body; loose so any client's body fits). */
export interface FingerprintBody {
  readonly model: string;
  readonly tools?: readonly unknown[] | null;
  readonly system?: string | readonly unknown[] | null;
  readonly messages: readonly MessageParam[];
  readonly cache_control?: unknown;
}

function hashJson(v: unknown): string {
  const json = JSON.stringify(v, (key, value: unknown) => (key === 'cache_control' ? undefined : value));
  return createHash('sha1')
    .update(json ?? '')
    .digest('base64');
}

function ttlOf(cc: unknown): number | undefined {
  return typeof cc === 'object' && cc !== null ? ttlMs(cc) : undefined;
}

function ccOf(v: unknown): unknown {
  return typeof v === 'object' && v !== null ? (v as { cache_control?: unknown }).cache_control : undefined;
}

/** TTL of the last breakpoint in prompt order (tools → system → messages; automatic caching marks the end). */
function lastBreakpointTtl(body: FingerprintBody): number | undefined {
  const auto = ttlOf(body.cache_control);
  if (auto !== undefined) return auto;
  // Searched from the end: clients mark the tail, so this reads a few blocks, not the history.
  const last = (blocks: readonly unknown[]): number | undefined => {
    for (let i = blocks.length - 1; i >= 0; i--) {
      const ttl = ttlOf(ccOf(blocks[i]));
      if (ttl !== undefined) return ttl;
    }
    return undefined;
  };
  for (let i = body.messages.length - 1; i >= 0; i--) {
    const c = body.messages[i].content;
    const ttl = Array.isArray(c) ? last(c) : undefined;
    if (ttl !== undefined) return ttl;
  }
  return last(Array.isArray(body.system) ? body.system : []) ?? last(body.tools ?? []);
}

export interface FingerprintOptions {
  /** Digests of the client's messages when they are already known (the proxy's registry has them). */
  readonly clientDigests?: readonly string[];
  /** The messages the client sent, when the body's were rewritten by Trimline. */
  readonly clientMessages?: readonly MessageParam[];
  /** Digest cache per message object (long sessions resend the same objects). */
  readonly memo?: WeakMap<object, string>;
}

function digests(messages: readonly MessageParam[], memo: WeakMap<object, string> | undefined): string[] {
  return messages.map((m) => {
    let d = memo?.get(m);
    if (d === undefined) {
      d = messageDigest(m);
      memo?.set(m, d);
    }
    return d;
  });
}

/** The fingerprint of a request body sent at `at`. */
export function fingerprintRequest(body: FingerprintBody, at: number, o: FingerprintOptions = {}): RequestFingerprint {
  const system =
    body.system === undefined || body.system === null
      ? []
      : typeof body.system === 'string'
        ? [hashJson({ type: 'text', text: body.system })]
        : body.system.map(hashJson);
  const tools = (body.tools ?? []).map((t) => ({
    name:
      typeof t === 'object' && t !== null && typeof (t as { name?: unknown }).name === 'string'
        ? (t as { name: string }).name
        : '?',
    hash: hashJson(t),
  }));
  const sent =
    o.clientMessages === undefined && o.clientDigests ? [...o.clientDigests] : digests(body.messages, o.memo);
  const client = o.clientDigests ? [...o.clientDigests] : o.clientMessages ? digests(o.clientMessages, o.memo) : sent;
  return {
    model: body.model,
    tools,
    system,
    messages: sent,
    roles: body.messages.map((m) => m.role),
    clientMessages: client,
    ttlMs: lastBreakpointTtl(body),
    at,
  };
}
