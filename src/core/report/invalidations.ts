/**
 * Client invalidations: calls whose recorded usage read nothing past the system prompt although the
 * documented rules keep the messages cached. The bill model follows them as epochs (the messages are other
 * bytes from then on), and the reads that end inside the prefix tell where its shared part ends.
 */
import type { CallRecord } from '../session/types';
import type { InferredPrefix } from './bill-model';

/** A read this close to the end of the system prompt is a read of the system prompt alone. */
export const SYSTEM_READ_SLACK_TOKENS = 256;

/**
 * Calls where the recorded usage read nothing past the system prompt (the
 * client's system breakpoints) although messages were sent. Where the
 * documented rules (TTL, lookback, dropped thinking) already explain that,
 * following it changes nothing; where they do not, the client changed
 * something early in its messages that the transcript does not hold (in the
 * m-claude sessions: right after some human turns and after API errors, with
 * the cache 0.2–3 minutes warm). The bill model follows the recording there
 * for every strategy alike: the messages are other bytes from that call on.
 */
export function clientInvalidations(
  calls: readonly CallRecord[],
  systemTokens: number | ((i: number) => number),
  explained?: (i: number) => boolean,
): number[] {
  const out: number[] = [];
  calls.forEach((c, i) => {
    const u = c.usage;
    if (i === 0 || !u || explained?.(i)) return;
    const sys = typeof systemTokens === 'function' ? systemTokens(i) : systemTokens;
    const read = u.cache_read_input_tokens ?? 0;
    const total = u.input_tokens + (u.cache_creation_input_tokens ?? 0) + read;
    if (read <= sys + SYSTEM_READ_SLACK_TOKENS && total > sys + SYSTEM_READ_SLACK_TOKENS) out.push(i);
  });
  return out;
}

/**
 * Where the shared part of the system prompt ends, when the first call did not tell (it read nothing): a
 * client invalidation reads that part alone (tools and the stable system blocks, unchanged while the
 * session part and the messages are rewritten), so the first one that reads less than the whole prefix
 * splits it there. The shared part was cold at the first call: other sessions do not keep it warm.
 */
export function sharedFromInvalidations(
  prefixes: ReadonlyMap<string, InferredPrefix>,
  invalidations: readonly number[],
  calls: readonly CallRecord[],
  modelOf: (i: number) => string,
): ReadonlyMap<string, InferredPrefix> {
  // Per model, the reads that end inside the prefix. A read ends on a breakpoint, and the only one inside
  // the prefix is where the shared part ends: reads that disagree are no such read, and split nothing.
  const reads = new Map<string, number[]>();
  for (const i of invalidations) {
    const m = modelOf(i);
    const p = prefixes.get(m);
    const read = calls[i].usage?.cache_read_input_tokens ?? 0;
    if (!p || p.shared > 0 || read <= SYSTEM_READ_SLACK_TOKENS || read >= p.session - SYSTEM_READ_SLACK_TOKENS)
      continue;
    const r = reads.get(m);
    if (r) r.push(read);
    else reads.set(m, [read]);
  }
  if (!reads.size) return prefixes;
  const out = new Map(prefixes);
  for (const [m, r] of reads) {
    const p = prefixes.get(m);
    if (!p || Math.max(...r) - Math.min(...r) > SYSTEM_READ_SLACK_TOKENS) continue;
    out.set(m, { shared: r[0], sharedWarm: false, session: p.session - r[0] });
  }
  return out;
}

/** Each call's epoch: how many client invalidations happened at or before it. */
export function epochsOf(calls: number, invalidations: readonly number[]): number[] {
  const at = new Set(invalidations);
  let e = 0;
  return Array.from({ length: calls }, (_, i) => (at.has(i) ? ++e : e));
}
