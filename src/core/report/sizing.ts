/**
 * Token sizes of a recorded session's blocks, read off its usage instead of
 * a tokenizer. The recorded usage holds the exact size of every request
 * (input + cache writes + cache reads), so the difference between two calls
 * is the exact size of what was added:
 * - a response is re-sent at its output size (`output_tokens`), spread over
 *   its blocks by characters (so the thinking share is known when the API
 *   drops it);
 * - the new user blocks of a call get the rest: the call's total minus the
 *   inferred prefix minus every block already sized;
 * - the first call also fixes the prefix the transcript does not hold
 *   (tools, system, injected reminders): its total minus its messages at
 *   {@link CHARS_PER_TOKEN}.
 * Where the rest does not fit (negative, a response without usage), blocks
 * fall back to characters and the call's total no longer matches exactly:
 * the fit column shows it.
 */
import { isHumanPromptOf } from '../api/cache-rules';
import { keepsPriorThinking } from '../models';
import type { CallRecord, ImportedSession, LogBlock, LogMessage } from '../session/types';
import { totalInput } from '../session/types';
import type { BillBlock, BillMessage, InferredPrefix } from './bill-model';
import { blockChars, CHARS_PER_TOKEN, spread } from './block-chars';
import { countedBlocks, RunningSum } from './counted-blocks';
import { ModelPrefix, type EarlierPart, type EarlierRewrite } from './earlier-conversation';

export { blockChars, CHARS_PER_TOKEN, spread } from './block-chars';

/** Output tokens below characters / this are a `message_start` placeholder, not the response's size. */
const PLACEHOLDER_CHARS_PER_TOKEN = 12;
/**
 * A call whose recorded total is below the blocks already sized by more than
 * this (tokens, plus a share of the total for estimation noise in the
 * thinking split) means the client re-sent a shorter history than the
 * transcript shows (a resumed session, a hidden edit).
 */
const REWRITE_SLACK_TOKENS = 500;
const REWRITE_SLACK_SHARE = 0.02;

/**
 * Claude Code's local commands after which it starts again with a rebuilt
 * system prompt: `/exit` (the next prompt comes from a new process) and a
 * new sign-in (another account's cache). Seen in the m-claude sessions as
 * full cache misses right after them.
 */
const CLIENT_RESTART_MARKERS: readonly string[] = [
  '<command-name>/exit</command-name>',
  '<command-name>/login</command-name>',
  '<local-command-stdout>Login successful',
];

/** The message records a client restart (see {@link CLIENT_RESTART_MARKERS}). */
export function isClientRestart(m: LogMessage): boolean {
  if (m.role !== 'user') return false;
  return m.blocks.some(
    (b) =>
      b.param.type === 'text' && CLIENT_RESTART_MARKERS.some((k) => (b.param as { text: string }).text.includes(k)),
  );
}

/** A user message that holds more than tool results starts a human turn. */
export function isHumanTurn(m: LogMessage): boolean {
  return isHumanPromptOf(m.role, m.blocks, (b) => b.kind);
}

/**
 * Tokens of the placeholder a client sends for a tool result it cleared itself (`[Old tool result content cleared]`).
 */
export const CLEARED_RESULT_TOKENS = 10;

/** Tool results the client cleared itself (microcompact) from a call on. */
export interface ClearedSpan {
  /** Index of the first call whose request holds the placeholders. */
  readonly fromCall: number;
  /** Log block ids of the cleared results (and cleared attachments the transcript holds). */
  readonly blockIds: ReadonlySet<string>;
  /** For the fit note: tool results cleared, attachments the client named, and of those the ones followed. */
  readonly results?: number;
  readonly attachments?: number;
  readonly attachmentsFollowed?: number;
}

/** A call where the client sent less than the transcript holds: the block sizes (by cache id) before it shrank them. */
export interface SizeRewrite {
  readonly call: number;
  readonly tokens: number;
  readonly before: ReadonlyMap<string, number>;
}

export interface SizedSession {
  /** Every log message with inferred block sizes. */
  readonly messages: BillMessage[];
  /** The prefix of `model` (the row's main model). */
  readonly prefix: InferredPrefix;
  /**
   * The prefix of every model the session called, each read off its own first call (a side call has its own system
   * prompt).
   */
  readonly prefixes: ReadonlyMap<string, InferredPrefix>;
  /** Per call: |simulated total − recorded total| / recorded (0 where sizes fit exactly). */
  readonly totalErrors: (number | undefined)[];
  /** Calls where the client sent a shorter history than the transcript holds, by how much, and the sizes before. */
  readonly rewrites: SizeRewrite[];
  /**
   * Calls on another model than the row's that did not send this history (side requests of their own): priced as
   * recorded.
   */
  readonly foreign: number[];
  /** Per call: what it sent of an earlier conversation the transcript does not hold (earlier-conversation.ts). */
  readonly earlier: (EarlierPart | undefined)[];
  /** Calls from which that earlier conversation changed (shrank, or was dropped by a compaction). */
  readonly earlierRewrites: EarlierRewrite[];
}

/**
 * A model's prefix as the bill model sends it. A first read past the system prompt was the session's own
 * earlier conversation, warm from the calls before this file (not the client's other sessions).
 */
function inferredPrefix(p: ModelPrefix): InferredPrefix {
  const system = p.systemTokens;
  const earlier = p.split ? p.first - system : 0;
  if (earlier > 0 && p.firstRead > system)
    return { shared: 0, sharedWarm: false, session: system, earlier, warmAtStart: true };
  const shared = p.firstRead > 0 && p.firstRead <= system ? p.firstRead : 0;
  return { shared, sharedWarm: shared > 0, session: system - shared, ...(earlier > 0 ? { earlier } : {}) };
}

/** Sizes of a response's blocks from its output tokens, or undefined for a placeholder/missing usage. */
function responseSizes(m: LogMessage): number[] | undefined {
  const out = m.meta.usage?.output_tokens;
  if (out === undefined) return undefined;
  const chars = m.blocks.map((b) => blockChars(b.param));
  const total = chars.reduce((a, b) => a + b, 0);
  if (out * PLACEHOLDER_CHARS_PER_TOKEN < total) return undefined;
  return spread(out, chars);
}

/**
 * `id` is the cache identity: a kept message's copy is the block it copies (same bytes); `logId` stays the log block.
 */
function billBlock(b: LogBlock, tokens: number, id = b.id): BillBlock {
  return { id, tokens, thinking: b.kind === 'thinking' || b.kind === 'redacted_thinking', logId: b.id };
}

/** Messages of the request of `call`. */
export function requestMessages<T>(all: readonly T[], call: CallRecord): readonly T[] {
  return all.slice(call.epochStart, call.at);
}

/** Whether the request of `call` holds the log block `id`. */
function callHolds(logMsgs: readonly LogMessage[], call: CallRecord, id: string): boolean {
  for (let i = call.epochStart; i < call.at; i++) if (logMsgs[i].blocks.some((b) => b.id === id)) return true;
  return false;
}

/** The cleared block ids in force at a call (the union of every span started at or before it). */
export function clearedAt(spans: readonly ClearedSpan[], call: number): ReadonlySet<string> | undefined {
  let out: Set<string> | undefined;
  for (const s of spans) if (s.fromCall <= call) for (const id of s.blockIds) (out ??= new Set()).add(id);
  return out;
}

/**
 * Infer block sizes and the hidden prefix of an imported session from its
 * recorded usage. Each call is sized on its own model's prefix; results the
 * client cleared (`cleared`) count as their placeholder from then on.
 */
export function sizeSession(imp: ImportedSession, model: string, cleared: readonly ClearedSpan[] = []): SizedSession {
  const sizes = new Map<string, number>();
  // A copy of a kept message (partial compaction) is sized as the block it copies.
  const same = (id: string): string => imp.copiedBlocks?.get(id) ?? id;
  const logMsgs = imp.messages;
  const human = logMsgs.map(isHumanTurn);
  const prefixes = new Map<string, ModelPrefix>();
  let responsesSized = 0;
  const totalErrors: (number | undefined)[] = [];
  const rewrites: SizeRewrite[] = [];
  const foreign: number[] = [];
  const foreignAt = new Set<number>();
  const running = new RunningSum(logMsgs, human, sizes, same);
  for (const call of imp.calls) {
    for (; responsesSized < call.at; responsesSized++) {
      const m = logMsgs[responsesSized];
      if (m.role !== 'assistant') continue;
      if (foreignAt.has(responsesSized)) {
        // The response of a side request of its own: the session's requests never held it.
        for (const b of m.blocks) sizes.set(b.id, 0);
        continue;
      }
      const s = responseSizes(m);
      if (s) m.blocks.forEach((b, i) => sizes.set(b.id, s[i]));
    }
    const usage = call.usage;
    if (!usage || totalInput(usage) === 0) {
      totalErrors.push(undefined);
      continue;
    }
    const recorded = totalInput(usage);
    const callModel = call.model ?? model;
    const gone = clearedAt(cleared, call.index);
    const drops = !keepsPriorThinking(callModel);
    // The same sums as a walk over every counted block, in the same order: from the last sized call's sum when only
    // messages were added (the per-call work then grows with what is new, not with the history).
    const step = gone ? undefined : running.extend(call, drops);
    let counted: LogBlock[] | undefined;
    let known: number;
    let unsized: LogBlock[];
    if (step) {
      ({ known, unsized } = step);
    } else {
      counted = countedBlocks(logMsgs, human, call, drops).filter((b) => !gone?.has(b.id));
      known = gone ? [...gone].filter((id) => callHolds(logMsgs, call, id)).length * CLEARED_RESULT_TOKENS : 0;
      unsized = [];
      for (const b of counted) {
        const t = sizes.get(same(b.id));
        if (t === undefined) unsized.push(b);
        else known += t;
      }
    }
    const chars = unsized.map((b) => blockChars(b.param));
    const guessNew = chars.reduce((a, c) => a + c / CHARS_PER_TOKEN, 0);
    let p = prefixes.get(callModel);
    const firstOfModel = !p;
    const read = usage.cache_read_input_tokens ?? 0;
    if (!p) {
      const total = Math.max(0, recorded - known - guessNew);
      prefixes.set(callModel, (p = new ModelPrefix(callModel, total, read, call.epochStart)));
    }
    let prefixTotal = p.total(call);
    let rest = recorded - prefixTotal - known;
    if (
      callModel !== model &&
      (firstOfModel
        ? prefixTotal === 0 && recorded < known
        : rest < -(REWRITE_SLACK_TOKENS + REWRITE_SLACK_SHARE * recorded))
    ) {
      // A call on another model that did not send this history (a side request of its own): not sized from it.
      foreign.push(call.index);
      foreignAt.add(call.at);
      if (firstOfModel) prefixes.delete(callModel);
      totalErrors.push(undefined);
      continue;
    }
    const short = (): boolean => rest < -(REWRITE_SLACK_TOKENS + REWRITE_SLACK_SHARE * recorded);
    if (short() && !firstOfModel && p.rewrite(call, read, Math.max(0, recorded - known - guessNew))) {
      // The earlier conversation in the prefix changed (earlier-conversation.ts): the prefix shrinks, not the blocks.
      prefixTotal = p.total(call);
      rest = recorded - prefixTotal - known;
    }
    if (short()) {
      // The client sent less than the transcript holds: shrink what it re-sent to fit, and say so.
      const factor = Math.max(0, (recorded - prefixTotal - guessNew) / known);
      counted ??= countedBlocks(logMsgs, human, call, drops);
      running.reset();
      // The calls before it sent the sizes as they were: kept, so only this call and later ones shrink.
      const before = new Map<string, number>();
      for (const b of new Set(counted.map((x) => same(x.id)))) {
        const t = sizes.get(b);
        if (t !== undefined) sizes.set(b, t * factor);
        if (t !== undefined) before.set(b, t);
      }
      rewrites.push({ call: call.index, tokens: Math.round(-rest), before });
      known *= factor;
      rest = recorded - prefixTotal - known;
    }
    const s = unsized.length && rest >= unsized.length ? spread(rest, chars) : chars.map((c) => c / CHARS_PER_TOKEN);
    unsized.forEach((b, i) => sizes.set(same(b.id), s[i]));
    if (gone) running.reset();
    else running.sized(call, drops);
    const simulated = prefixTotal + known + s.reduce((a, x) => a + x, 0);
    totalErrors.push(Math.abs(simulated - recorded) / recorded);
  }
  const inferred = new Map<string, InferredPrefix>();
  for (const [m, p] of prefixes) inferred.set(m, inferredPrefix(p));
  return {
    messages: logMsgs.map((m, i) => ({
      role: m.role,
      humanTurn: human[i],
      clientRestart: isClientRestart(m),
      blocks: m.blocks.map((b) => billBlock(b, sizes.get(same(b.id)) ?? 0, same(b.id))),
    })),
    prefix: inferred.get(model) ?? inferred.values().next().value ?? { shared: 0, sharedWarm: false, session: 0 },
    prefixes: inferred,
    foreign,
    totalErrors,
    rewrites,
    earlier: imp.calls.map((c) => prefixes.get(c.model ?? model)?.partOf(c.index)),
    earlierRewrites: [...prefixes.values()].flatMap((p) => p.rewrites).sort((a, b) => a.call - b.call),
  };
}
