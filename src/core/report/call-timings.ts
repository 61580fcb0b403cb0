/**
 * When each recorded call reached the cache and with which TTLs: the clock and the breakpoint TTLs the bill
 * model replays a session on (fit.ts).
 */
import type { CallRecord } from '../session/types';
import type { RecordedCall } from '../import/recorded';

/**
 * How long past its TTL a cache entry was still read, in the recorded sessions: 5-minute entries were
 * read up to 5 min 6 s after the end of the response that last used them (request time: the client's last
 * line before the call), and missed from 5 min 21 s on (entire-dev, the half the fit was tuned on).
 */
export const TTL_SLACK_MS = 15_000;

export interface CallTiming {
  /**
   * When the request reached the cache (the client's last line before it, less {@link TTL_SLACK_MS}); else its
   * response's first line.
   */
  readonly now: number;
  /** When the entries it used start their TTL again: the end of its response (its last line). */
  readonly refresh: number;
  /** TTL of the message breakpoint. */
  readonly ttl: '5m' | '1h';
  /** TTL of the system-prompt breakpoints. */
  readonly systemTtl: '5m' | '1h';
}

/**
 * Time of each call: its response's first line (else previous + 1 s). The
 * message before it is no better a clock: a merged user message carries the
 * time of its first line, minutes before the request when the user typed
 * after tool results.
 *
 * TTL per breakpoint, from the recorded write split: the API requires
 * longer-TTL breakpoints before shorter ones, so a call that wrote both
 * 1-hour and 5-minute tokens had its system breakpoints at 1 h and its message
 * breakpoint at 5 m; a call that wrote only 1-hour tokens had 1 h on the
 * message breakpoint (and the system ones before it); only 5-minute writes
 * set the message breakpoint to 5 m. A call that wrote nothing keeps the last
 * known TTLs (Claude Code does not change them mid-session).
 */
export function callTimings(calls: readonly CallRecord[], recorded: ReadonlyMap<string, RecordedCall>): CallTiming[] {
  let now = 0;
  let ttl: '5m' | '1h' = '5m';
  let systemTtl: '5m' | '1h' = '5m';
  return calls.map((c) => {
    const r = c.apiMessageId ? recorded.get(c.apiMessageId) : undefined;
    const t = c.timestamp ? Date.parse(c.timestamp) : NaN;
    const sent = r?.requestTimestamp ? Date.parse(r.requestTimestamp) : NaN;
    const done = r?.endTimestamp ? Date.parse(r.endTimestamp) : NaN;
    now =
      Number.isFinite(sent) && sent <= (Number.isFinite(t) ? t : Infinity)
        ? sent - TTL_SLACK_MS
        : Number.isFinite(t)
          ? t
          : now + 1000;
    const refresh = Number.isFinite(done) && done >= now ? done : now;
    const split =
      r?.usage.cache_creation ??
      (
        c.usage as
          { cache_creation?: { ephemeral_5m_input_tokens?: number; ephemeral_1h_input_tokens?: number } } | undefined
      )?.cache_creation;
    const w1h = split?.ephemeral_1h_input_tokens ?? 0;
    const w5m = split?.ephemeral_5m_input_tokens ?? 0;
    if (w1h > 0 && w5m > 0) [systemTtl, ttl] = ['1h', '5m'];
    else if (w1h > 0) [systemTtl, ttl] = ['1h', '1h'];
    else if (w5m > 0) ttl = '5m';
    return { now, refresh, ttl, systemTtl };
  });
}
