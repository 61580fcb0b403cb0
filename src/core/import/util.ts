/** Small shared helpers of the importers: type guards over parsed JSON and content validation. */
import type { CallUsage, ContentBlockParam, Role } from '../session/types';

export type JsonRecord = Record<string, unknown>;

export function isRecord(v: unknown): v is JsonRecord {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function isRole(v: unknown): v is Role {
  return v === 'user' || v === 'assistant';
}

/** Last path segment, for `meta.source` (`file.jsonl:12`); works for both / and \ separators. */
export function baseName(file: string): string {
  const parts = file.split(/[\\/]/);
  return parts[parts.length - 1] || file;
}

/**
 * Validate raw message content: a string, or an array of objects that each
 * have a string `type`. Returns the problem when it is neither. The blocks are
 * kept exactly as parsed (same object, same keys): the log stores the bytes we
 * were given, and the request builder decides what is sendable.
 */
export function checkContent(content: unknown): { content: string | ContentBlockParam[] } | { problem: string } {
  if (typeof content === 'string') return { content };
  if (!Array.isArray(content))
    return { problem: `content is ${describe(content)}, expected a string or an array of blocks` };
  for (let i = 0; i < content.length; i++) {
    const b: unknown = content[i];
    if (!isRecord(b) || typeof b.type !== 'string')
      return { problem: `content[${i}] is ${describe(b)}, expected a block with a "type"` };
  }
  return { content: content as ContentBlockParam[] };
}

/** Short description of a JSON value's kind for error messages. */
export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'undefined') return 'missing';
  return `a ${typeof v}`;
}

/** A copy of `block` without the listed keys; the same object when none is present (nothing to strip). */
export function withoutFields<T extends object>(block: T, fields: readonly string[]): T {
  if (!fields.some((f) => f in block)) return block;
  const copy: JsonRecord = { ...(block as JsonRecord) };
  for (const f of fields) delete copy[f];
  return copy as T;
}

/** ISO timestamp from a value that may be an ISO string or epoch milliseconds. */
export function isoTimestamp(v: unknown): string | undefined {
  if (typeof v === 'string' && v.length) return v;
  if (typeof v === 'number' && Number.isFinite(v)) return new Date(v).toISOString();
  return undefined;
}

/** The four token counts of an API usage object, or undefined when it is not one. */
export function usageOf(v: unknown): CallUsage | undefined {
  if (!isRecord(v) || typeof v.input_tokens !== 'number' || typeof v.output_tokens !== 'number') return undefined;
  const u: CallUsage = { input_tokens: v.input_tokens, output_tokens: v.output_tokens };
  if (typeof v.cache_creation_input_tokens === 'number') u.cache_creation_input_tokens = v.cache_creation_input_tokens;
  if (typeof v.cache_read_input_tokens === 'number') u.cache_read_input_tokens = v.cache_read_input_tokens;
  const split = v.cache_creation;
  if (
    isRecord(split) &&
    (typeof split.ephemeral_5m_input_tokens === 'number' || typeof split.ephemeral_1h_input_tokens === 'number')
  ) {
    u.cache_creation = {
      ...(typeof split.ephemeral_5m_input_tokens === 'number'
        ? { ephemeral_5m_input_tokens: split.ephemeral_5m_input_tokens }
        : {}),
      ...(typeof split.ephemeral_1h_input_tokens === 'number'
        ? { ephemeral_1h_input_tokens: split.ephemeral_1h_input_tokens }
        : {}),
    };
  }
  return u;
}

/**
 * A cheap print of a block: equal canonical JSON implies an equal print (so only blocks sharing a print are compared).
 */
function blockPrint(b: object): string {
  const r = b as Record<string, unknown>;
  const id = typeof r.id === 'string' ? r.id : typeof r.tool_use_id === 'string' ? r.tool_use_id : '';
  const text =
    typeof r.text === 'string'
      ? r.text
      : typeof r.thinking === 'string'
        ? r.thinking
        : typeof r.content === 'string'
          ? r.content
          : undefined;
  return `${String(r.type)}\u0000${id}\u0000${text === undefined ? '' : text.length}`;
}

/**
 * Content blocks seen so far, each with a value (e.g. the line it was first on), found again by
 * canonical JSON ({@link canonicalJson}), which is computed only for blocks whose cheap print
 * collides with an earlier one's: most blocks are never serialized.
 */
export class SeenBlocks<V> {
  private readonly byPrint = new Map<string, { block: object; value: V; json?: string }[]>();

  /** The value of an earlier block with the same canonical JSON, if any. */
  get(b: object): V | undefined {
    const bucket = this.byPrint.get(blockPrint(b));
    if (!bucket) return undefined;
    const json = canonicalJson(b);
    for (const e of bucket) if ((e.json ??= canonicalJson(e.block)) === json) return e.value;
    return undefined;
  }

  set(b: object, value: V): void {
    const print = blockPrint(b);
    const bucket = this.byPrint.get(print);
    if (bucket) bucket.push({ block: b, value });
    else this.byPrint.set(print, [{ block: b, value }]);
  }
}

/**
 * JSON text of a value with object keys sorted: equal for two parses of the
 * same block whatever order the writer put the keys in. Used to recognise a
 * content block recorded twice.
 */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (!isRecord(v)) return JSON.stringify(v) ?? 'null';
  const keys = Object.keys(v)
    .filter((k) => v[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`).join(',')}}`;
}

/**
 * The usage of one response recorded on several records (Claude Code repeats
 * it on every line of the response): the record with the largest
 * `output_tokens`, the later one on ties. Early records can hold the
 * `message_start` placeholder (`stop_reason: null`, a few output tokens);
 * streamed usage is cumulative, so the largest output count is the final
 * record's, and its input and cache counts are taken with it.
 */
export function finalUsage(values: readonly unknown[]): CallUsage | undefined {
  let best: CallUsage | undefined;
  for (const v of values) {
    const u = usageOf(v);
    if (u && (!best || u.output_tokens >= best.output_tokens)) best = u;
  }
  return best;
}
