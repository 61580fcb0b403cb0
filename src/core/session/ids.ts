/** Ids of log records, overlays and calls. */
let counter = 0;
/** Unique id for records made in this process (journal dedupe relies on uniqueness). */
export function newId(prefix: string): string {
  counter = (counter + 1) % 0x7fffffff;
  return `${prefix}_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}${counter.toString(36)}`;
}
