/**
 * Reference implementations of other products' defaults ("anchors"), so any
 * transcript can be replayed through them and compared with ours. They apply
 * their edits on every call, as the originals do (no cache awareness).
 * Parameters from docs/anthropic-api.md, "Anchors' defaults".
 */
import { toolResultText } from '../session/log';
import { AtomicWindow } from './atomic-window';
import type { Strategy, StrategyContext, StrategyDoc } from './types';

const ALWAYS = { kind: 'always' } as const;

function trimResult(
  ctx: StrategyContext,
  name: string,
  blockId: string,
  pos: number,
  text: string,
  reason: string,
): void {
  const s = ctx.session;
  if (ctx.isPending(blockId) || s.isPinned(blockId) || s.isUserRestored(blockId) || s.overlaysOnBlock(blockId).length)
    return;
  const block = s.block(blockId)!;
  const before = ctx.tokens.block(block.param).tokens;
  const after = ctx.tokens.text(text).tokens;
  ctx.propose({
    position: pos,
    saved: before - after,
    overlay: {
      kind: 'trim',
      blockId,
      text,
      author: `strategy:${name}`,
      reason,
      callIndex: ctx.callIndex,
      tokensBefore: before,
      tokensAfter: after,
    },
  });
}

/** Tool results in the request, oldest first: [blockId, position, toolName]. */
function* results(ctx: StrategyContext, from = 0): Generator<{ id: string; pos: number; tool: string; chars: number }> {
  for (const r of ctx.index.rounds.slice(from)) {
    if (r.resultPos < ctx.epochStart || r.resultPos < 0 || r.resultPos >= ctx.upTo) continue;
    for (const u of r.toolUseIds) {
      const id = ctx.session.toolResultBlockId(u);
      if (!id) continue;
      const b = ctx.session.block(id)!;
      yield { id, pos: r.resultPos, tool: b.toolName ?? 'tool', chars: toolResultText(b.param).length };
    }
  }
}

/**
 * Anthropic context editing `clear_tool_uses_20250919`: above 100k input tokens, clear all but the last 3 tool results.
 */
export class AnthropicClearToolUses implements Strategy {
  readonly name = 'anthropic-clear-tool-uses';
  readonly trigger = ALWAYS;
  private untrimmed = 0;
  private counted = 0;
  constructor(private readonly o = { triggerTokens: 100_000, keep: 3 }) {}
  run(ctx: StrategyContext): void {
    // The server sees the client's full history on every request: the trigger is on the untrimmed size.
    for (; this.counted < ctx.upTo; this.counted++)
      for (const b of ctx.session.messages[this.counted].blocks) this.untrimmed += ctx.tokens.block(b.param).tokens;
    if (this.untrimmed < this.o.triggerTokens) return;
    const all = [...results(ctx)];
    for (const r of all.slice(0, Math.max(0, all.length - this.o.keep))) {
      trimResult(
        ctx,
        this.name,
        r.id,
        r.pos,
        '[cleared to save context]',
        `clear_tool_uses: input over ${this.o.triggerTokens} tokens, keeping the last ${this.o.keep} tool uses`,
      );
    }
  }
}

/**
 * opencode prune: protect the newest 40k tokens of tool output and the last 2 user turns; prune if ≥ 20k reclaimable.
 */
export class OpencodePrune implements Strategy {
  readonly name = 'opencode-prune';
  readonly trigger = ALWAYS;
  constructor(private readonly o = { protectTokens: 40_000, minimumTokens: 20_000, protectTurns: 2 }) {}
  run(ctx: StrategyContext): void {
    const prompts = ctx.index.prompts.filter((p) => p < ctx.upTo);
    const turnStart = prompts.length >= this.o.protectTurns ? prompts[prompts.length - this.o.protectTurns] : 0;
    const all = [...results(ctx)].filter((r) => r.pos < turnStart);
    let protectedTokens = 0;
    const victims: typeof all = [];
    let reclaim = 0;
    for (let i = all.length - 1; i >= 0; i--) {
      const r = all[i];
      const t = ctx.tokens.block(ctx.session.block(r.id)!.param).tokens;
      if (ctx.session.overlaysOnBlock(r.id).length) continue;
      if (protectedTokens < this.o.protectTokens) {
        protectedTokens += t;
        continue;
      }
      victims.push(r);
      reclaim += t;
    }
    if (reclaim < this.o.minimumTokens) return;
    for (const r of victims)
      trimResult(
        ctx,
        this.name,
        r.id,
        r.pos,
        '[Old tool result content cleared]',
        'opencode prune: older than the newest 40k tokens of tool output',
      );
  }
}

/** OpenAI Agents ToolOutputTrimmer: results older than the last 2 user turns and over 500 chars become a preview. */
export class OpenAIToolOutputTrimmer implements Strategy {
  readonly name = 'openai-tool-output-trimmer';
  readonly trigger = ALWAYS;
  private next = 0;
  constructor(private readonly o = { recentTurns: 2, maxChars: 500, previewChars: 200 }) {}
  run(ctx: StrategyContext): void {
    const prompts = ctx.index.prompts.filter((p) => p < ctx.upTo);
    if (prompts.length < this.o.recentTurns) return;
    const boundary = prompts[prompts.length - this.o.recentTurns];
    const rounds = ctx.index.rounds;
    for (
      ;
      this.next < rounds.length && rounds[this.next].resultPos >= 0 && rounds[this.next].resultPos < boundary;
      this.next++
    ) {
      for (const r of results(ctx, this.next)) {
        if (r.pos >= boundary || r.pos !== rounds[this.next].resultPos) break;
        if (r.chars <= this.o.maxChars) continue;
        const text = toolResultText(ctx.session.block(r.id)!.param);
        trimResult(
          ctx,
          this.name,
          r.id,
          r.pos,
          `[Trimmed: ${r.tool} output — ${r.chars} chars → ${text.slice(0, this.o.previewChars)}]`,
          'ToolOutputTrimmer: older than the last 2 user turns',
        );
      }
    }
  }
}

/**
 * Strands SlidingWindowConversationManager: keep the last 40 messages, moving the cut so
 * no tool pair is split, on every call (no hysteresis). The omitted range is one note.
 */
export function strandsWindow(): Strategy {
  return new AtomicWindow(
    {
      maxTokens: Number.MAX_SAFE_INTEGER,
      maxMessages: 40,
      minRecentKeep: 1,
      lowWater: 1,
      digest: false,
      trigger: ALWAYS,
    },
    'strands-window',
  );
}

export const ANCHOR_DOCS: readonly StrategyDoc[] = [
  {
    name: 'anthropic-clear-tool-uses',
    summary: 'Anchor: Anthropic context editing defaults (trigger 100k input tokens, keep 3 tool uses).',
    options: [],
  },
  {
    name: 'opencode-prune',
    summary: 'Anchor: opencode prune (protect 40k tokens of tool output and 2 user turns; prune if ≥ 20k).',
    options: [],
  },
  {
    name: 'openai-tool-output-trimmer',
    summary: 'Anchor: OpenAI Agents ToolOutputTrimmer (2 user turns, 500 chars, 200-char preview).',
    options: [],
  },
  { name: 'strands-window', summary: 'Anchor: Strands sliding window of 40 messages.', options: [] },
];
