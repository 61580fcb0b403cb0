/**
 * The cache verdict of one call: did it read what the call before it left in the prompt
 * cache, and if not, why, and what did that cost.
 *
 * Rules (reference, "Prompt caching" and "Cache diagnostics"): the prefix is tools → system →
 * messages; changing the model or any tool definition (their order included) loses
 * everything, a system block loses it from that block on, an edited message from that
 * message on; an unchanged prefix idle past its TTL is gone too. So the first place two
 * consecutive requests differ, in that order, is the reason; the usage the API reported says
 * whether it cost anything: the previous call left `read + written` tokens cached, this one
 * read `read`; the difference was missed. A miss with nothing diverged and the TTL not run
 * out is one the documented rules do not predict (`beyondRules`).
 *
 * Pure: fingerprints (fingerprint.ts), usage and the API's answer in, a verdict out.
 */
import type { CacheMiss, CallVerdict, ChangeSource, MissReason, VerdictUsage } from '../../protocol/verdicts';
import { MISS_REASONS } from '../../protocol/verdicts';
import type { CacheTtl } from '../api/wire';
import type { PriceOverrides } from '../models';
import { costOf, type PricedUsage } from './cost';
import type { RequestFingerprint } from './fingerprint';
import { TTL_1H_MS } from '../api/cache-rules';

/** The first place two consecutive requests differ, in prefix order. */
export interface Divergence {
  readonly reason: 'model_changed' | 'tools_changed' | 'system_changed' | 'messages_changed';
  readonly where: string;
  readonly changeSource?: ChangeSource;
}

/** The API's `diagnostics.cache_miss_reason`: null when nothing diverged. */
export interface ApiMissReason {
  readonly type: string;
  readonly cache_missed_input_tokens?: number;
}

export interface VerdictInput {
  readonly call: number;
  readonly sessionCall: number;
  readonly current: RequestFingerprint;
  readonly previous?: { readonly print: RequestFingerprint; readonly usage?: PricedUsage };
  /** This call's usage as the API reported it. */
  readonly usage?: PricedUsage;
  /** The API's answer: undefined when it was not asked. */
  readonly api?: ApiMissReason | null;
  readonly overrides?: PriceOverrides;
}

const MINUTE_MS = 60_000;
/**
 * How far the billed loss may exceed the API's cache_missed_input_tokens before the call
 * counts as losing more than its divergence explains: the API's figure is an estimate from
 * its fingerprint (the test server's differs from the billed one by a few tokens per message).
 */
const API_ESTIMATE_SLACK_TOKENS = 64;
const API_ESTIMATE_SLACK_SHARE = 0.1;

function firstDifference(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return -1;
}

function toolsChange(prev: RequestFingerprint, cur: RequestFingerprint): string | undefined {
  const a = prev.tools;
  const b = cur.tools;
  if (a.length === b.length && a.every((t, i) => t.hash === b[i].hash)) return undefined;
  const names = (ts: readonly { name: string }[]): string[] => ts.map((t) => t.name);
  const added = b.filter((t) => !a.some((x) => x.name === t.name)).map((t) => t.name);
  const removed = a.filter((t) => !b.some((x) => x.name === t.name)).map((t) => t.name);
  if (added.length || removed.length)
    return [added.length ? `added ${added.join(', ')}` : '', removed.length ? `removed ${removed.join(', ')}` : '']
      .filter(Boolean)
      .join('; ');
  const edited = b.filter((t) => a.some((x) => x.name === t.name && x.hash !== t.hash)).map((t) => t.name);
  if (edited.length) return `definition changed: ${edited.join(', ')}`;
  const first = firstDifference(names(a), names(b));
  const [was, now] = [names(a).slice(first).join(', '), names(b).slice(first).join(', ')];
  return `reordered from position ${first}: ${was} → ${now}`;
}

/** Whether a list of digests still starts with all of `prev` (only appended to). */
function extends_(prev: readonly string[], cur: readonly string[]): boolean {
  return cur.length >= prev.length && firstDifference(prev, cur) === -1;
}

/** The first place `cur` differs from `prev` in prefix order, or undefined when it only appends. */
export function divergence(prev: RequestFingerprint, cur: RequestFingerprint): Divergence | undefined {
  if (prev.model !== cur.model) return { reason: 'model_changed', where: `${prev.model} → ${cur.model}` };
  const tools = toolsChange(prev, cur);
  if (tools) return { reason: 'tools_changed', where: `tools ${tools}` };
  if (prev.system.length !== cur.system.length || firstDifference(prev.system, cur.system) >= 0) {
    const at = firstDifference(prev.system, cur.system);
    const block = at >= 0 ? at : Math.min(prev.system.length, cur.system.length);
    return { reason: 'system_changed', where: `system block ${block}` };
  }
  if (extends_(prev.messages, cur.messages)) return undefined;
  const at = firstDifference(prev.messages, cur.messages);
  const index = at >= 0 ? at : cur.messages.length;
  const changeSource: ChangeSource = extends_(prev.clientMessages, cur.clientMessages) ? 'trimline_edit' : 'client';
  const where = at >= 0 ? `message ${index} (${cur.roles[index] ?? '?'})` : `messages from ${index} on removed`;
  return { reason: 'messages_changed', where, changeSource };
}

function billed(u: PricedUsage): VerdictUsage {
  return {
    read: u.cache_read_input_tokens ?? 0,
    written: u.cache_creation_input_tokens ?? 0,
    uncached: u.input_tokens,
  };
}

/** The TTL the writes were billed at: the usage's split when it has one, else the request's last breakpoint. */
function writeTtl(u: PricedUsage, print: RequestFingerprint): CacheTtl {
  const split = u.cache_creation;
  if (split && (split.ephemeral_1h_input_tokens ?? 0) > (split.ephemeral_5m_input_tokens ?? 0)) return '1h';
  if (split && (split.ephemeral_5m_input_tokens ?? 0) > 0) return '5m';
  return print.ttlMs === TTL_1H_MS ? '1h' : '5m';
}

/**
 * USD the miss cost: the call's input as billed minus the same call had `missed` more
 * tokens been read (taken from what it wrote first, then from what it sent uncached).
 */
export function missCost(
  usage: PricedUsage,
  missed: number,
  model: string,
  ttl: CacheTtl,
  overrides?: PriceOverrides,
): number {
  if (missed <= 0) return 0;
  const u = billed(usage);
  const fromWrites = Math.min(missed, u.written);
  const fromInput = Math.min(missed - fromWrites, u.uncached);
  const actual = {
    input_tokens: u.uncached,
    output_tokens: 0,
    cache_creation_input_tokens: u.written,
    cache_read_input_tokens: u.read,
  };
  const warm = {
    input_tokens: u.uncached - fromInput,
    output_tokens: 0,
    cache_creation_input_tokens: u.written - fromWrites,
    cache_read_input_tokens: u.read + fromWrites + fromInput,
  };
  return Math.max(0, costOf(actual, model, ttl, overrides).total - costOf(warm, model, ttl, overrides).total);
}

/** The API's answer as a miss (null: nothing diverged). Unknown types are kept as `unavailable`. */
export function apiMiss(api: ApiMissReason | null): CacheMiss | null {
  if (api === null) return null;
  const reason = (MISS_REASONS as readonly string[]).includes(api.type) ? (api.type as MissReason) : 'unavailable';
  return { reason, source: 'api', missedTokens: Math.max(0, api.cache_missed_input_tokens ?? 0) };
}

/** Local reasons the API reports as no divergence (a TTL lapse, the first call, a loss no rule explains). */
const API_SILENT: ReadonlySet<MissReason> = new Set<MissReason>(['first_call', 'ttl_expired', 'unexplained']);
/** API answers that say nothing about the request (the local diff is shown instead). */
const API_UNKNOWING: ReadonlySet<MissReason> = new Set<MissReason>(['previous_message_not_found', 'unavailable']);

/** Where the API's answer and the local diff disagree, in words; undefined when they agree. */
/** A local miss as a verdict says it: the reason, and where when known. */
function localFinding(local: CacheMiss): string {
  return `${local.reason}${local.where ? ` (${local.where})` : ''}`;
}

export function disagreement(local: CacheMiss | null, api: CacheMiss | null | undefined): string | undefined {
  if (api === undefined) return undefined;
  if (api && API_UNKNOWING.has(api.reason))
    return local ? `the API could not compare (${api.reason}); the local diff found ${local.reason}` : undefined;
  if (api && local && api.reason !== local.reason)
    return `the API reports ${api.reason}; the local diff found ${localFinding(local)}`;
  if (api && !local)
    return `the API reports ${api.reason} (${api.missedTokens} tokens); the local diff found nothing that changed`;
  if (!api && local && !API_SILENT.has(local.reason))
    return `the local diff found ${localFinding(local)}; the API reports no divergence`;
  return undefined;
}

/** The local miss: what diverged (or the TTL, or nothing) and what the usage says was lost. */
function localMiss(
  i: VerdictInput,
  missed: number | undefined,
  div: Divergence | undefined,
): { miss: CacheMiss | null; beyondRules: boolean } {
  const prev = i.previous;
  if (!prev) return { miss: { reason: 'first_call', source: 'local', missedTokens: 0 }, beyondRules: false };
  // Known usage that lost nothing: whatever changed lay past the cached prefix.
  if (missed === 0) return { miss: null, beyondRules: false };
  if (div)
    return {
      miss: {
        reason: div.reason,
        source: 'local',
        missedTokens: missed ?? 0,
        where: div.where,
        ...(div.changeSource ? { changeSource: div.changeSource } : {}),
      },
      beyondRules: false,
    };
  const idle = i.current.at - prev.print.at;
  if (prev.print.ttlMs !== undefined && idle > prev.print.ttlMs) {
    return {
      miss: {
        reason: 'ttl_expired',
        source: 'local',
        missedTokens: missed ?? 0,
        idleMinutes: Math.round((idle / MINUTE_MS) * 10) / 10,
      },
      beyondRules: false,
    };
  }
  if (missed === undefined) return { miss: null, beyondRules: false };
  return {
    miss: {
      reason: 'unexplained',
      source: 'local',
      missedTokens: missed,
      where: 'nothing diverged and the TTL had not run out',
    },
    beyondRules: true,
  };
}

/** The verdict of one call (see the file comment). */
export function cacheVerdict(i: VerdictInput): CallVerdict {
  const prevUsage = i.previous?.usage;
  const missed =
    i.usage && prevUsage
      ? Math.max(0, billed(prevUsage).read + billed(prevUsage).written - billed(i.usage).read)
      : undefined;
  const div = i.previous ? divergence(i.previous.print, i.current) : undefined;
  const { miss: local, beyondRules } = localMiss(i, missed, div);
  let api = i.api === undefined ? undefined : apiMiss(i.api);
  // Both saw the same divergence, and the usage says it lay past the cached prefix: no miss.
  const harmless = api && !local && div?.reason === api.reason && missed === 0;
  // The API names the reason; the local diff knows where and who.
  if (api && local && api.reason === local.reason) api = { ...local, ...api, missedTokens: api.missedTokens };
  const shown = harmless ? null : api && !API_UNKNOWING.has(api.reason) ? api : (local ?? api ?? null);
  // The API's estimate is what its divergence can lose at most; losing clearly more is beyond the rules too.
  const beyondApi =
    api !== undefined &&
    api !== null &&
    !API_UNKNOWING.has(api.reason) &&
    missed !== undefined &&
    missed > api.missedTokens + Math.max(API_ESTIMATE_SLACK_TOKENS, api.missedTokens * API_ESTIMATE_SLACK_SHARE);
  const lost = shown ? (missed ?? shown.missedTokens) : 0;
  const cost =
    i.usage && lost > 0 ? missCost(i.usage, lost, i.current.model, writeTtl(i.usage, i.current), i.overrides) : 0;
  const verdict: CallVerdict = {
    call: i.call,
    sessionCall: i.sessionCall,
    miss: shown,
    local,
    beyondRules: beyondRules || beyondApi,
    missCost: cost,
  };
  if (i.usage) verdict.usage = billed(i.usage);
  if (api !== undefined) verdict.api = api;
  const disagree = harmless ? undefined : disagreement(local, api);
  if (disagree) verdict.disagreement = disagree;
  return verdict;
}
