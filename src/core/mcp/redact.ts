/**
 * Keeping secrets out of what Trimline writes down. Values that came from a
 * server's `env`, its HTTP headers or a prompted input are secrets: a server
 * that prints its environment (or echoes a token in an error) must not put
 * them into the session journal, the Trimline log or the inspector.
 */

/**
 * Shorter values are not redacted: `1`, `true`, `Bearer` would blank out ordinary words (the log uses the same floor).
 */
export const MIN_SECRET_LENGTH = 8;
/** What a secret is replaced with. */
export const REDACTED = '[redacted]';

/** The distinct values worth redacting, longest first (so a secret containing another is replaced whole). */
export function secretValues(values: Iterable<string>): string[] {
  const out = new Set<string>();
  for (const v of values) if (v.length >= MIN_SECRET_LENGTH) out.add(v);
  return [...out].sort((a, b) => b.length - a.length);
}

/** `text` with every occurrence of each secret replaced by REDACTED. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}
