/**
 * The hindsight floor: what a session would cost if each call carried only what
 * that call or a later one refers to, cached perfectly. Defined on the recorded
 * log alone, independently of the engine's strategies; the identifier ruler is the
 * retention benchmark's (retention.ts), so the floor retains 100% by construction.
 *
 * At call i (request = log messages [epochStart, at)) the floor keeps:
 * 1. the client's unrecorded prefix (system prompt, tools, reminders);
 * 2. every human prompt (the non-tool_result blocks of user messages);
 * 3. the current round: the latest assistant message and what follows it (the
 *    results it waits for, or the new prompt). On models that drop earlier turns'
 *    thinking, that message's thinking is not billed once a new prompt follows it;
 * 4. every earlier tool_result in which an identifier (path, hash, id) first
 *    appeared that the model uses at call i or later (in a tool_use input or text
 *    of the response of that call).
 * Everything else (earlier assistant text, tool calls, thinking, unreferenced
 * results) is dropped. This is a token count, not a request the API would accept
 * (results kept without their tool_use).
 *
 * Pricing, "cached perfectly": a block's first send is a cache write (1.25×) when a
 * later call keeps it, plain input (1×) when none does; every later send is a read
 * (0.1×), whatever was removed before it. The shared client prefix is read on every
 * call (as in the bench). A second figure respects the 5-minute TTL: after a pause
 * of 5 minutes or more, what is sent again is written again.
 */
import { costOf } from '../../src/core/cache/cost';
import { keepsPriorThinking } from '../../src/core/models';
import { isHumanTurn } from '../../src/core/tokens';
import type { MessageParam } from '../../src/core/session/types';
import { identifiers, visibleText } from './retention';
import type { BenchSession } from './session-setup';

const FIVE_MINUTES_MS = 5 * 60_000;

export interface OracleResult {
  transcript: string;
  /** USD, perfect cache (no TTL). */
  cost: number;
  /** USD, perfect cache within the 5-minute TTL. */
  costTtl: number;
  /** Tokens sent over all calls. */
  tokens: number;
}

type Key = string;
const keyOf = (m: number, b: number): Key => `${m}:${b}`;

/**
 * For each tool_result block that first showed an identifier: the last call whose response uses one of its identifiers.
 */
function lastUses(s: BenchSession): Map<Key, number> {
  const { messages, calls } = s.imp;
  const source = new Map<string, Key>();
  const seen = new Set<string>();
  let scanned = 0;
  const last = new Map<Key, number>();
  calls.forEach((call, j) => {
    for (; scanned < call.at && scanned < messages.length; scanned++) {
      messages[scanned].blocks.forEach((b, bi) => {
        for (const id of identifiers(visibleText(b.param))) {
          if (seen.has(id)) continue;
          seen.add(id);
          if (b.kind === 'tool_result') source.set(id, keyOf(scanned, bi));
        }
      });
    }
    const out = messages[call.at];
    if (!out || out.role !== 'assistant') return;
    for (const b of out.blocks) {
      if (b.kind !== 'tool_use' && b.kind !== 'text') continue;
      for (const id of identifiers(visibleText(b.param))) {
        const src = source.get(id);
        if (src !== undefined) last.set(src, Math.max(last.get(src) ?? -1, j));
      }
    }
  });
  return last;
}

/** Blocks (by key) kept at each call, with their tokens. */
function keptPerCall(s: BenchSession): Map<Key, number>[] {
  const { messages, calls } = s.imp;
  const last = lastUses(s);
  const dropsThinking = !keepsPriorThinking(s.model);
  const params = (p: number): MessageParam => ({
    role: messages[p].role,
    content: messages[p].blocks.map((b) => b.param),
  });
  return calls.map((call, i) => {
    const kept = new Map<Key, number>();
    let latest = -1;
    for (let p = call.at - 1; p >= call.epochStart; p--)
      if (messages[p].role === 'assistant') {
        latest = p;
        break;
      }
    for (let p = call.epochStart; p < call.at; p++) {
      const m = messages[p];
      const human = isHumanTurn(params(p));
      const promptAfterLatest =
        p === latest && messages.slice(p + 1, call.at).some((x, k) => isHumanTurn(params(p + 1 + k)));
      m.blocks.forEach((b, bi) => {
        const current = latest >= 0 && p >= latest;
        const keep =
          (current &&
            !(promptAfterLatest && dropsThinking && (b.kind === 'thinking' || b.kind === 'redacted_thinking'))) ||
          (human && b.kind !== 'tool_result') ||
          (b.kind === 'tool_result' && (last.get(keyOf(p, bi)) ?? -1) >= i);
        if (keep) kept.set(keyOf(p, bi), s.tokensOf(b.param));
      });
    }
    return kept;
  });
}

export function oracle(s: BenchSession): OracleResult {
  const kept = keptPerCall(s);
  const { sharedTokens, sessionTokens } = s.clientPrefix;
  // The last call that keeps each block decides whether its first send is worth a write.
  const lastKept = new Map<Key, number>();
  kept.forEach((set, i) => {
    for (const k of set.keys()) lastKept.set(k, i);
  });
  const sentBefore = new Set<Key>();
  let cost = 0;
  let costTtl = 0;
  let tokens = 0;
  kept.forEach((set, i) => {
    const expired = i > 0 && s.requestTimes[i] - s.requestTimes[i - 1] >= FIVE_MINUTES_MS;
    const perfect = {
      input_tokens: 0,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: sharedTokens,
      output_tokens: 0,
    };
    const ttl = { ...perfect };
    const more = i + 1 < kept.length;
    // The session's part of the client prefix: written once, then read (re-written after a pause for the TTL figure).
    if (i === 0) {
      perfect[more ? 'cache_creation_input_tokens' : 'input_tokens'] += sessionTokens;
      ttl[more ? 'cache_creation_input_tokens' : 'input_tokens'] += sessionTokens;
    } else {
      perfect.cache_read_input_tokens += sessionTokens;
      ttl[expired ? (more ? 'cache_creation_input_tokens' : 'input_tokens') : 'cache_read_input_tokens'] +=
        sessionTokens;
    }
    for (const [k, n] of set) {
      const reused = (lastKept.get(k) ?? -1) > i;
      const fresh = reused ? 'cache_creation_input_tokens' : 'input_tokens';
      if (sentBefore.has(k)) {
        perfect.cache_read_input_tokens += n;
        ttl[expired ? fresh : 'cache_read_input_tokens'] += n;
      } else {
        perfect[fresh] += n;
        ttl[fresh] += n;
        sentBefore.add(k);
      }
    }
    tokens += sharedTokens + sessionTokens + [...set.values()].reduce((a, b) => a + b, 0);
    cost += costOf(perfect, s.model).total;
    costTtl += costOf(ttl, s.model).total;
  });
  return { transcript: s.name, cost, costTtl, tokens };
}
