/** Ids of log records, overlays and calls. */
let counter = 0;
/**
 * This process's stamp: its start time and random characters, made once (formatting a time and
 * a random number in base 36 on every id was a measurable part of applying a trim).
 */
const STAMP = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
/** Unique id for records made in this process and apart from other processes' (journal dedupe relies on uniqueness). */
export function newId(prefix: string): string {
  counter = (counter + 1) % 0x7fffffff;
  return `${prefix}_${STAMP}${counter.toString(36)}`;
}
