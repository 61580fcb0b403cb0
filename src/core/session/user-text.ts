/**
 * The user's own words are not ours to trim (docs/ARCHITECTURE.md). A block is protected when it is
 * a text block of a user message (typed prompts, the client's `<system-reminder>` blocks
 * with CLAUDE.md, environment and skills, hook output, interruptions), or any block of the
 * first user message of the log or of a compact boundary (the task and the client's
 * injected context, whole). Tool results are not user text (except the user's words a Roo
 * result carries: session/client-text.ts), and neither are observations nor the tool output
 * Cline-style clients send as text (session/client-text.ts):
 * in thought-action agent loops (SWE-agent without function calling, mini-swe-agent) the
 * environment's answer to each action arrives as a user message, which the importer marks
 * from the recording's own structure (MessageMeta.observation); those blocks are trimmed
 * like tool results (the first user message stays protected whole even so).
 *
 * No automatic strategy may drop, trim or summarize a protected block: the session ignores
 * such overlays on it (and a summary over a range holding one is inactive), so the block
 * reaches the model verbatim whatever a strategy proposed. The exceptions are overlays the
 * user made (an explicit action), LLM history compression the user started (it says so in
 * its summary), and the anchors that reproduce other products' behaviour for comparison.
 */
import {
  clientContextKind,
  isClientContext,
  resultCarriesUserWords,
  supersedesContext,
  type ClientContextKind,
} from './client-text';
import type { Author } from './overlay';
import { lowerBound } from './sorted';
import type { LogBlock, LogMessage } from './types';

/** LLM history compression: started by the user, may summarize their words and says so. */
export const USER_STARTED_COMPRESSION = ['whole-history', 'last-n-messages', 'chunked', 'retrieve-facts'] as const;
/** Other products' behaviour, reproduced faithfully for comparison (bench, report), never a default. */
export const ANCHOR_STRATEGIES = [
  'anthropic-clear-tool-uses',
  'opencode-prune',
  'openai-tool-output-trimmer',
  'strands-window',
] as const;

const EXEMPT = new Set<string>([...USER_STARTED_COMPRESSION, ...ANCHOR_STRATEGIES].map((n) => `strategy:${n}`));

/** Whether overlays by this author may change protected user text. */
export function mayChangeUserText(author: Author): boolean {
  return author === 'user' || EXEMPT.has(author);
}

export const PROTECTED_REASON = {
  text:
    "user text: the user's own words (prompt, system-reminder, hook output) reach the model verbatim under every " +
    'automatic strategy',
  first: 'first user message: the task and the context the client injected reach the model whole',
  context:
    "client context (Cline's, Roo's <environment_details>, Cline's task_progress block): injected by the client " +
    'every turn, kept verbatim like a system reminder until a later copy restates it',
  result:
    "the user's words inside a tool result (a Roo <feedback> or <answer>): reach the model verbatim under every " +
    'automatic strategy',
} as const;

/** Why an observation block is not protected (shown where a protected block would show its reason). */
export const OBSERVATION_REASON =
  "environment output: the answer to the agent's action (the recording marks it), not the user's words; trimmed " +
  'like a tool result';

/** Why a client's text-form tool output (Cline, Roo: session/client-text.ts) is not protected. */
export const CLIENT_OUTPUT_REASON =
  'tool output the client sent as text (its "[tool] Result:" header says so), not the user\'s words; trimmed ' +
  'like a tool result';

/** The reason shown on an unprotected observation block (environment output, or a client's text-form result). */
export function outputReason(block: LogBlock): string | undefined {
  if (!block.observation) return undefined;
  return block.toolName !== undefined ? CLIENT_OUTPUT_REASON : OBSERVATION_REASON;
}

/** Why a block of a message is protected, or undefined. `firstUser`: the message opens the log or an epoch. */
export function protectedReason(message: LogMessage, block: LogBlock, firstUser: boolean): string | undefined {
  if (message.role !== 'user') return undefined;
  if (block.kind === 'tool_result')
    return resultCarriesUserWords(
      block.param,
      message.blocks.map((b) => b.param),
    )
      ? PROTECTED_REASON.result
      : undefined;
  // Blank text is never sent (the API refuses it): nothing to keep.
  if (block.param.type === 'text' && !block.param.text.trim()) return undefined;
  if (firstUser) return PROTECTED_REASON.first;
  if (block.observation) return undefined;
  if (block.kind !== 'text') return undefined;
  return block.param.type === 'text' && isClientContext(block.param.text)
    ? PROTECTED_REASON.context
    : PROTECTED_REASON.text;
}

/** The kind of client context a protected block is, when its protection lasts only until a later copy. */
export function staleableContext(block: LogBlock, reason: string | undefined): ClientContextKind | undefined {
  return reason === PROTECTED_REASON.context && block.param.type === 'text'
    ? clientContextKind(block.param.text)
    : undefined;
}

/**
 * Positions of messages that hold a protected block, ascending (appended in log order), so a
 * range check is a binary search: O(log n), not O(range). A client context block stops being
 * protected when a later message restates it (session/client-text.ts supersedesContext): the
 * newest copy stays; its message's position stays listed (range checks err on the side of the user).
 */
export class ProtectedIndex {
  private readonly positions: number[] = [];
  private readonly reasons = new Map<string, string>();
  private sawUser = false;
  /** The newest protected client context block of each kind, by block id. */
  private readonly latestContext = new Map<ClientContextKind, string>();

  /** Called for each appended message, in log order. */
  add(message: LogMessage, position: number): void {
    const first = message.role === 'user' && (!this.sawUser || message.meta.compactBoundary === true);
    if (message.role === 'user') this.sawUser = true;
    let any = false;
    const context: [ClientContextKind, string][] = [];
    for (const b of message.blocks) {
      const why = protectedReason(message, b, first);
      if (!why) continue;
      this.reasons.set(b.id, why);
      any = true;
      const kind = staleableContext(b, why);
      if (kind) context.push([kind, b.id]);
    }
    if (any) this.positions.push(position);
    for (const [kind] of context) {
      for (const [earlier, old] of [...this.latestContext])
        if (supersedesContext(kind, earlier)) {
          this.reasons.delete(old);
          this.latestContext.delete(earlier);
        }
    }
    for (const [kind, id] of context) this.latestContext.set(kind, id);
  }

  reasonOf(blockId: string): string | undefined {
    return this.reasons.get(blockId);
  }

  /** Positions of the messages in [from, to) (positions) that hold a protected block, ascending. */
  positionsIn(from: number, to: number): readonly number[] {
    return this.positions.slice(lowerBound(this.positions, from), lowerBound(this.positions, to));
  }

  /** Whether any message in [from, to] (positions, inclusive) holds a protected block. */
  inRange(from: number, to: number): boolean {
    const i = lowerBound(this.positions, from);
    return i < this.positions.length && this.positions[i] <= to;
  }
}
