/**
 * What `trimline statusline` shows for a session (Claude Code's status line): the running proxy
 * answers it for the sessions it proxies (`GET /api/status?session=<id>`), and the CLI builds the
 * same from the tail of a transcript when no proxy has the session.
 */
import type { CacheMiss } from './verdicts';

export interface StatusFacts {
  /** Where the facts come from: the proxy that sent the calls, or the transcript's last lines. */
  readonly source: 'proxy' | 'transcript';
  readonly model?: string;
  /** Calls seen (in the tail only, for a transcript). */
  readonly calls: number;
  /** Input tokens of the last call (uncached + cache writes + cache reads): the context in use. */
  readonly contextTokens?: number;
  readonly contextWindow?: number;
  /** Share of the last call's input read from the prompt cache (0–1). */
  readonly cacheReadShare?: number;
  /** The last call that read less from the cache than the one before left there, and why. */
  readonly lastMiss?: { readonly call: number; readonly miss: CacheMiss };
  /** Input cost of the session's calls so far, USD (undefined: not known here). */
  readonly cost?: number;
  /** USD saved against sending the whole history (`none`); undefined: not measured (not proxied). */
  readonly savingVsNone?: number;
}
