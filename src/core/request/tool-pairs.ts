/**
 * The assembler's tool pairing pass (assemble.ts module doc): keep exactly the tool pairs whose
 * use and result are both present; synthesize a result for a call answered in text (Cline) or
 * never recorded; drop a pruned pair, a repeated use, a second result; send a result whose call
 * the log never recorded as text. Blocks the pass makes are new objects on every call
 * ({@link freshBlock}), as the request builder has always made them.
 */
import type { TextBlockParam, ToolResultBlockParam } from '../session/types';
import type { SentBlock } from './render';
import { SYNTHETIC } from './render';
import {
  freshBlock,
  hasToolResult,
  hasToolResultBefore,
  hasToolUse,
  mutable,
  setBlocks,
  userTurn,
  type Turn,
} from './turns';

/** Content of the tool_result synthesized for a Cline-style call answered in text. */
export const UNANSWERED_RESULT_TEXT = 'The result of this tool call is given in the text that follows.';

/** Content of the `is_error` tool_result synthesized for a call whose result the log never recorded. */
export const RESULT_NOT_RECORDED = 'result not recorded';

/** What the passes report to and ask of the assembler. */
export interface PassHost {
  /** A repair made (rule, description, the block ids involved). */
  report(rule: string, description: string, ids: (string | undefined)[]): void;
  /** The log block id of the other half of a tool pair (undefined: the log never recorded it). */
  pairOf(toolUseId: string, want: 'use' | 'result'): string | undefined;
  /** The pass reaches turn `t` (the assembler's checkpoints). */
  reach(pass: number, t: Turn): void;
}

/** Tool_use ids seen so far: those of a checkpoint (read only) and this call's own. */
export class SeenIds {
  readonly own = new Set<string>();
  constructor(private readonly base?: ReadonlySet<string>) {}

  has(id: string): boolean {
    return this.own.has(id) || this.base?.has(id) === true;
  }

  add(id: string): void {
    this.own.add(id);
  }
}

/** A tool_result whose call is not in the conversation, as text that keeps what it said. */
export function orphanText(p: ToolResultBlockParam): string {
  const c = p.content;
  const body =
    typeof c === 'string' ? c : (c ?? []).map((x) => (x.type === 'text' ? x.text : `[${x.type}]`)).join('\n');
  const error = p.is_error ? ' (error)' : '';
  return `[Result of tool call ${p.tool_use_id}${error}, whose call is not in this conversation]\n${body}`;
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
    block: freshBlock({ id: taken[0].id, param: { type: 'tool_result', tool_use_id: id, content } }),
    ids: taken.map((b) => b.id),
  };
}

/** The `is_error` result that answers a call whose result the transcript never recorded. */
export function lostResult(host: PassHost, blockId: string, toolUseId: string): SentBlock {
  host.report(
    'lost-tool-result',
    `synthesized an is_error tool_result for ${toolUseId}: the transcript never recorded its result`,
    [blockId],
  );
  return freshBlock({
    id: `${SYNTHETIC.toolResult}${toolUseId}`,
    param: { type: 'tool_result', tool_use_id: toolUseId, content: RESULT_NOT_RECORDED, is_error: true },
  });
}

/** Keep exactly the tool pairs whose use and result are both present (pass 1). */
export function pairTurns(host: PassHost, turns: Turn[], seen: SeenIds): void {
  for (let i = 0; i < turns.length; i++) {
    const t = turns[i];
    host.reach(1, t);
    if (t.role === 'assistant') {
      const lost = pairUses(host, t, turns[i + 1], seen);
      if (lost) turns.splice(i + 1, 0, userTurn(lost));
    } else pairResults(host, t, i > 0 ? turns[i - 1] : undefined);
  }
}

/**
 * Drop uses that are repeated or whose recorded result is not in `next`; synthesize results
 * for calls answered as text (Cline) or never recorded. Returns the synthetic results that need
 * a user message of their own (`next` is not a user message).
 */
function pairUses(host: PassHost, t: Turn, next: Turn | undefined, seen: SeenIds): SentBlock[] | undefined {
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
        host.report('duplicate-tool-use', `dropped a repeated tool_use id ${id}`, [b.id]);
      } else {
        seen.add(id);
        if (hasToolResult(next, id)) {
          // answered
        } else if (next?.unanswered) {
          const answer = takeTextAnswer(next, b.param.name, id);
          if (answer) {
            (synth ??= []).push(answer.block);
            host.report(
              'text-result-as-tool-result',
              `sent the text-form result of ${id} as its tool_result, the way the client does`,
              [b.id, ...answer.ids],
            );
          } else {
            (synth ??= []).push(
              freshBlock({
                id: `${SYNTHETIC.toolResult}${id}`,
                param: { type: 'tool_result', tool_use_id: id, content: UNANSWERED_RESULT_TEXT },
              }),
            );
            host.report('unanswered-tool-use', `synthesized a tool_result for ${id}: its result was given as text`, [
              b.id,
            ]);
          }
        } else {
          const recorded = host.pairOf(id, 'result');
          if (recorded === undefined) {
            (synth ??= []).push(lostResult(host, b.id, id));
          } else {
            drop = true;
            host.report('tool-use-without-result', `dropped tool_use ${id}: no tool_result in the next message`, [
              b.id,
              recorded,
            ]);
          }
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
function pairResults(host: PassHost, t: Turn, prev: Turn | undefined): void {
  const blocks = t.blocks;
  let keep: SentBlock[] | undefined;
  for (let k = 0; k < blocks.length; k++) {
    const b = blocks[k];
    let drop = false;
    if (b.param.type === 'tool_result') {
      const id = b.param.tool_use_id;
      if (!hasToolUse(prev, id) && host.pairOf(id, 'use') === undefined) {
        (keep ??= blocks.slice(0, k)).push(
          freshBlock({ id: b.id, param: { type: 'text', text: orphanText(b.param) } }),
        );
        host.report(
          'orphan-result-as-text',
          `sent tool_result ${id} as text: the transcript never recorded its tool_use`,
          [b.id],
        );
        continue;
      } else if (!hasToolUse(prev, id)) {
        drop = true;
        host.report('orphan-tool-result', `dropped tool_result ${id}: its tool_use is not in the previous message`, [
          b.id,
          host.pairOf(id, 'use'),
        ]);
      } else if (hasToolResultBefore(blocks, k, id)) {
        drop = true;
        host.report('duplicate-tool-result', `dropped a second tool_result for ${id}`, [b.id]);
      }
    }
    if (drop) keep ??= blocks.slice(0, k);
    else keep?.push(b);
  }
  if (keep) setBlocks(t, keep);
}
