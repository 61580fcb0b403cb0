/**
 * Reads a Messages API response as it is relayed, without holding it: the SSE events
 * (or a JSON body) give the response id, its usage (`message_start` carries the input side,
 * `message_delta.usage` is cumulative) and the stop reason. Unknown events are ignored,
 * as the API asks; partial lines wait for the next chunk.
 */
import type { CallUsage } from '../session/types';
import { usageOf } from '../import/util';

export interface ResponseFacts {
  id?: string;
  model?: string;
  usage?: CallUsage;
  stopReason?: string;
  /** An `error` event arrived (e.g. overloaded after HTTP 200). */
  error?: string;
  /** The API's `diagnostics.cache_miss_reason` (cache diagnostics beta): absent when not reported. */
  cacheMissReason?: { type: string; cache_missed_input_tokens?: number } | null;
}

/** `diagnostics.cache_miss_reason` of a message, if it has one (undefined: not reported). */
function missReasonOf(m: Record<string, unknown>): ResponseFacts['cacheMissReason'] {
  const d = m.diagnostics;
  if (!isObj(d) || !('cache_miss_reason' in d)) return undefined;
  const r = d.cache_miss_reason;
  if (r === null) return null;
  if (!isObj(r) || typeof r.type !== 'string') return undefined;
  return {
    type: r.type,
    ...(typeof r.cache_missed_input_tokens === 'number'
      ? { cache_missed_input_tokens: r.cache_missed_input_tokens }
      : {}),
  };
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

/** Merge a later usage object into what is known (message_delta repeats or extends message_start). */
function mergeUsage(known: CallUsage | undefined, raw: unknown): CallUsage | undefined {
  if (!isObj(raw)) return known;
  const next: CallUsage = { ...(known ?? { input_tokens: 0, output_tokens: 0 }) };
  if (typeof raw.input_tokens === 'number') next.input_tokens = raw.input_tokens;
  if (typeof raw.output_tokens === 'number') next.output_tokens = raw.output_tokens;
  if (typeof raw.cache_creation_input_tokens === 'number')
    next.cache_creation_input_tokens = raw.cache_creation_input_tokens;
  if (typeof raw.cache_read_input_tokens === 'number') next.cache_read_input_tokens = raw.cache_read_input_tokens;
  return next;
}

export class SseUsageReader {
  readonly facts: ResponseFacts = {};
  private buffer = '';

  /** Feed a chunk of the stream as relayed. */
  push(chunk: Buffer | string): void {
    this.buffer += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl).replace(/\r$/, '');
      this.buffer = this.buffer.slice(nl + 1);
      if (line.startsWith('data:')) this.onData(line.slice(5).trim());
    }
  }

  private onData(data: string): void {
    let ev: unknown;
    try {
      ev = JSON.parse(data);
    } catch {
      return;
    }
    if (!isObj(ev)) return;
    if (ev.type === 'message_start' && isObj(ev.message)) {
      const m = ev.message;
      if (typeof m.id === 'string') this.facts.id = m.id;
      if (typeof m.model === 'string') this.facts.model = m.model;
      this.facts.usage = mergeUsage(this.facts.usage, m.usage);
      const reason = missReasonOf(m);
      if (reason !== undefined) this.facts.cacheMissReason = reason;
    } else if (ev.type === 'message_delta') {
      this.facts.usage = mergeUsage(this.facts.usage, ev.usage);
      if (isObj(ev.delta) && typeof ev.delta.stop_reason === 'string') this.facts.stopReason = ev.delta.stop_reason;
    } else if (ev.type === 'error') {
      this.facts.error = isObj(ev.error) && typeof ev.error.message === 'string' ? ev.error.message : 'error event';
    }
  }
}

/** The same facts from a non-streaming JSON response body. */
export function factsOfJson(text: string): ResponseFacts {
  try {
    const v = JSON.parse(text) as unknown;
    if (!isObj(v) || v.type !== 'message') return {};
    const facts: ResponseFacts = {
      id: typeof v.id === 'string' ? v.id : undefined,
      model: typeof v.model === 'string' ? v.model : undefined,
      usage: usageOf(v.usage),
      stopReason: typeof v.stop_reason === 'string' ? v.stop_reason : undefined,
    };
    const reason = missReasonOf(v);
    if (reason !== undefined) facts.cacheMissReason = reason;
    return facts;
  } catch {
    return {};
  }
}
