/**
 * Per-message rendering: what one log message contributes to a request, given
 * its resolved view. Pure and context-free (no model, no neighbours), so the
 * builder caches it by (message id, revision) and a turn that adds one message
 * renders one message.
 */
import type { SummaryOverlay } from '../session/overlay';
import type { ResolvedMessage } from '../session/session';
import type { ContentBlockParam, MessageParam, Role } from '../session/types';
import { opensToolOutput } from '../session/client-text';
import { cleanToolResult, isBlank, isThinking, withoutCacheControl } from '../api/blocks';
import type { Repair } from '../api/wire';

/** One block as it will be sent, with the id of what it came from. */
export interface SentBlock {
  /** Log block id, or a synthetic id (see {@link SYNTHETIC}) for blocks the builder made. */
  readonly id: string;
  readonly param: ContentBlockParam;
  /**
   * A thinking block an overlay hid (pruned or trimmed). Thinking cannot be edited
   * (its signature covers the bytes), so it is either sent verbatim (in the latest
   * assistant message, which must stay intact) or not at all (older turns).
   */
  readonly hidden?: true;
  /**
   * A client's text-form tool output (session/client-text.ts): the tool it answers and the log
   * id of the block that opens its output (the header), so the assembler can send it as the
   * tool_result of a native call, the way the client does.
   */
  readonly output?: { readonly tool: string; readonly run: string };
}

/** Prefixes of synthetic block ids (never log block ids, which are `${messageId}.${index}`). */
export const SYNTHETIC = {
  summary: 'summary:',
  toolResult: 'synthetic-result:',
  interrupted: 'interrupted:',
} as const;

export function isSyntheticId(id: string): boolean {
  return (
    id.startsWith(SYNTHETIC.summary) || id.startsWith(SYNTHETIC.toolResult) || id.startsWith(SYNTHETIC.interrupted)
  );
}

/** Appended (as its own text block) to an interrupted assistant message, so it is never taken as complete. */
export const INTERRUPTED_NOTE = '[This response was interrupted before it finished.]';

/** What one log message contributes to a request (a class, so every instance has one shape). */
export class RenderedMessage {
  /** Cached `{role, content}` of the visible blocks and their ids, made on first use. */
  private sent: { param: MessageParam; ids: readonly string[] } | undefined = undefined;

  constructor(
    readonly messageId: string,
    readonly revision: number,
    readonly role: Role,
    /** Blocks in log order; `hidden` entries are not sent unless restored. */
    readonly blocks: readonly SentBlock[],
    /** Repairs made while rendering (empty text dropped, interrupted message, misplaced tool blocks). */
    readonly repairs: readonly Repair[],
    /** Cline-style: the previous message's tool uses are answered as text here. */
    readonly unansweredToolUses: boolean,
    /** The active summary covering this message (set on every message of the range). */
    readonly summary: SummaryOverlay | undefined,
    /** The thinking blocks as the model produced them (for the latest-assistant check). */
    readonly originalThinking: readonly ContentBlockParam[],
  ) {
    let n = 0;
    for (const b of blocks) if (!b.hidden) n++;
    this.visible = n;
  }

  /** Number of blocks that are not hidden (0 = the message contributes nothing). */
  readonly visible: number;

  /** The visible blocks as a MessageParam with their ids (cached: unchanged messages reuse the same objects). */
  output(): { param: MessageParam; ids: readonly string[] } {
    if (this.sent) return this.sent;
    const vis = this.visible === this.blocks.length ? this.blocks : this.blocks.filter((b) => !b.hidden);
    this.sent = { param: { role: this.role, content: vis.map((b) => b.param) }, ids: vis.map((b) => b.id) };
    return this.sent;
  }
}

/** The user text block that stands in for a summarized range. */
export function summaryText(s: SummaryOverlay): string {
  return `<summary>\n${s.text}\n</summary>`;
}

/** The user message that replaces a summary range. */
export function summaryBlock(s: SummaryOverlay): SentBlock {
  return { id: `${SYNTHETIC.summary}${s.id}`, param: { type: 'text', text: summaryText(s) } };
}

/** The block as it may be sent: no recorded cache_control (breakpoints are the planner's), no blank nested text. */
function clean(param: ContentBlockParam): ContentBlockParam {
  const p = withoutCacheControl(param);
  return p.type === 'tool_result' ? cleanToolResult(p) : p;
}

/**
 * Render one resolved message.
 * - Summary start: one user text block `<summary>…</summary>`; other messages of the range render empty.
 * - Blocks the view does not send (`sent` undefined) are skipped; pruned/trimmed thinking is kept `hidden`.
 * - Empty or whitespace-only text is dropped (the API rejects it).
 * - tool_use in a user message / tool_result in an assistant message are dropped (never valid).
 * - Interrupted assistant messages (`meta.interrupted`): tool_use and thinking blocks are dropped
 *   (their input or signature may be partial), the text is kept and followed by {@link INTERRUPTED_NOTE}.
 */
export function renderMessage(rm: ResolvedMessage): RenderedMessage {
  const { message } = rm;
  // Cline-style results in text (the importer's flag, or text-form tool output the log marked, as a proxy sees it).
  const unanswered =
    message.role === 'user' && (message.meta.unansweredToolUses === true || message.blocks.some((b) => b.observation));
  if (rm.summaryStart) {
    return new RenderedMessage(
      message.id,
      rm.revision,
      'user',
      [summaryBlock(rm.summaryStart)],
      NONE,
      unanswered,
      rm.summaryStart,
      NONE,
    );
  }
  const first = rm.blocks[0];
  const summary = first?.state === 'summarized' && first.overlay?.kind === 'summary' ? first.overlay : undefined;
  const interrupted = message.role === 'assistant' && message.meta.interrupted === true;
  const blocks: SentBlock[] = [];
  const repairs: Repair[] = [];
  const originalThinking: ContentBlockParam[] = [];
  const interruptedDrops: string[] = [];
  /** The opening block of the text-form tool output being read. */
  let run: string | undefined;
  for (const rb of rm.blocks) {
    const { block, sent } = rb;
    if (isThinking(block.param)) {
      if (interrupted) interruptedDrops.push(block.id);
      else if (rb.state !== 'summarized') {
        originalThinking.push(block.param);
        blocks.push(
          sent === block.param ? { id: block.id, param: sent } : { id: block.id, param: block.param, hidden: true },
        );
      }
      continue;
    }
    if (!sent) continue;
    if (interrupted && sent.type === 'tool_use') {
      interruptedDrops.push(block.id);
      continue;
    }
    if (
      (sent.type === 'tool_use' && message.role !== 'assistant') ||
      (sent.type === 'tool_result' && message.role !== 'user')
    ) {
      repairs.push({
        rule: 'misplaced-tool-block',
        description: `dropped a ${sent.type} block from a ${message.role} message`,
        blockIds: [block.id],
      });
      continue;
    }
    if (sent.type === 'text' && isBlank(sent.text)) {
      repairs.push({
        rule: 'empty-text',
        description: 'dropped an empty or whitespace-only text block',
        blockIds: [block.id],
      });
      continue;
    }
    const param = clean(sent);
    if (param !== sent && param.type === 'tool_result' && param.content !== (sent as { content?: unknown }).content) {
      repairs.push({
        rule: 'empty-text',
        description: 'dropped empty text inside a tool result',
        blockIds: [block.id],
      });
    }
    if (block.observation && block.toolName !== undefined && block.param.type === 'text') {
      if (run === undefined || opensToolOutput(block.param.text)) run = block.id;
      blocks.push({ id: block.id, param, output: { tool: block.toolName, run } });
      continue;
    }
    run = undefined;
    blocks.push({ id: block.id, param });
  }
  if (interrupted) {
    const texts = blocks.filter((b) => b.param.type === 'text').map((b) => b.id);
    if (texts.length > 0)
      blocks.push({ id: `${SYNTHETIC.interrupted}${message.id}`, param: { type: 'text', text: INTERRUPTED_NOTE } });
    if (texts.length > 0 || interruptedDrops.length > 0) {
      repairs.push({
        rule: 'interrupted-assistant',
        description: 'interrupted assistant message: tool uses and thinking dropped, text marked as interrupted',
        blockIds: [...interruptedDrops, ...texts],
      });
    }
  }
  return new RenderedMessage(
    message.id,
    rm.revision,
    message.role,
    blocks,
    repairs.length ? repairs : NONE,
    unanswered,
    summary,
    originalThinking.length ? originalThinking : NONE,
  );
}

/** Shared empty list (most messages need no repair and have no thinking). */
const NONE: readonly never[] = Object.freeze([]);
