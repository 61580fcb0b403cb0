/**
 * A Claude Code session's status-line facts from the last lines of its transcript: only the
 * file's tail is read (a status line must answer in well under 100 ms, whatever the session's
 * size), and only what the calls' usage says is used — the last call's context and cache read
 * share, and the last call that read less than the one before left in the cache.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { StatusFacts } from '../../protocol/status';
import type { CacheMiss } from '../../protocol/verdicts';
import { TTL_1H_MS, TTL_5M_MS } from '../api/cache-rules';
import { contextWindow } from '../models';

/** Bytes read from the end first, and at most (when the first read holds fewer than two calls). */
export const TAIL_BYTES = 256 * 1024;
export const MAX_TAIL_BYTES = 2 * 1024 * 1024;
/** A call that reads less than this share of what the previous one left cached is a miss… */
const MISS_SHARE = 0.95;
/** …when it also misses at least this many tokens (small drifts are the client's own edits at the end). */
const MISS_MIN_TOKENS = 1024;

interface TailCall {
  readonly id: string;
  readonly model?: string;
  readonly at: number;
  readonly uncached: number;
  readonly written: number;
  readonly read: number;
  readonly wrote1h: boolean;
}

/** The fields of a transcript line the tail reads. */
interface TailLine {
  type?: unknown;
  isSidechain?: unknown;
  timestamp?: unknown;
  message?: { id?: unknown; model?: unknown; usage?: Record<string, unknown> };
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

/** The main thread's calls in `text` (JSONL lines; a cut first line is skipped), one per API message id, in order. */
export function tailCalls(text: string): TailCall[] {
  const calls = new Map<string, TailCall>();
  for (const line of text.split('\n')) {
    if (!line.includes('"usage"')) continue;
    let o: TailLine;
    try {
      o = JSON.parse(line) as typeof o;
    } catch {
      continue;
    }
    const m = o.message;
    const u = m?.usage;
    if (o.type !== 'assistant' || o.isSidechain === true || !u) continue;
    if (typeof m?.id !== 'string' || m.model === '<synthetic>') continue;
    const creation = u.cache_creation as Record<string, unknown> | undefined;
    const at = typeof o.timestamp === 'string' ? Date.parse(o.timestamp) : Number.NaN;
    calls.delete(m.id);
    calls.set(m.id, {
      id: m.id,
      model: typeof m.model === 'string' ? m.model : undefined,
      at,
      uncached: num(u.input_tokens),
      written: num(u.cache_creation_input_tokens),
      read: num(u.cache_read_input_tokens),
      wrote1h: num(creation?.ephemeral_1h_input_tokens) > 0,
    });
  }
  return [...calls.values()];
}

/** Why `b` read less than `a` left cached, from usage and times alone; undefined when it did not. */
function missOf(a: TailCall, b: TailCall): CacheMiss | undefined {
  const left = a.read + a.written;
  const missed = left - b.read;
  if (b.read >= left * MISS_SHARE || missed < MISS_MIN_TOKENS) return undefined;
  const base = { source: 'local', missedTokens: missed } as const;
  if (a.model && b.model && a.model !== b.model) return { reason: 'model_changed', ...base };
  const idle = b.at - a.at;
  const ttl = a.wrote1h ? TTL_1H_MS : TTL_5M_MS;
  if (Number.isFinite(idle) && idle > ttl) {
    return { reason: 'ttl_expired', ...base, idleMinutes: Math.round(idle / 60_000) };
  }
  return { reason: 'unexplained', ...base, where: "the transcript's usage does not say where" };
}

/** The facts of the calls in a transcript's tail. */
export function statusFromTail(text: string): StatusFacts {
  const calls = tailCalls(text);
  const last = calls.at(-1);
  let lastMiss: StatusFacts['lastMiss'];
  for (let i = calls.length - 1; i > 0 && !lastMiss; i--) {
    const miss = missOf(calls[i - 1], calls[i]);
    if (miss) lastMiss = { call: i, miss };
  }
  const context = last ? last.uncached + last.written + last.read : undefined;
  return {
    source: 'transcript',
    ...(last?.model ? { model: last.model, contextWindow: contextWindow(last.model) } : {}),
    calls: calls.length,
    contextTokens: context,
    cacheReadShare: last && context ? last.read / context : undefined,
    ...(lastMiss ? { lastMiss } : {}),
  };
}

/** The last `bytes` of a file, from the start of a line (the cut line is dropped). */
export function readTail(file: string, bytes: number): { text: string; whole: boolean } {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - bytes);
    const buf = Buffer.alloc(size - start);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, start + got);
      if (n === 0) break;
      got += n;
    }
    const text = buf.subarray(0, got).toString('utf8');
    return { text: start === 0 ? text : text.slice(text.indexOf('\n') + 1), whole: start === 0 };
  } finally {
    closeSync(fd);
  }
}

/** The facts of a transcript file from its tail (a larger tail when the first holds fewer than two calls). */
export function statusFromTranscript(file: string): StatusFacts {
  let tail = readTail(file, TAIL_BYTES);
  if (!tail.whole && tailCalls(tail.text).length < 2) tail = readTail(file, MAX_TAIL_BYTES);
  return statusFromTail(tail.text);
}
