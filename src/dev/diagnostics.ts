/**
 * The cache diagnostics beta, as the API implements it (reference, "Cache diagnostics"):
 * with the beta header `cache-diagnosis-2026-04-07` a request may carry
 * `diagnostics: {previous_message_id}`; without the header the parameter is refused (400
 * invalid_request_error). The server keeps a fingerprint of every response's request
 * (hashes and token estimates, no content) and compares the new request with the one
 * named: the first divergence in prefix order (model, tools, system, messages) is the
 * `cache_miss_reason`, null when nothing diverged; an id it does not know is
 * `previous_message_not_found`. The answer goes in `message_start.message.diagnostics`
 * (and in a non-streaming response's body). A server started with `cacheDiagnostics:
 * false` stands for an upstream without the beta (Bedrock, Vertex, a gateway): it refuses
 * the parameter even with the header.
 *
 * Its own view of the wire format, like validate.ts: nothing here is the engine's.
 */
import { createHash } from 'node:crypto';
import { blockTokens } from './tokens';
import type { MessagesBody, WireBlock } from './types';

export const CACHE_DIAGNOSIS_BETA = 'cache-diagnosis-2026-04-07';
/** Fingerprints kept (the oldest are forgotten: their ids become previous_message_not_found). */
const MAX_FINGERPRINTS = 2_000;

export interface MissReason {
  readonly type:
    | 'model_changed'
    | 'system_changed'
    | 'tools_changed'
    | 'messages_changed'
    | 'previous_message_not_found'
    | 'unavailable';
  readonly cache_missed_input_tokens: number;
}

interface Part {
  readonly hash: string;
  readonly tokens: number;
}

interface Fingerprint {
  readonly model: string;
  readonly tools: readonly Part[];
  readonly system: readonly Part[];
  readonly messages: readonly Part[];
}

/** What a request asked of the beta: nothing, a comparison, or a refusal (the 400's message). */
export type DiagnosticsAsk =
  { readonly asked: false } | { readonly asked: true; readonly previous: string | null } | { readonly error: string };

function betas(header: string | string[] | undefined): string[] {
  const v = Array.isArray(header) ? header.join(',') : (header ?? '');
  return v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Whether and how a request uses the beta (`enabled` false: an upstream without it). */
export function diagnosticsAsk(
  body: MessagesBody,
  betaHeader: string | string[] | undefined,
  enabled: boolean,
): DiagnosticsAsk {
  if (!('diagnostics' in body)) return { asked: false };
  if (!enabled || !betas(betaHeader).includes(CACHE_DIAGNOSIS_BETA))
    return { error: 'diagnostics: Extra inputs are not permitted' };
  const d = body.diagnostics;
  if (typeof d !== 'object' || d === null || Array.isArray(d))
    return { error: 'diagnostics: Input should be a valid dictionary' };
  const id = (d as { previous_message_id?: unknown }).previous_message_id;
  if (id !== null && typeof id !== 'string')
    return { error: 'diagnostics.previous_message_id: Input should be a valid string' };
  return { asked: true, previous: id };
}

function part(v: unknown): Part {
  const json = JSON.stringify(v, (key, value: unknown) => (key === 'cache_control' ? undefined : value));
  return { hash: createHash('sha256').update(json).digest('base64'), tokens: blockTokens(v as object) };
}

function fingerprint(body: MessagesBody): Fingerprint {
  const system =
    typeof body.system === 'string' ? [part({ type: 'text', text: body.system })] : (body.system ?? []).map(part);
  const blocks = (content: string | readonly WireBlock[]): readonly unknown[] =>
    typeof content === 'string' ? [{ type: 'text', text: content }] : content;
  // A string is one text block, as the API reads it.
  const messages = body.messages.map((m) => {
    const content = blocks(m.content);
    return {
      hash: part({ role: m.role, content }).hash,
      tokens: content.reduce<number>((a, b) => a + blockTokens(b as object), 0),
    };
  });
  return { model: body.model, tools: (body.tools ?? []).map(part), system, messages };
}

const sum = (parts: readonly Part[], from = 0): number => parts.slice(from).reduce((a, p) => a + p.tokens, 0);

function firstDiff(a: readonly Part[], b: readonly Part[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i].hash !== b[i].hash) return i;
  return a.length === b.length ? -1 : Math.min(a.length, b.length);
}

/** The first divergence of `next` from `prev`, with the tokens of `prev` from there on. */
function compare(prev: Fingerprint, next: Fingerprint): MissReason | null {
  const all = sum(prev.tools) + sum(prev.system) + sum(prev.messages);
  if (prev.model !== next.model) return { type: 'model_changed', cache_missed_input_tokens: all };
  if (firstDiff(prev.tools, next.tools) >= 0) return { type: 'tools_changed', cache_missed_input_tokens: all };
  const s = firstDiff(prev.system, next.system);
  if (s >= 0) return { type: 'system_changed', cache_missed_input_tokens: sum(prev.system, s) + sum(prev.messages) };
  // The new request continues the old one: only its first prev.messages.length messages must match.
  for (let i = 0; i < prev.messages.length; i++) {
    if (i >= next.messages.length || prev.messages[i].hash !== next.messages[i].hash)
      return { type: 'messages_changed', cache_missed_input_tokens: sum(prev.messages, i) };
  }
  return null;
}

/** Fingerprints by response id, and the comparison a request asks for. */
export class DiagnosticsMemory {
  private readonly prints = new Map<string, Fingerprint>();

  /** The reason for a request that named `previous` (null: the first call, nothing to compare). */
  reason(previous: string | null, body: MessagesBody): MissReason | null {
    if (previous === null) return null;
    const prev = this.prints.get(previous);
    if (!prev) return { type: 'previous_message_not_found', cache_missed_input_tokens: 0 };
    return compare(prev, fingerprint(body));
  }

  /** Keep the fingerprint of the request a response answered. */
  remember(responseId: string, body: MessagesBody): void {
    this.prints.set(responseId, fingerprint(body));
    if (this.prints.size > MAX_FINGERPRINTS) this.prints.delete(this.prints.keys().next().value as string);
  }

  clear(): void {
    this.prints.clear();
  }
}
