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
import { isHumanPromptOf, isThinkingType, thinkingDropIndex, thinkingDroppedIn } from '../api/cache-rules';
import { keepsPriorThinking } from '../models';
import type { CallRecord, ContentBlockParam, ImportedSession, LogBlock, LogMessage } from '../session/types';
import { totalInput } from '../session/types';
import type { BillBlock, BillMessage, InferredPrefix } from './bill-model';

/**
 * Characters per token when nothing better is known (the first prompt, blocks
 * without usage). Measured on the m-claude transcripts: tool results and
 * prose run 3–4 characters per Claude token; only the first call's few
 * hundred tokens of prompt depend on it.
 */
export const CHARS_PER_TOKEN = 3.5;
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
/** Rough size of an image in the transcript when no usage tells (about a 1000×1000 picture / 750). */
const IMAGE_TOKENS = 1_500;

/** {@link blockChars} per param object (params are never mutated; a tool input's JSON is built once). */
const charsOf = new WeakMap<object, number>();

/** Characters that stand for a block's content (for spreading a known size over blocks). */
export function blockChars(p: ContentBlockParam): number {
  let n = charsOf.get(p);
  if (n === undefined) charsOf.set(p, (n = countChars(p)));
  return n;
}

function countChars(p: ContentBlockParam): number {
  switch (p.type) {
    case 'text':
      return p.text.length;
    case 'thinking':
      return p.thinking.length;
    case 'redacted_thinking':
      return p.data.length / 4;
    case 'tool_use':
      return p.name.length + JSON.stringify(p.input ?? {}).length;
    case 'tool_result': {
      const c = p.content;
      if (typeof c === 'string') return c.length;
      if (!c) return 1;
      let n = 0;
      for (const b of c)
        n +=
          b.type === 'text'
            ? b.text.length
            : b.type === 'image'
              ? IMAGE_TOKENS * CHARS_PER_TOKEN
              : JSON.stringify(b).length;
      return n;
    }
    case 'image':
      return IMAGE_TOKENS * CHARS_PER_TOKEN;
    default:
      return JSON.stringify(p).length;
  }
}

/** Split `total` tokens over blocks in proportion to their characters (each at least 1 when total allows). */
export function spread(total: number, chars: readonly number[]): number[] {
  const sum = chars.reduce((a, b) => a + Math.max(1, b), 0);
  return chars.map((c) => (total * Math.max(1, c)) / sum);
}

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

/** The blocks of a call's request the API counts (earlier turns' thinking left out for models that drop it). */
function countedBlocks(
  logMsgs: readonly LogMessage[],
  human: readonly boolean[],
  call: CallRecord,
  dropsThinking: boolean,
): LogBlock[] {
  const dropBefore = thinkingDropIndex((i) => human[i], call.epochStart, call.at, dropsThinking);
  const out: LogBlock[] = [];
  for (let i = call.epochStart; i < call.at; i++) {
    const m = logMsgs[i];
    const drop = thinkingDroppedIn(m.role, i, dropBefore);
    for (const b of m.blocks) if (!(drop && isThinkingType(b.kind))) out.push(b);
  }
  return out;
}

/**
 * The sum of the sizes of the blocks a call counts ({@link countedBlocks}), carried from the
 * last sized call to the next when the next only adds messages to the same epoch and drops
 * the same thinking. Exactly the sum a walk over every block gives: the same additions in the
 * same order (all earlier blocks are sized by then, and their sizes do not change until a
 * rewrite, which resets it).
 */
class RunningSum {
  /** After the last sized call: its window, where its thinking stopped counting, the sum of every counted block. */
  private last?: {
    epochStart: number;
    at: number;
    drops: boolean;
    dropBefore: number;
    lastHuman: number;
    known: number;
  };

  constructor(
    private readonly msgs: readonly LogMessage[],
    private readonly human: readonly boolean[],
    private readonly sizes: ReadonlyMap<string, number>,
    private readonly same: (id: string) => string,
  ) {}

  /**
   * The call's window against the last sized one: whether it only adds messages to it, its last human
   * turn (found among the new messages when it does) and where its thinking stops counting.
   */
  private window(call: CallRecord, drops: boolean): { follows: boolean; lastHuman: number; dropBefore: number } {
    const l = this.last;
    const follows = l !== undefined && l.epochStart === call.epochStart && l.drops === drops && call.at >= l.at;
    // The thinking rule over the new messages only (cache/rules.ts); the last sized call's prompt when none is new.
    const start = follows ? Math.max(l.at, call.epochStart) : call.epochStart;
    const found = thinkingDropIndex((i) => this.human[i], start - 1, call.at, drops);
    const lastHuman = drops && found >= start ? found : follows ? l.lastHuman : -1;
    const dropBefore = drops && lastHuman > call.epochStart ? lastHuman : call.epochStart;
    return { follows: follows && l.dropBefore === dropBefore, lastHuman: drops ? lastHuman : -1, dropBefore };
  }

  /**
   * `known` plus the sizes of the counted blocks of messages [from, to), in order; blocks without a size go to
   * `unsized`.
   */
  private add(known: number, from: number, to: number, dropBefore: number, unsized?: LogBlock[]): number {
    for (let i = from; i < to; i++) {
      const m = this.msgs[i];
      const drop = thinkingDroppedIn(m.role, i, dropBefore);
      for (const b of m.blocks) {
        if (drop && isThinkingType(b.kind)) continue;
        const t = this.sizes.get(this.same(b.id));
        if (t !== undefined) known += t;
        else unsized?.push(b);
      }
    }
    return known;
  }

  /**
   * For a call that only adds messages since the last sized one: the sum over the sized counted blocks and the unsized
   * ones.
   */
  extend(call: CallRecord, drops: boolean): { known: number; unsized: LogBlock[] } | undefined {
    const w = this.window(call, drops);
    if (!w.follows) return undefined;
    const unsized: LogBlock[] = [];
    return { known: this.add(this.last!.known, this.last!.at, call.at, w.dropBefore, unsized), unsized };
  }

  /** The call's blocks are all sized now: remember the sum over them for the next call. */
  sized(call: CallRecord, drops: boolean): void {
    const w = this.window(call, drops);
    const known = w.follows
      ? this.add(this.last!.known, this.last!.at, call.at, w.dropBefore)
      : this.add(0, call.epochStart, call.at, w.dropBefore);
    this.last = {
      epochStart: call.epochStart,
      at: call.at,
      drops,
      dropBefore: w.dropBefore,
      lastHuman: w.lastHuman,
      known,
    };
  }

  /** Sizes of counted blocks changed (a rewrite) or the call's counted set was not a plain window (cleared results). */
  reset(): void {
    this.last = undefined;
  }
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
  const prefixes = new Map<string, { total: number; shared: number }>();
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
    if (!p) {
      const total = Math.max(0, recorded - known - guessNew);
      const read = usage.cache_read_input_tokens ?? 0;
      prefixes.set(callModel, (p = { total, shared: read > 0 && read <= total ? read : 0 }));
    }
    const prefixTotal = p.total;
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
    if (rest < -(REWRITE_SLACK_TOKENS + REWRITE_SLACK_SHARE * recorded)) {
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
  for (const [m, p] of prefixes)
    inferred.set(m, { shared: p.shared, sharedWarm: p.shared > 0, session: p.total - p.shared });
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
  };
}
