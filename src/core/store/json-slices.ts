/**
 * JSON.stringify in slices: the pieces `jsonPieces` yields, joined, are exactly `JSON.stringify(value)`,
 * but a string longer than a slice is escaped a slice at a time, so a caller can write a record holding a
 * 20 MB tool result over several event-loop turns (journal-writer.ts) instead of in one block.
 */

/** Characters of a long string escaped per piece (≈ 2–3 ms of JSON.stringify). */
export const SLICE_CHARS = 1 << 20;

const skipped = (v: unknown): boolean => v === undefined || typeof v === 'function' || typeof v === 'symbol';

/** Plain data JSON.stringify writes member by member (no toJSON, no boxed primitive, no class instance). */
function plain(v: object): boolean {
  if (Array.isArray(v)) return true;
  const proto: unknown = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';
}

/** Whether `value` holds a string longer than `slice` anywhere JSON.stringify would write it out member by member. */
function holdsLong(value: unknown, slice: number): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (v.length > slice) return true;
    } else if (typeof v === 'object' && v !== null && plain(v)) {
      for (const child of Object.values(v)) stack.push(child);
    }
  }
  return false;
}

/** The pieces of `JSON.stringify(value)`; a string longer than `slice` chars comes in pieces of about `slice`. */
export function* jsonPieces(value: unknown, slice = SLICE_CHARS): Generator<string> {
  const step = Math.max(2, slice);
  if (!holdsLong(value, step)) {
    yield JSON.stringify(value);
    return;
  }
  if (typeof value === 'string') {
    yield* stringPieces(value, step);
    return;
  }
  // holdsLong only walks plain objects and arrays: `value` is one.
  const v = value as Record<string, unknown>;
  if (Array.isArray(v)) {
    yield '[';
    for (let i = 0; i < v.length; i++) {
      if (i > 0) yield ',';
      const item: unknown = v[i];
      if (skipped(item)) yield 'null';
      else yield* jsonPieces(item, step);
    }
    yield ']';
    return;
  }
  yield '{';
  let first = true;
  for (const k of Object.keys(v)) {
    const member = v[k];
    if (skipped(member)) continue;
    yield `${first ? '' : ','}${JSON.stringify(k)}:`;
    first = false;
    yield* jsonPieces(member, step);
  }
  yield '}';
}

/**
 * A long string's JSON, `step` chars at a time. A slice never ends between the two halves of a surrogate pair
 * (JSON.stringify escapes a lone half, a whole pair it keeps), so the pieces are the whole string's JSON.
 */
function* stringPieces(s: string, step: number): Generator<string> {
  for (let i = 0; i < s.length;) {
    let end = Math.min(i + step, s.length);
    const last = s.charCodeAt(end - 1);
    if (end < s.length && last >= 0xd800 && last <= 0xdbff) end--;
    const json = JSON.stringify(s.slice(i, end));
    const head = i === 0 ? 0 : 1;
    const tail = end === s.length ? json.length : json.length - 1;
    yield json.slice(head, tail);
    i = end;
  }
}
