/**
 * summarize-tool-results: keep the last N tool rounds (assistant tool_use → user
 * tool_result) verbatim; older results longer than a limit become a short summary
 * that keeps the tool name, [OK]/[ERROR], reference ids and a trimmed marker.
 * Incremental: a cursor walks the rounds once; each result is considered once.
 * In thought-action loops an observation (the user message answering the assistant's action,
 * trimming/observation.ts) is the round's result: summarized the same way, named by the
 * action's command word, and still a text block of its user message.
 */
import type { ContentBlockParam } from '../session/types';
import { toolResultText } from '../session/log';
import { applyTrim } from '../session/trim';
import { compactInput } from './compact-input';
import type { ToolRound } from './message-index';
import { keepsPriorThinking } from '../models/behavior';
import { actionWord, isClientToolOutput } from './observation';
import { compilePatterns, DEFAULT_REF_PATTERNS, type RefPattern } from './refs';
import { summarizeToolResult } from './summary-text';
import type { Foresight, Strategy, StrategyContext, StrategyDoc, Trigger } from './types';

export interface SummarizeOptions {
  /** Most recent tool rounds kept verbatim. */
  keepTurns: number;
  /** Results up to this many characters are already short: left alone. */
  minChars: number;
  /** Reference ids kept per summary. */
  maxRefs: number;
  previewChars: number;
  /** Extra reference-id regexes (strings), added to the defaults. */
  refPatterns: string[];
  /** Old tool_use inputs: values longer than this many characters become a size marker (0 = keep inputs). */
  trimInputsOver: number;
  /** Drop thinking blocks of old rounds (the API allows dropping earlier turns' thinking). */
  dropThinking: boolean;
  trigger: Trigger;
}

export const SUMMARIZE_DEFAULTS: SummarizeOptions = {
  keepTurns: 2,
  minChars: 150,
  maxRefs: 40,
  previewChars: 120,
  refPatterns: [],
  trimInputsOver: 400,
  dropThinking: true,
  trigger: { kind: 'always' },
};

export const SUMMARIZE_DOC: StrategyDoc = {
  name: 'summarize-tool-results',
  summary:
    'Older tool results become short summaries (tool, OK/ERROR, reference ids, marker); ' +
    'the last N rounds stay verbatim.',
  options: [
    { name: 'keepTurns', type: 'number', default: 2, description: 'most recent tool rounds kept verbatim' },
    { name: 'minChars', type: 'number', default: 150, description: 'results this short are left alone' },
    { name: 'maxRefs', type: 'number', default: 40, description: 'reference ids kept per summary' },
    { name: 'previewChars', type: 'number', default: 120, description: 'characters of the first line kept' },
    { name: 'refPatterns', type: 'string[]', default: [], description: 'extra reference-id regexes (e.g. ticket ids)' },
    {
      name: 'trimInputsOver',
      type: 'number',
      default: 400,
      description: 'old tool inputs: longer values become a size marker (0 = off)',
    },
    { name: 'dropThinking', type: 'boolean', default: true, description: 'drop thinking blocks of old rounds' },
  ],
};

export class SummarizeToolResults implements Strategy {
  readonly name = 'summarize-tool-results';
  readonly trigger: Trigger;
  private next = 0;
  private readonly patterns: RefPattern[];
  /** The summary text of each tool result param and the block it makes (this strategy's options are fixed). */
  private readonly texts = new WeakMap<object, { text: string; sent: ContentBlockParam }>();
  /**
   * Per tool_use param: the block its trim sends (long values described) and the trim's text, that input's JSON (null:
   * nothing to compact).
   */
  private readonly compacts = new WeakMap<object, { param: ContentBlockParam; text: string } | null>();

  constructor(private readonly o: SummarizeOptions = SUMMARIZE_DEFAULTS) {
    this.trigger = o.trigger;
    const { patterns, errors } = compilePatterns(o.refPatterns);
    if (errors.length) throw new Error(errors.join('; '));
    this.patterns = [...patterns, ...DEFAULT_REF_PATTERNS];
  }

  run(ctx: StrategyContext): void {
    const { rounds } = ctx.index;
    // Rounds whose results are part of this request, newest N protected.
    let complete = rounds.length;
    while (complete > 0 && (rounds[complete - 1].resultPos < 0 || rounds[complete - 1].resultPos >= ctx.upTo))
      complete--;
    const limit = complete - this.o.keepTurns;
    for (; this.next < limit; this.next++) {
      const r = rounds[this.next];
      if (r.assistantPos < ctx.epochStart) continue;
      for (const id of resultBlocks(ctx, r)) this.consider(ctx, id, r.resultPos);
      this.compactCall(ctx, r.assistantPos, keepsThinking(ctx, r));
    }
  }

  /** The old round's assistant message: long tool inputs compacted, thinking dropped (unless `keepThinking`). */
  private compactCall(ctx: StrategyContext, pos: number, keepThinking: boolean): void {
    const { session } = ctx;
    const m = session.messages[pos];
    for (const b of m.blocks) {
      if (
        ctx.isPending(b.id) ||
        session.isPinned(b.id) ||
        session.isUserRestored(b.id) ||
        session.overlaysOnBlock(b.id).length
      )
        continue;
      if ((b.kind === 'thinking' || b.kind === 'redacted_thinking') && this.o.dropThinking) {
        if (keepThinking) continue;
        const before = ctx.tokens.block(b.param).tokens;
        ctx.propose({
          position: pos,
          saved: before,
          overlay: {
            kind: 'prune',
            messageId: m.id,
            blockId: b.id,
            author: `strategy:${this.name}`,
            reason: `thinking of a round older than the last ${this.o.keepTurns}: dropped (the API allows it)`,
            callIndex: ctx.callIndex,
            tokensBefore: before,
            tokensAfter: 0,
          },
        });
      } else if (b.param.type === 'tool_use') {
        const t = this.inputTrimOf(ctx, b.id);
        if (!t) continue;
        ctx.propose({
          position: pos,
          saved: t.saved,
          overlay: {
            kind: 'trim',
            blockId: b.id,
            text: t.text,
            author: `strategy:${this.name}`,
            reason:
              `${t.name} input of a round older than the last ${this.o.keepTurns}: ` +
              `long values replaced by their size (${t.before} → ${t.after} tokens)`,
            callIndex: ctx.callIndex,
            tokensBefore: t.before,
            tokensAfter: t.after,
          },
        });
      }
    }
  }

  /**
   * With one round kept verbatim, the final round leaves the window as soon as the next round
   * completes: what trimming it will save then (nothing is proposed now). Two placements: from
   * the results message (their summaries), and from the round's assistant message (its long
   * inputs compacted as well), each with everything due from there on.
   */
  foresee(ctx: StrategyContext): Foresight[] {
    if (this.o.keepTurns !== 1) return [];
    const { rounds } = ctx.index;
    let k = rounds.length - 1;
    while (k >= 0 && (rounds[k].resultPos < 0 || rounds[k].resultPos >= ctx.upTo)) k--;
    const last = rounds[k];
    if (!last || last.resultPos !== ctx.upTo - 1 || last.assistantPos < ctx.epochStart) return [];
    let results = 0;
    for (const id of resultBlocks(ctx, last)) results += this.summaryOf(ctx, id)?.saved ?? 0;
    let inputs = 0;
    for (const b of ctx.session.messages[last.assistantPos].blocks) {
      inputs += this.inputTrimOf(ctx, b.id)?.saved ?? 0;
      // Inside a tool loop thinking is cached content: dropping it next call edits the round's message too.
      const thinking = b.kind === 'thinking' || b.kind === 'redacted_thinking';
      if (this.o.dropThinking && thinking && !keepsThinking(ctx, last)) inputs += ctx.tokens.block(b.param).tokens;
    }
    const out: Foresight[] = [];
    if (results > 0) out.push({ position: last.resultPos, saved: results });
    if (inputs > 0) out.push({ position: last.assistantPos, saved: inputs + results });
    return out;
  }

  /** The compacted input of an old round's tool_use block, or undefined when it is left alone. */
  private inputTrimOf(
    ctx: StrategyContext,
    blockId: string,
  ): { text: string; name: string; before: number; after: number; saved: number } | undefined {
    const { session } = ctx;
    const b = session.block(blockId);
    if (!b || b.param.type !== 'tool_use' || this.o.trimInputsOver <= 0) return undefined;
    if (
      ctx.isPending(b.id) ||
      session.isPinned(b.id) ||
      session.isUserRestored(b.id) ||
      session.overlaysOnBlock(b.id).length
    )
      return undefined;
    // The compacted input and its JSON, made once per tool_use (params never change; asked by foresee and again when
    // old).
    let c = this.compacts.get(b.param);
    if (c === undefined) {
      const input = compactInput(b.param.input, this.o.trimInputsOver);
      const text = input ? JSON.stringify(input) : undefined;
      // The block as the trim sends it (session/trim.ts), like a result's summary below.
      this.compacts.set(b.param, (c = text ? { param: applyTrim(b.param, text), text } : null));
    }
    if (!c) return undefined;
    const before = ctx.tokens.block(b.param).tokens;
    // The same compacted block object every time: the token count's own memo holds.
    const after = ctx.tokens.block(c.param).tokens;
    if (after >= before) return undefined;
    return { text: c.text, name: b.param.name, before, after, saved: before - after };
  }

  /** The summary a result (a tool_result or an observation block) would get, or undefined when it is left alone. */
  private summaryOf(
    ctx: StrategyContext,
    blockId: string,
  ): { blockId: string; toolName?: string; text: string; before: number; after: number; saved: number } | undefined {
    const { session } = ctx;
    if (ctx.isPending(blockId) || session.isPinned(blockId) || session.isUserRestored(blockId)) return undefined;
    // A result that carries the user's words (a Roo <feedback>) stays whole (session/user-text.ts).
    if (session.overlaysOnBlock(blockId).length || session.userText.reasonOf(blockId)) return undefined;
    const block = session.block(blockId);
    if (!block) return undefined;
    // Made once per result (foresee asks about the newest round, consider again when it is old): params never change,
    // so a result summarized before is long enough.
    let made = this.texts.get(block.param);
    if (made === undefined && toolResultText(block.param).length <= this.o.minChars) return undefined;
    const toolName = block.toolName ?? (block.observation ? observationName(ctx, block.messageId) : undefined);
    if (made === undefined) {
      const text = summarizeToolResult(block.param, {
        toolName,
        refPatterns: this.patterns,
        maxRefs: this.o.maxRefs,
        previewChars: this.o.previewChars,
        label: `older than the last ${this.o.keepTurns} tool rounds`,
      });
      // The block as it would be sent, one object per result (its token count is memoized per object).
      this.texts.set(block.param, (made = { text, sent: applyTrim(block.param, text) }));
    }
    const { text } = made;
    const before = ctx.tokens.block(block.param).tokens;
    // As sent: the block with its new text (a tool_result keeps its markup, which a bare text count leaves out).
    const after = ctx.tokens.block(made.sent).tokens;
    if (after >= before) return undefined;
    return { blockId, toolName, text, before, after, saved: before - after };
  }

  private consider(ctx: StrategyContext, blockId: string, pos: number): void {
    const s = this.summaryOf(ctx, blockId);
    if (!s) return;
    const { text, before, after } = s;
    const what = ctx.session.block(blockId)?.observation
      ? `${s.toolName ?? 'observation'} observation`
      : `${s.toolName ?? 'tool'} result`;
    ctx.propose({
      position: pos,
      saved: before - after,
      overlay: {
        kind: 'trim',
        blockId,
        text,
        author: `strategy:${this.name}`,
        reason:
          `${what} older than the last ${this.o.keepTurns} tool rounds: ` + `summarized (${before} → ${after} tokens)`,
        callIndex: ctx.callIndex,
        tokensBefore: before,
        tokensAfter: after,
      },
    });
  }
}

/**
 * Whether an old round keeps its thinking. A round whose calls got no answer (a denial with the user's words in text)
 * does. A round answered with a client's text-form output (Cline, Roo) is old like any other, and its thinking goes
 * (the API checks only the latest response's thinking, which the last round, kept verbatim, carries), except on a model
 * known to drop earlier turns' thinking (Sonnet 4.5 and older: every Cline answer is a new turn to the API, so that
 * thinking is neither billed nor keys the cache, and dropping it would change bytes for nothing). On models that keep
 * earlier thinking (Opus 4.5 on) it is billed on every call.
 */
function keepsThinking(ctx: StrategyContext, r: ToolRound): boolean {
  if (r.toolUseIds.length > 0 && r.resultPos < 0) return true;
  if (!r.observationIds?.some((id) => isClientToolOutput(ctx.session.block(id)))) return false;
  const model = ctx.session.messages[r.assistantPos]?.meta.model;
  return model !== undefined && !keepsPriorThinking(model);
}

/** The result blocks of a round: its tool_results, or its observation blocks. */
function resultBlocks(ctx: StrategyContext, r: ToolRound): string[] {
  if (r.observationIds) return [...r.observationIds];
  const out: string[] = [];
  for (const id of r.toolUseIds) {
    const blockId = ctx.session.toolResultBlockId(id);
    if (blockId) out.push(blockId);
  }
  return out;
}

/** An observation's "tool name": the command word of the action it answers, else `observation`. */
function observationName(ctx: StrategyContext, messageId: string): string {
  const pos = ctx.session.position(messageId) ?? 0;
  return actionWord(ctx.session.messages[pos - 1]) ?? 'observation';
}
