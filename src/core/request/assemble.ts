/**
 * Assembly and repair: rendered messages → a valid message list. One linear
 * pass per step; turns share their rendered block arrays until a repair has
 * to change one (copy on write), so an unchanged message reuses its cached
 * MessageParam object.
 *
 * Repair decisions (each reported as a Repair with the log block ids involved):
 * - Same-role neighbours are merged (after a summary, a pruned message, a dropped turn).
 * - A tool_use without a tool_result in the next user message is dropped together with
 *   its (pruned or misplaced) result; an orphaned tool_result is dropped together with its call.
 *   Duplicate tool_use ids: the later use is dropped (and so its result).
 * - Cline-style unanswered tool uses (`meta.unansweredToolUses` on the user message): a
 *   tool_result is synthesized for each unanswered call, saying the result is in the text
 *   that follows; the original text is sent verbatim after it.
 * - tool_result blocks are moved before the other blocks of their message.
 * - A leading assistant message is dropped (nothing is prepended), with the results of its calls.
 * - A trailing assistant message is dropped when the model needs the conversation to end with
 *   a user message; otherwise (prefill) its trailing whitespace is trimmed.
 * - Thinking: the latest assistant message keeps every thinking block verbatim (overlays on
 *   them are ignored) and thinking first; older turns lose their thinking when a merge left it
 *   behind another block (older thinking may be dropped).
 */
import type { ContentBlockParam, MessageParam, Role } from '../session/types';
import { endsWithWhitespace, isBlank, isThinking } from './blocks';
import { summaryBlock, SYNTHETIC, type RenderedMessage, type SentBlock } from './render';
import type { Repair } from './types';

/** Content of the tool_result synthesized for a Cline-style call answered in text. */
export const UNANSWERED_RESULT_TEXT = 'The result of this tool call is given in the text that follows.';

export interface AssembleOptions {
  /** Drop a trailing assistant message (Claude 4.6+, and models of unknown version). */
  readonly endWithUser: boolean;
  /** The log block id of the other half of a tool pair, for repair reports. */
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

interface Turn {
  role: Role;
  blocks: readonly SentBlock[];
  /** blocks is this turn's own array (else it is a rendered message's, shared with the cache). */
  own: boolean;
  /** The rendered message(s) the turn came from (undefined for a synthetic summary turn). */
  source: RenderedMessage | undefined;
  more: RenderedMessage[] | undefined;
  unanswered: boolean;
}

function turnOf(r: RenderedMessage): Turn {
  return { role: r.role, blocks: r.blocks, own: false, source: r, more: undefined, unanswered: r.unansweredToolUses };
}

function sourcesOf(t: Turn): RenderedMessage[] {
  const out = t.source ? [t.source] : [];
  return t.more ? out.concat(t.more) : out;
}

/** Small linear scans beat Set allocation for the usual handful of tool blocks per message. */
function hasToolResult(t: Turn | undefined, id: string): boolean {
  if (t) for (const b of t.blocks) if (b.param.type === 'tool_result' && b.param.tool_use_id === id) return true;
  return false;
}

function hasToolUse(t: Turn | undefined, id: string): boolean {
  if (t) for (const b of t.blocks) if (b.param.type === 'tool_use' && b.param.id === id) return true;
  return false;
}

function hasToolResultBefore(blocks: readonly SentBlock[], end: number, id: string): boolean {
  for (let k = 0; k < end; k++) {
    const p = blocks[k].param;
    if (p.type === 'tool_result' && p.tool_use_id === id) return true;
  }
  return false;
}

function mutable(t: Turn): SentBlock[] {
  if (!t.own) {
    t.blocks = [...t.blocks];
    t.own = true;
  }
  return t.blocks as SentBlock[];
}

function setBlocks(t: Turn, blocks: SentBlock[]): void {
  t.blocks = blocks;
  t.own = true;
}

function visibleCount(t: Turn): number {
  let n = 0;
  for (const b of t.blocks) if (!b.hidden) n++;
  return n;
}

function visibleIds(t: Turn): string[] {
  return t.blocks.filter((b) => !b.hidden).map((b) => b.id);
}

class Assembler {
  readonly repairs: Repair[] = [];
  constructor(private readonly opts: AssembleOptions) {}

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
    mutable(top).push(...t.blocks);
    const moved = sourcesOf(t);
    if (moved.length > 0) top.more = top.more ? top.more.concat(moved) : moved;
    top.unanswered ||= t.unanswered;
    this.repair('merge-same-role', `merged consecutive ${t.role} messages`, visibleIds(t));
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
          this.push(out, { role: 'user', blocks: [block], own: true, source: undefined, more: undefined, unanswered: false });
        }
      }
      if (r.visible > 0) this.push(out, turnOf(r));
    }
    return out;
  }

  /** Keep exactly the tool pairs whose use and result are both present (see module doc). */
  pair(turns: Turn[]): void {
    const seen = new Set<string>();
    for (let i = 0; i < turns.length; i++) {
      const t = turns[i];
      if (t.role === 'assistant') this.pairUses(t, turns[i + 1], seen);
      else this.pairResults(t, i > 0 ? turns[i - 1] : undefined);
    }
  }

  /** Drop uses that are repeated or have no result in `next` (or synthesize results, Cline-style). */
  private pairUses(t: Turn, next: Turn | undefined, seen: Set<string>): void {
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
          if (hasToolResult(next, id)) {
            // answered
          } else if (next?.unanswered) {
            (synth ??= []).push({ id: `${SYNTHETIC.toolResult}${id}`, param: { type: 'tool_result', tool_use_id: id, content: UNANSWERED_RESULT_TEXT } });
            this.repair('unanswered-tool-use', `synthesized a tool_result for ${id}: its result was given as text`, [b.id]);
          } else {
            drop = true;
            this.repair('tool-use-without-result', `dropped tool_use ${id}: no tool_result in the next message`, [b.id, this.opts.pairOf?.(id, 'result')]);
          }
        }
      }
      if (drop) keep ??= blocks.slice(0, k);
      else keep?.push(b);
    }
    if (keep) setBlocks(t, keep);
    if (next && synth) mutable(next).unshift(...synth);
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
        if (!hasToolUse(prev, id)) {
          drop = true;
          this.repair('orphan-tool-result', `dropped tool_result ${id}: its tool_use is not in the previous message`, [b.id, this.opts.pairOf?.(id, 'use')]);
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

  /** Drop emptied turns, re-merge, drop a leading assistant turn (and its results), and a trailing one if required. */
  compact(turns: Turn[]): Turn[] {
    const out: Turn[] = [];
    let orphans: Set<string> | undefined;
    for (const t of turns) {
      if (orphans && t.role === 'user') {
        const drop = orphans;
        const keep = t.blocks.filter((b) => !(b.param.type === 'tool_result' && drop.has(b.param.tool_use_id)));
        if (keep.length !== t.blocks.length) {
          this.repair('orphan-tool-result', 'dropped results of a dropped leading assistant message', t.blocks.filter((b) => !keep.includes(b)).map((b) => b.id));
          setBlocks(t, keep);
        }
        orphans = undefined;
      }
      if (visibleCount(t) === 0) continue;
      if (out.length === 0 && t.role === 'assistant') {
        this.repair('leading-assistant', 'dropped an assistant message at the start (the first message must be user)', visibleIds(t));
        const uses = new Set<string>();
        for (const b of t.blocks) if (b.param.type === 'tool_use') uses.add(b.param.id);
        orphans = uses.size > 0 ? uses : undefined;
        continue;
      }
      this.push(out, t);
    }
    if (this.opts.endWithUser) this.dropTrailingAssistant(out);
    return out;
  }

  dropTrailingAssistant(out: Turn[]): void {
    const last = out[out.length - 1];
    if (last?.role !== 'assistant') return;
    out.pop();
    this.repair('trailing-assistant', 'dropped the final assistant message: this model needs the conversation to end with a user message', visibleIds(last));
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
      this.repair('tool-results-first', 'moved tool_result blocks before the other blocks of their message', results.map((b) => b.id));
    }
  }

  /** Thinking rules (see module doc); returns the thinking the latest assistant message must carry. */
  thinking(turns: Turn[]): ContentBlockParam[] {
    let latest = -1;
    for (let i = 0; i < turns.length; i++) if (turns[i].role === 'assistant') latest = i;
    turns.forEach((t, i) => {
      if (t.role !== 'assistant') return;
      if (i === latest) this.keepLatestThinking(t);
      else this.dropMisplacedThinking(t);
    });
    return latest < 0 ? [] : sourcesOf(turns[latest]).flatMap((s) => s.originalThinking);
  }

  private keepLatestThinking(t: Turn): void {
    const hidden = t.blocks.filter((b) => b.hidden);
    if (hidden.length > 0) {
      setBlocks(t, t.blocks.map((b) => (b.hidden ? { id: b.id, param: b.param } : b)));
      this.repair('latest-thinking-kept', 'sent thinking blocks of the latest assistant message verbatim (they cannot be modified)', hidden.map((b) => b.id));
    }
    const f = t.blocks.findIndex((b) => isThinking(b.param));
    if (f <= 0) return;
    let g = f;
    while (g < t.blocks.length && isThinking(t.blocks[g].param)) g++;
    const moved = t.blocks.slice(0, f);
    setBlocks(t, [...t.blocks.slice(f, g), ...moved, ...t.blocks.slice(g)]);
    this.repair('latest-thinking-first', 'moved merged-in blocks after the thinking of the latest assistant message', moved.map((b) => b.id));
  }

  private dropMisplacedThinking(t: Turn): void {
    const first = t.blocks.find((b) => !b.hidden);
    const misplaced = first !== undefined && !isThinking(first.param) && t.blocks.some((b) => !b.hidden && isThinking(b.param));
    if (!misplaced) return; // hidden thinking of older turns is simply not output
    const dropped = t.blocks.filter((b) => !b.hidden && isThinking(b.param)).map((b) => b.id);
    setBlocks(t, t.blocks.filter((b) => !isThinking(b.param)));
    this.repair('older-thinking-dropped', 'dropped thinking of an older assistant message that a merge left behind other blocks', dropped);
  }

  /** A final assistant message (prefill) may not end with whitespace (runs after the thinking pass, which may reorder). */
  trimFinalWhitespace(turns: Turn[]): void {
    const t = turns[turns.length - 1];
    if (t?.role !== 'assistant') return;
    const blocks = t.blocks.filter((b) => !b.hidden);
    const last = blocks[blocks.length - 1];
    if (!last || last.param.type !== 'text' || !endsWithWhitespace(last.param.text)) return;
    const text = last.param.text.trimEnd();
    const arr = mutable(t);
    const at = arr.indexOf(last);
    if (isBlank(text)) arr.splice(at, 1);
    else arr[at] = { id: last.id, param: { ...last.param, text } };
    // Never empties the turn in practice (blank text never gets here); an empty final assistant message is valid anyway.
    this.repair('final-assistant-whitespace', 'trimmed trailing whitespace of the final assistant message', [last.id]);
  }
}

function output(t: Turn): AssembledMessage {
  if (!t.own && t.source && !t.more) return t.source.output();
  const vis = t.blocks.filter((b) => !b.hidden);
  return { param: { role: t.role, content: vis.map((b) => b.param) }, ids: vis.map((b) => b.id) };
}

/** Rendered messages (in log order) → valid messages, the repairs made, and the latest turn's thinking. */
export function assemble(rendered: readonly RenderedMessage[], opts: AssembleOptions): Assembled {
  const a = new Assembler(opts);
  const turns = a.collect(rendered);
  if (opts.endWithUser) a.dropTrailingAssistant(turns);
  a.pair(turns);
  const out = a.compact(turns);
  a.resultsFirst(out);
  const latestThinking = a.thinking(out);
  if (!opts.endWithUser) a.trimFinalWhitespace(out);
  return { messages: out.map(output), repairs: a.repairs, latestThinking };
}
