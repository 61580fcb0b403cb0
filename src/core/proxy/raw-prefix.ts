/**
 * Known messages without re-reading them: a client sends the same bytes for the messages it
 * already sent (it serializes its history the same way each time); only the cache_control
 * markers it moves make recent messages differ. So the proxy keeps, per session, the previous
 * request's raw body and the byte offset where its unmarked prefix of messages ends; if the new
 * body starts with exactly those bytes (one memcmp), those messages are the same and their
 * digests are reused: per-request digest work then grows with what is new, not with the history.
 * Anything unexpected (other key order, a marker that moved further back, an edited message)
 * makes the check fail, and the caller digests everything as before.
 */

/**
 * Messages from the end in which a moving cache_control marker is expected (Claude Code: the last; Cline: the last two
 * user messages).
 */
const TAIL_WITH_MARKERS = 4;
const MARKER = Buffer.from('"cache_control"');

export interface RawPrefix {
  /** The previous request's body. */
  readonly raw: Buffer;
  /** Messages [0, count) end at byte `end` of `raw`, none of them carrying a marker that may move. */
  readonly count: number;
  readonly end: number;
  /** Offset of the `[` that opens the messages array. */
  readonly open: number;
}

/** Byte spans of the messages from index `first` on, found scanning from byte `from` (see `spans`). */
export interface MessageSpans {
  readonly first: number;
  readonly from: number;
  readonly spans: readonly (readonly [number, number])[] | undefined;
}

const WS = new Set([0x20, 0x0a, 0x0d, 0x09]);

function skipWs(b: Buffer, p: number): number {
  while (p < b.length && WS.has(b[p])) p++;
  return p;
}

/** Offset just past the JSON value starting at `p` (strings, objects, arrays, literals). */
function skipValue(b: Buffer, p: number): number {
  p = skipWs(b, p);
  const c = b[p];
  if (c === 0x22) {
    for (p++; p < b.length; p++) {
      if (b[p] === 0x5c) p++;
      else if (b[p] === 0x22) return p + 1;
    }
    return -1;
  }
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    for (; p < b.length; p++) {
      const x = b[p];
      if (x === 0x22) {
        for (p++; p < b.length && b[p] !== 0x22; p++) if (b[p] === 0x5c) p++;
      } else if (x === 0x7b || x === 0x5b) depth++;
      else if (x === 0x7d || x === 0x5d) {
        if (--depth === 0) return p + 1;
      }
    }
    return -1;
  }
  while (p < b.length && b[p] !== 0x2c && b[p] !== 0x7d && b[p] !== 0x5d && !WS.has(b[p])) p++;
  return p;
}

/** Offset of the `[` of the top-level `messages` array, or -1. */
export function messagesArray(b: Buffer): number {
  let p = skipWs(b, 0);
  if (b[p] !== 0x7b) return -1;
  p++;
  for (;;) {
    p = skipWs(b, p);
    if (b[p] !== 0x22) return -1;
    const keyEnd = skipValue(b, p);
    if (keyEnd < 0) return -1;
    const key = b.toString('utf8', p + 1, keyEnd - 1);
    p = skipWs(b, keyEnd);
    if (b[p] !== 0x3a) return -1;
    p = skipWs(b, p + 1);
    if (key === 'messages') return b[p] === 0x5b ? p : -1;
    p = skipValue(b, p);
    if (p < 0) return -1;
    p = skipWs(b, p);
    if (b[p] === 0x2c) p++;
    else return -1;
  }
}

/**
 * Byte spans [start, end) of the messages from index `first` on, scanning from `from` (just past
 * message `first - 1`, or the array's `[`). Undefined when the bytes are not what was expected.
 */
export function spans(b: Buffer, from: number, first: number, total: number): [number, number][] | undefined {
  if (from < 0) return undefined;
  const out: [number, number][] = [];
  let p = from;
  for (let i = first; i < total; i++) {
    p = skipWs(b, p);
    if (b[p] !== (i === 0 ? 0x5b : 0x2c)) return undefined;
    const start = skipWs(b, p + 1);
    const end = skipValue(b, start);
    if (end < 0) return undefined;
    out.push([start, end]);
    p = end;
  }
  return out;
}

/** How many leading messages of `raw` are byte-identical to those `prev` covers (0 when unknown). */
export function knownPrefix(prev: RawPrefix | undefined, raw: Buffer): number {
  if (!prev || raw.length < prev.end) return 0;
  return raw.compare(prev.raw, 0, prev.end, 0, prev.end) === 0 ? prev.count : 0;
}

/**
 * The prefix to remember for `raw` (whose messages number `total`), given that its first `known`
 * messages are the ones `prev` covered. Scans only the bytes after them. Undefined when the body
 * cannot be read this way (then nothing is reused next time).
 */
export function nextPrefix(
  raw: Buffer,
  total: number,
  prev: RawPrefix | undefined,
  known: number,
  given?: MessageSpans,
): RawPrefix | undefined {
  if (total === 0) return undefined;
  const reuse = prev !== undefined && known > 0 && known === prev.count;
  const open = reuse ? prev.open : messagesArray(raw);
  const from = reuse ? prev.end : open;
  if (from < 0) return undefined;
  // Spans a worker thread found from the same byte on (prework.ts) are not looked for again.
  const first = reuse ? known : 0;
  const found = given?.first === first && given.from === from ? given.spans : spans(raw, from, first, total);
  if (!found) return undefined;
  // The prefix stops before the earliest recent message that carries a marker (it may move).
  let count = total - 1;
  for (let i = Math.max(first, total - TAIL_WITH_MARKERS); i < total; i++) {
    const [s, e] = found[i - first];
    if (raw.subarray(s, e).includes(MARKER)) {
      count = i;
      break;
    }
  }
  if (count <= first) return reuse ? { raw, count: known, end: prev.end, open } : undefined;
  return { raw, count, end: found[count - 1 - first][1], open };
}

/**
 * Where the body's first `prev.count` messages are, when `raw` starts with the bytes `prev` covers:
 * the JSON without them is bytes [0, open] and [tail, end) (see elidedJson). Undefined otherwise.
 */
export function elidedSpan(prev: RawPrefix, raw: Buffer): { open: number; tail: number } | undefined {
  if (knownPrefix(prev, raw) !== prev.count || prev.count === 0) return undefined;
  const p = skipWs(raw, prev.end);
  const tail = raw[p] === 0x2c ? p + 1 : raw[p] === 0x5d ? p : -1;
  return tail < 0 ? undefined : { open: prev.open, tail };
}

/**
 * The body's JSON text without its first `prev.count` messages, when `raw` starts with the
 * bytes `prev` covers: what is left to parse is the rest of the body and the new messages,
 * not the history (decoding and parsing megabytes of known messages was most of the proxy's
 * request path). Undefined when `raw` does not start that way.
 */
export function elidedJson(prev: RawPrefix, raw: Buffer): string | undefined {
  const span = elidedSpan(prev, raw);
  return span && raw.toString('utf8', 0, span.open + 1) + raw.toString('utf8', span.tail);
}
