/**
 * Assembly and repair: rendered messages → a valid message list. One linear
 * pass per step; turns share their rendered block arrays until a repair has
 * to change one (copy on write), so an unchanged message reuses its cached
 * MessageParam object.
 *
 * Repair decisions (each reported as a Repair with the log block ids involved). The rule
 * behind all of them: a repair never removes a model response's thinking from the message
 * that a tool loop continues, never merges two responses' thinking, and never leaves the
 * request ending with an assistant message (no prefill: with thinking on, or on 4.6+ models,
 * the API refuses it, and a replay must not invent one).
 * - Same-role neighbours are merged (after a summary, a pruned message, a dropped turn). Two
 *   assistant turns: an exact copy (a response recorded twice) is kept once; otherwise only the
 *   later response keeps its thinking (one response's thinking per message).
 * - A tool_use whose result the log never recorded gets a synthetic `is_error` result
 *   ({@link RESULT_NOT_RECORDED}), in the next user message or in a user message inserted after
 *   it; the call and its thinking stay. A tool_use whose recorded result is not sent next (a
 *   strategy pruned it) is dropped together with that result. Duplicate tool_use ids: the later
 *   use is dropped (and so its result).
 * - A tool_result whose tool_use the log never recorded becomes text in its user message
 *   ({@link orphanText}); one whose recorded call is not in the previous message (pruned with
 *   it) is dropped.
 * - Cline-style unanswered tool uses (`meta.unansweredToolUses` on the user message, or its
 *   text-form tool output): the call's text-form output becomes its tool_result, as the client
 *   sends it (`takeTextAnswer`); a call with no such output gets a synthesized tool_result saying
 *   the result is in the text that follows. The user's words and the client's context stay
 *   verbatim after the results.
 * - tool_result blocks are moved before the other blocks of their message.
 * - A thinking-only response in the history is sent as recorded (the API accepts it there; only a
 *   final assistant message may not end with thinking, and the request never ends with one).
 * - A leading assistant message is dropped (nothing is prepended), with the results of its calls.
 * - A trailing assistant message is dropped: the request ends with a user message.
 * - Thinking: the latest assistant message keeps every thinking block verbatim (overlays on
 *   them are ignored) and thinking first; older turns lose their thinking when a merge left it
 *   behind another block (older thinking may be dropped).
 * The pairing pass is tool-pairs.ts, the thinking pass thinking-pass.ts; a request that adds to
 * the last one resumes the assembly from a checkpoint (assemble-resume.ts).
 */
import type { ContentBlockParam, MessageParam } from '../session/types';
import { isThinking } from '../api/blocks';
import { summaryBlock, type RenderedMessage, type SentBlock } from './render';
import { thinkingPass } from './thinking-pass';
import { lostResult, pairTurns, SeenIds, type PassHost } from './tool-pairs';
import {
  freshBlock,
  isFresh,
  mutable,
  sameVisible,
  setBlocks,
  sourcesOf,
  turnOf,
  userTurn,
  visibleCount,
  visibleIds,
  type Turn,
} from './turns';
import type { Repair } from '../api/wire';

export { orphanText, RESULT_NOT_RECORDED, UNANSWERED_RESULT_TEXT } from './tool-pairs';

export interface AssembleOptions {
  /**
   * The log block id of the other half of a tool pair (undefined: the log never recorded it).
   * Decides between synthesizing a missing half and dropping a pruned pair; without it every
   * missing half counts as never recorded.
   */
  readonly pairOf?: (toolUseId: string, want: 'use' | 'result') => string | undefined;
}

export interface AssembledMessage {
  readonly param: MessageParam;
  /** Block ids parallel to `param.content` (log ids, or synthetic ids). */
  readonly ids: readonly string[];
}

export interface Assembled {
  readonly messages: AssembledMessage[];
  readonly repairs: Repair[];
  /** The thinking blocks the latest assistant message must carry, as the model produced them. */
  readonly latestThinking: ContentBlockParam[];
}

/** The passes, in order (a turn's marks and a run's repairs are kept per pass). */
export const PASSES = 5;
const COLLECT = 0;
const PAIR = 1;
const COMPACT = 2;
const RESULTS_FIRST = 3;
const THINKING = 4;

/** A pair question asked while assembling, and its answer (a checkpoint asks them again before it is used). */
export interface PairQuery {
  readonly id: string;
  readonly want: 'use' | 'result';
  readonly answer: string | undefined;
}

/**
 * The merge repair of a turn that is one rendered message as rendered: the same object on every
 * call (a rendered message is kept per revision), so the engine knows it logged it without
 * building a key, and a long history's merges cost nothing per call.
 */
const mergeRepairs = new WeakMap<RenderedMessage, Repair>();

function mergeRepair(t: Turn): Repair {
  const source =
    t.source !== undefined && !t.own && t.more === undefined && t.blocks === t.source.blocks ? t.source : undefined;
  const hit = source && mergeRepairs.get(source);
  if (hit) return hit;
  const r: Repair = {
    rule: 'merge-same-role',
    description: `merged consecutive ${t.role} messages`,
    blockIds: visibleIds(t),
  };
  if (source) mergeRepairs.set(source, r);
  return r;
}

/** What a run continues from: the state of the assembly just before the turn of rendered message `from`. */
export interface RunStart {
  readonly from: number;
  /** Tool_use ids of the turns before. */
  readonly uses: ReadonlySet<string>;
  /** Summaries emitted before. */
  readonly summaries: ReadonlySet<string>;
}

/** One run of the passes over rendered messages [start.from, end) (all of them without a start). */
export class Run implements PassHost {
  readonly repairs: Repair[] = [];
  /** Index in `repairs` where each pass began. */
  readonly passStart: number[] = [];
  readonly queries: PairQuery[] = [];
  /** Index in `queries` where each pass began. */
  readonly queryStart: number[] = [];
  /** Summaries emitted by this run, in order. */
  readonly summaries: string[] = [];
  readonly seen: SeenIds;
  /** The turns as the pairing pass left them (before compaction). */
  paired: Turn[] = [];
  private readonly emitted: Set<string>;

  constructor(
    private readonly opts: AssembleOptions,
    private readonly start?: RunStart,
  ) {
    this.seen = new SeenIds(start?.uses);
    this.emitted = new Set();
  }

  report(rule: string, description: string, ids: (string | undefined)[]): void {
    this.repairs.push({ rule, description, blockIds: ids.filter((x): x is string => x !== undefined) });
  }

  pairOf(id: string, want: 'use' | 'result'): string | undefined {
    const answer = this.opts.pairOf?.(id, want);
    this.queries.push({ id, want, answer });
    return answer;
  }

  reach(pass: number, t: Turn): void {
    // Only a turn of a rendered assistant message can hold a checkpoint (assemble-resume.ts).
    if (t.start < 0 || t.role !== 'assistant') return;
    const m = (t.marks ??= { repairs: [], queries: [], summaries: 0 });
    m.repairs[pass] = this.repairs.length;
    m.queries[pass] = this.queries.length;
    if (pass === COLLECT) m.summaries = this.summaries.length;
    if (pass === PAIR) m.uses = this.seen.own.size;
  }

  private begin(pass: number): void {
    this.passStart[pass] = this.repairs.length;
    this.queryStart[pass] = this.queries.length;
  }

  /**
   * All passes. Returns the turns to send and the latest turn's thinking, or undefined when a
   * run from a start would change a turn before it (the caller then runs from the beginning).
   */
  passes(rendered: readonly RenderedMessage[]): { turns: Turn[]; latestThinking: ContentBlockParam[] } | undefined {
    this.begin(COLLECT);
    const turns = this.collect(rendered);
    const first = turns[0];
    // From a start: the first turn is the assistant turn of rendered message `from`, pushed after a user turn.
    if (this.start && (first?.start !== this.start.from || first.role !== 'assistant')) return undefined;
    this.begin(PAIR);
    pairTurns(this, turns, this.seen);
    this.paired = turns.slice();
    this.begin(COMPACT);
    const out = this.compact(turns);
    if (this.start && out[0] !== first) return undefined;
    this.begin(RESULTS_FIRST);
    this.resultsFirst(out);
    this.begin(THINKING);
    const latestThinking = thinkingPass(
      out,
      (r, d, ids) => this.report(r, d, ids),
      (t) => this.reach(THINKING, t),
    );
    this.passStart[PASSES] = this.repairs.length;
    return { turns: out, latestThinking };
  }

  /** Append a turn, merging it into the previous one when the roles match. */
  private push(out: Turn[], t: Turn, pass: number): void {
    const top = out[out.length - 1];
    if (!top || top.role !== t.role) {
      if (pass === COLLECT) this.reach(COLLECT, t);
      out.push(t);
      return;
    }
    if (t.role === 'assistant' && sameVisible(top, t)) {
      this.report('duplicate-response', 'dropped a second copy of an assistant response recorded twice', visibleIds(t));
      return;
    }
    if (t.role === 'assistant' && t.thinkingFrom && top.blocks.some((b) => isThinking(b.param))) {
      // One response's thinking per message: the later response's (the one a loop would continue).
      const dropped = top.blocks.filter((b) => isThinking(b.param));
      setBlocks(
        top,
        top.blocks.filter((b) => !isThinking(b.param)),
      );
      this.report(
        'merged-thinking-dropped',
        "dropped the earlier response's thinking when merging two assistant messages",
        dropped.filter((b) => !b.hidden).map((b) => b.id),
      );
    }
    if (t.role === 'assistant' && (t.thinkingFrom || !top.blocks.some((b) => isThinking(b.param))))
      top.thinkingFrom = t.thinkingFrom;
    mutable(top).push(...t.blocks);
    const moved = sourcesOf(t);
    if (moved.length > 0) top.more = top.more ? top.more.concat(moved) : moved;
    top.unanswered ||= t.unanswered;
    this.repairs.push(mergeRepair(t));
  }

  /** Rendered messages → alternating turns; a summary range starting before the window still gets its summary. */
  private collect(rendered: readonly RenderedMessage[]): Turn[] {
    const out: Turn[] = [];
    const before = this.start?.summaries;
    for (let i = this.start?.from ?? 0; i < rendered.length; i++) {
      const r = rendered[i];
      if (r.summary && !this.emitted.has(r.summary.id) && !before?.has(r.summary.id)) {
        this.emitted.add(r.summary.id);
        this.summaries.push(r.summary.id);
        const block = summaryBlock(r.summary);
        if (r.blocks[0]?.id !== block.id) {
          this.push(out, userTurn([freshBlock(block)]), COLLECT);
        }
      }
      if (r.visible > 0) {
        const top = out[out.length - 1];
        // Two responses in a row: calls of the first whose results were never recorded are answered
        // before the second (merging first would fold both responses, and their thinking, into one).
        if (top?.role === 'assistant' && r.role === 'assistant') {
          const lost = this.lostResults(top);
          if (lost.length > 0) out.push(userTurn(lost));
        }
        this.push(out, turnOf(r, i), COLLECT);
      }
    }
    return out;
  }

  /**
   * Synthetic `is_error` results for the calls of `t` (followed by another assistant turn) that the log never recorded.
   */
  private lostResults(t: Turn): SentBlock[] {
    const out: SentBlock[] = [];
    for (const b of t.blocks) {
      if (b.param.type === 'tool_use' && !b.hidden && this.pairOf(b.param.id, 'result') === undefined)
        out.push(lostResult(this, b.id, b.param.id));
    }
    return out;
  }

  /**
   * Drop emptied turns, re-merge, drop a leading assistant turn (and its results) and the trailing one. From a start,
   * the turns follow a user turn: none is leading.
   */
  private compact(turns: Turn[]): Turn[] {
    const out: Turn[] = [];
    let orphans: Set<string> | undefined;
    for (const t of turns) {
      this.reach(COMPACT, t);
      if (orphans && t.role === 'user') {
        const drop = orphans;
        const keep = t.blocks.filter((b) => !(b.param.type === 'tool_result' && drop.has(b.param.tool_use_id)));
        if (keep.length !== t.blocks.length) {
          this.report(
            'orphan-tool-result',
            'dropped results of a dropped leading assistant message',
            t.blocks.filter((b) => !keep.includes(b)).map((b) => b.id),
          );
          setBlocks(t, keep);
        }
        orphans = undefined;
      }
      if (visibleCount(t) === 0) continue;
      if (out.length === 0 && t.role === 'assistant' && !this.start) {
        this.report(
          'leading-assistant',
          'dropped an assistant message at the start (the first message must be user)',
          visibleIds(t),
        );
        const uses = new Set<string>();
        for (const b of t.blocks) if (b.param.type === 'tool_use') uses.add(b.param.id);
        orphans = uses.size > 0 ? uses : undefined;
        continue;
      }
      this.push(out, t, COMPACT);
    }
    this.dropTrailingAssistant(out);
    return out;
  }

  /** The request ends with a user message: no repair may leave an assistant message (a prefill) at the end. */
  private dropTrailingAssistant(out: Turn[]): void {
    const last = out[out.length - 1];
    if (last?.role !== 'assistant') return;
    out.pop();
    this.report(
      'trailing-assistant',
      'dropped the final assistant message: the request must end with a user message',
      visibleIds(last),
    );
  }

  /** Stable partition of each user turn: tool_result blocks first. */
  private resultsFirst(turns: Turn[]): void {
    for (const t of turns) {
      this.reach(RESULTS_FIRST, t);
      if (t.role !== 'user') continue;
      let other = false;
      let late = false;
      for (const b of t.blocks) {
        if (b.param.type === 'tool_result') late ||= other;
        else other = true;
      }
      if (!late) continue;
      const results = t.blocks.filter((b) => b.param.type === 'tool_result');
      setBlocks(t, [...results, ...t.blocks.filter((b) => b.param.type !== 'tool_result')]);
      this.report(
        'tool-results-first',
        'moved tool_result blocks before the other blocks of their message',
        results.map((b) => b.id),
      );
    }
  }
}

/**
 * The last output built for a turn of several sources or changed blocks, by its first visible
 * block's param: a request that sends the same blocks again gets the same message object (a
 * merged or repaired message is then unchanged from call to call for everything that compares
 * messages by identity: the stream validator, the planner's first changed message, the report).
 */
const lastOutput = new WeakMap<object, AssembledMessage>();

/** A turn's message; `fresh` when it holds a param made anew on every call ({@link isFresh}). */
export function output(t: Turn): { message: AssembledMessage; fresh: boolean } {
  if (!t.own && t.source && !t.more) return { message: t.source.output(), fresh: false };
  const vis = t.blocks.filter((b) => !b.hidden);
  const fresh = vis.some((b) => isFresh(b.param));
  const key = vis[0]?.param;
  const hit = key ? lastOutput.get(key) : undefined;
  if (hit && hit.param.role === t.role && sameBlocks(hit, vis)) return { message: hit, fresh };
  const out: AssembledMessage = {
    param: { role: t.role, content: vis.map((b) => b.param) },
    ids: vis.map((b) => b.id),
  };
  if (key) lastOutput.set(key, out);
  return { message: out, fresh };
}

/** The same block objects with the same ids, in the same order. */
function sameBlocks(m: AssembledMessage, vis: readonly SentBlock[]): boolean {
  const content = m.param.content;
  if (typeof content === 'string' || content.length !== vis.length) return false;
  for (let i = 0; i < vis.length; i++) if (content[i] !== vis[i].param || m.ids[i] !== vis[i].id) return false;
  return true;
}

/** Rendered messages (in log order) → valid messages, the repairs made, and the latest turn's thinking. */
export function assemble(rendered: readonly RenderedMessage[], opts: AssembleOptions): Assembled {
  const run = new Run(opts);
  const { turns, latestThinking } = run.passes(rendered)!;
  return { messages: turns.map((t) => output(t).message), repairs: run.repairs, latestThinking };
}
