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
 */
import type { ContentBlockParam, MessageParam, TextBlockParam, ToolResultBlockParam } from '../session/types';
import { isThinking } from '../api/blocks';
import { summaryBlock, SYNTHETIC, type RenderedMessage, type SentBlock } from './render';
import { thinkingPass } from './thinking-pass';
import {
  hasToolResult,
  hasToolResultBefore,
  hasToolUse,
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

/** Content of the tool_result synthesized for a Cline-style call answered in text. */
export const UNANSWERED_RESULT_TEXT = 'The result of this tool call is given in the text that follows.';

/** Content of the `is_error` tool_result synthesized for a call whose result the log never recorded. */
export const RESULT_NOT_RECORDED = 'result not recorded';

export interface AssembleOptions {
  /**
   * The log block id of the other half of a tool pair (undefined: the log never recorded it).
   * Decides between synthesizing a missing half and dropping a pruned pair; without it every
   * missing half counts as never recorded.
   */
  readonly pairOf?: (toolUseId: string, want: 'use' | 'result') => string | undefined;
}

/**
 * The text-form output of a call named `name` in `next` (a Cline-style answer, render.ts
 * SentBlock.output), taken out of it and made the call's tool_result, as Cline sends a result
 * whose call it knows (cline/cline src/core/task/tools/utils/ToolResultUtils.ts:
 * `{type: "tool_result", tool_use_id, content: "[tool for 'x'] Result:\n…"}`). The first run of
 * output for that tool (else the first run of any tool) answers it; undefined when `next` holds
 * none. The tool_result keeps the id of the run's opening block.
 */
function takeTextAnswer(next: Turn, name: string, id: string): { block: SentBlock; ids: string[] } | undefined {
  const runs = next.blocks.filter((b) => b.output && !b.hidden);
  const run = (runs.find((b) => b.output?.tool === name) ?? runs[0])?.output?.run;
  if (run === undefined) return undefined;
  const taken = next.blocks.filter((b) => b.output?.run === run && !b.hidden);
  setBlocks(
    next,
    next.blocks.filter((b) => b.output?.run !== run || b.hidden),
  );
  const texts = taken.map((b) => b.param).filter((p): p is TextBlockParam => p.type === 'text');
  const content = texts.length === 1 ? texts[0].text : texts.map((p) => ({ type: 'text' as const, text: p.text }));
  return {
    block: { id: taken[0].id, param: { type: 'tool_result', tool_use_id: id, content } },
    ids: taken.map((b) => b.id),
  };
}

/** A tool_result whose call is not in the conversation, as text that keeps what it said. */
export function orphanText(p: ToolResultBlockParam): string {
  const c = p.content;
  const body =
    typeof c === 'string' ? c : (c ?? []).map((x) => (x.type === 'text' ? x.text : `[${x.type}]`)).join('\n');
  return `[Result of tool call ${p.tool_use_id}${p.is_error ? ' (error)' : ''}, whose call is not in this conversation]\n${body}`;
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

class Assembler {
  readonly repairs: Repair[] = [];
  constructor(private readonly opts: AssembleOptions) {}

  /** For the passes in other modules. */
  report(rule: string, description: string, ids: (string | undefined)[]): void {
    this.repair(rule, description, ids);
  }

  private repair(rule: string, description: string, ids: (string | undefined)[]): void {
    this.repairs.push({ rule, description, blockIds: ids.filter((x): x is string => x !== undefined) });
  }

  /** Append a turn, merging it into the previous one when the roles match. */
  private push(out: Turn[], t: Turn): void {
    const top = out[out.length - 1];
    if (!top || top.role !== t.role) {
      out.push(t);
      return;
    }
    if (t.role === 'assistant' && sameVisible(top, t)) {
      this.repair('duplicate-response', 'dropped a second copy of an assistant response recorded twice', visibleIds(t));
      return;
    }
    if (t.role === 'assistant' && t.thinkingFrom && top.blocks.some((b) => isThinking(b.param))) {
      // One response's thinking per message: the later response's (the one a loop would continue).
      const dropped = top.blocks.filter((b) => isThinking(b.param));
      setBlocks(
        top,
        top.blocks.filter((b) => !isThinking(b.param)),
      );
      this.repair(
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
  collect(rendered: readonly RenderedMessage[]): Turn[] {
    const out: Turn[] = [];
    const emitted = new Set<string>();
    for (const r of rendered) {
      if (r.summary && !emitted.has(r.summary.id)) {
        emitted.add(r.summary.id);
        const block = summaryBlock(r.summary);
        if (r.blocks[0]?.id !== block.id) {
          this.push(out, userTurn([block]));
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
        this.push(out, turnOf(r));
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
      if (b.param.type === 'tool_use' && !b.hidden && this.opts.pairOf?.(b.param.id, 'result') === undefined)
        out.push(this.lostResult(b.id, b.param.id));
    }
    return out;
  }

  /** The `is_error` result that answers a call whose result the transcript never recorded. */
  private lostResult(blockId: string, toolUseId: string): SentBlock {
    this.repair(
      'lost-tool-result',
      `synthesized an is_error tool_result for ${toolUseId}: the transcript never recorded its result`,
      [blockId],
    );
    return {
      id: `${SYNTHETIC.toolResult}${toolUseId}`,
      param: { type: 'tool_result', tool_use_id: toolUseId, content: RESULT_NOT_RECORDED, is_error: true },
    };
  }

  /** Keep exactly the tool pairs whose use and result are both present (see module doc). */
  pair(turns: Turn[]): void {
    const seen = new Set<string>();
    for (let i = 0; i < turns.length; i++) {
      const t = turns[i];
      if (t.role === 'assistant') {
        const lost = this.pairUses(t, turns[i + 1], seen);
        if (lost) turns.splice(i + 1, 0, userTurn(lost));
      } else this.pairResults(t, i > 0 ? turns[i - 1] : undefined);
    }
  }

  /**
   * Drop uses that are repeated or whose recorded result is not in `next`; synthesize results
   * for calls answered as text (Cline) or never recorded. Returns the synthetic results that need
   * a user message of their own (`next` is not a user message).
   */
  private pairUses(t: Turn, next: Turn | undefined, seen: Set<string>): SentBlock[] | undefined {
    const blocks = t.blocks;
    let keep: SentBlock[] | undefined;
    let synth: SentBlock[] | undefined;
    for (let k = 0; k < blocks.length; k++) {
      const b = blocks[k];
      let drop = false;
      if (b.param.type === 'tool_use') {
        const id = b.param.id;
        if (seen.has(id)) {
          drop = true;
          this.repair('duplicate-tool-use', `dropped a repeated tool_use id ${id}`, [b.id]);
        } else {
          seen.add(id);
          const recorded = this.opts.pairOf?.(id, 'result');
          if (hasToolResult(next, id)) {
            // answered
          } else if (next?.unanswered) {
            const answer = takeTextAnswer(next, b.param.name, id);
            if (answer) {
              (synth ??= []).push(answer.block);
              this.repair(
                'text-result-as-tool-result',
                `sent the text-form result of ${id} as its tool_result, the way the client does`,
                [b.id, ...answer.ids],
              );
            } else {
              (synth ??= []).push({
                id: `${SYNTHETIC.toolResult}${id}`,
                param: { type: 'tool_result', tool_use_id: id, content: UNANSWERED_RESULT_TEXT },
              });
              this.repair('unanswered-tool-use', `synthesized a tool_result for ${id}: its result was given as text`, [
                b.id,
              ]);
            }
          } else if (recorded === undefined) {
            (synth ??= []).push(this.lostResult(b.id, id));
          } else {
            drop = true;
            this.repair('tool-use-without-result', `dropped tool_use ${id}: no tool_result in the next message`, [
              b.id,
              recorded,
            ]);
          }
        }
      }
      if (drop) keep ??= blocks.slice(0, k);
      else keep?.push(b);
    }
    if (keep) setBlocks(t, keep);
    if (!synth) return undefined;
    if (next?.role !== 'user') return synth;
    mutable(next).unshift(...synth);
    return undefined;
  }

  /** Drop results whose use is not in `prev` (already paired), and second results for one use. */
  private pairResults(t: Turn, prev: Turn | undefined): void {
    const blocks = t.blocks;
    let keep: SentBlock[] | undefined;
    for (let k = 0; k < blocks.length; k++) {
      const b = blocks[k];
      let drop = false;
      if (b.param.type === 'tool_result') {
        const id = b.param.tool_use_id;
        if (!hasToolUse(prev, id) && this.opts.pairOf?.(id, 'use') === undefined) {
          (keep ??= blocks.slice(0, k)).push({ id: b.id, param: { type: 'text', text: orphanText(b.param) } });
          this.repair(
            'orphan-result-as-text',
            `sent tool_result ${id} as text: the transcript never recorded its tool_use`,
            [b.id],
          );
          continue;
        } else if (!hasToolUse(prev, id)) {
          drop = true;
          this.repair('orphan-tool-result', `dropped tool_result ${id}: its tool_use is not in the previous message`, [
            b.id,
            this.opts.pairOf?.(id, 'use'),
          ]);
        } else if (hasToolResultBefore(blocks, k, id)) {
          drop = true;
          this.repair('duplicate-tool-result', `dropped a second tool_result for ${id}`, [b.id]);
        }
      }
      if (drop) keep ??= blocks.slice(0, k);
      else keep?.push(b);
    }
    if (keep) setBlocks(t, keep);
  }

  /**
   * Drop emptied turns, re-merge, drop a leading assistant turn (and its results) and the trailing one.
   */
  compact(turns: Turn[]): Turn[] {
    const out: Turn[] = [];
    let orphans: Set<string> | undefined;
    for (const t of turns) {
      if (orphans && t.role === 'user') {
        const drop = orphans;
        const keep = t.blocks.filter((b) => !(b.param.type === 'tool_result' && drop.has(b.param.tool_use_id)));
        if (keep.length !== t.blocks.length) {
          this.repair(
            'orphan-tool-result',
            'dropped results of a dropped leading assistant message',
            t.blocks.filter((b) => !keep.includes(b)).map((b) => b.id),
          );
          setBlocks(t, keep);
        }
        orphans = undefined;
      }
      if (visibleCount(t) === 0) continue;
      if (out.length === 0 && t.role === 'assistant') {
        this.repair(
          'leading-assistant',
          'dropped an assistant message at the start (the first message must be user)',
          visibleIds(t),
        );
        const uses = new Set<string>();
        for (const b of t.blocks) if (b.param.type === 'tool_use') uses.add(b.param.id);
        orphans = uses.size > 0 ? uses : undefined;
        continue;
      }
      this.push(out, t);
    }
    this.dropTrailingAssistant(out);
    return out;
  }

  /** The request ends with a user message: no repair may leave an assistant message (a prefill) at the end. */
  private dropTrailingAssistant(out: Turn[]): void {
    const last = out[out.length - 1];
    if (last?.role !== 'assistant') return;
    out.pop();
    this.repair(
      'trailing-assistant',
      'dropped the final assistant message: the request must end with a user message',
      visibleIds(last),
    );
  }

  /** Stable partition of each user turn: tool_result blocks first. */
  resultsFirst(turns: Turn[]): void {
    for (const t of turns) {
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
      this.repair(
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

function output(t: Turn): AssembledMessage {
  if (!t.own && t.source && !t.more) return t.source.output();
  const vis = t.blocks.filter((b) => !b.hidden);
  const key = vis[0]?.param;
  const hit = key ? lastOutput.get(key) : undefined;
  if (hit && hit.param.role === t.role && sameBlocks(hit, vis)) return hit;
  const out: AssembledMessage = {
    param: { role: t.role, content: vis.map((b) => b.param) },
    ids: vis.map((b) => b.id),
  };
  if (key) lastOutput.set(key, out);
  return out;
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
  const a = new Assembler(opts);
  const turns = a.collect(rendered);
  a.pair(turns);
  const out = a.compact(turns);
  a.resultsFirst(out);
  const latestThinking = thinkingPass(out, (r, d, ids) => a.report(r, d, ids));
  return { messages: out.map(output), repairs: a.repairs, latestThinking };
}
