/**
 * The protocol's cache-verdict part (issue 17): why a call read less from the prompt cache
 * than the call before it left there, computed locally from consecutive requests
 * (src/core/cache/verdict.ts) and, with cache diagnostics on, told by the API itself.
 * Kept apart from protocol.ts so the protocol-package move stays a plain move.
 */

/** Why a call missed the cache. The API's own reasons plus what only the local diff can tell. */
export type MissReason =
  | 'first_call'
  | 'ttl_expired'
  | 'model_changed'
  | 'tools_changed'
  | 'system_changed'
  | 'messages_changed'
  | 'previous_message_not_found'
  | 'unavailable'
  /** Less was read than the previous call cached, and no rule explains it (see `beyondRules`). */
  | 'unexplained';

export const MISS_REASONS: readonly MissReason[] = [
  'first_call',
  'ttl_expired',
  'model_changed',
  'tools_changed',
  'system_changed',
  'messages_changed',
  'previous_message_not_found',
  'unavailable',
  'unexplained',
];

/** Who changed the messages: the client itself, or Trimline (a trim, pin or summary it applied). */
export type ChangeSource = 'client' | 'trimline_edit';

export interface CacheMiss {
  reason: MissReason;
  /** `local`: the proxy's diff of consecutive requests; `api`: the API's cache_miss_reason. */
  source: 'local' | 'api';
  /**
   * Tokens the previous call left cached that this call did not read (the API's cache_missed_input_tokens for `api`).
   */
  missedTokens: number;
  /** messages_changed: who changed them. */
  changeSource?: ChangeSource;
  /** ttl_expired: minutes since the previous call. */
  idleMinutes?: number;
  /** Where it diverged, in words ("tools reordered: Bash, Read", "system block 2", "message 3 (user)"). */
  where?: string;
}

/** Tokens of the call's input by how they were billed (from the API's usage). */
export interface VerdictUsage {
  read: number;
  written: number;
  uncached: number;
}

export interface CallVerdict {
  /** Number of the call in the order sent, from 0, across the session's epochs. */
  call: number;
  /** Index of the call in its (epoch's) session. */
  sessionCall: number;
  /** Undefined until the response's usage arrived (or when it never did). */
  usage?: VerdictUsage;
  /** The verdict shown: the API's miss when it gave one, else the local one; null: the cache held. */
  miss: CacheMiss | null;
  /** What the local diff found (null: nothing diverged and nothing was lost). */
  local: CacheMiss | null;
  /** The API's answer: undefined when it was not asked (diagnostics off) or did not answer. */
  api?: CacheMiss | null;
  /** Where the API and the local diff disagree, in words. */
  disagreement?: string;
  /** True when the call read less than the documented rules predict (nothing diverged, the TTL had not run out). */
  beyondRules: boolean;
  /** USD the miss cost: this call's input as billed minus the same call had the missed tokens been read. */
  missCost: number;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const optNum = (v: unknown): boolean => v === undefined || num(v);
const optStr = (v: unknown): boolean => v === undefined || (typeof v === 'string' && v.length <= 1000);

export function isCacheMiss(v: unknown): v is CacheMiss {
  return (
    isObj(v) &&
    typeof v.reason === 'string' &&
    (MISS_REASONS as readonly string[]).includes(v.reason) &&
    (v.source === 'local' || v.source === 'api') &&
    num(v.missedTokens) &&
    (v.changeSource === undefined || v.changeSource === 'client' || v.changeSource === 'trimline_edit') &&
    optNum(v.idleMinutes) &&
    optStr(v.where)
  );
}

const missOrNull = (v: unknown): boolean => v === null || isCacheMiss(v);

/** Checks a verdict from the other side of the protocol (a webview, a journal line). */
export function isCallVerdict(v: unknown): v is CallVerdict {
  if (!isObj(v) || !num(v.call) || !num(v.sessionCall) || !missOrNull(v.miss) || !missOrNull(v.local)) return false;
  if (v.api !== undefined && !missOrNull(v.api)) return false;
  if (v.usage !== undefined && !(isObj(v.usage) && num(v.usage.read) && num(v.usage.written) && num(v.usage.uncached)))
    return false;
  return typeof v.beyondRules === 'boolean' && num(v.missCost) && optStr(v.disagreement);
}
