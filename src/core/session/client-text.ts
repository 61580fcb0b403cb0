/**
 * What a block of a user message is, for clients that answer tool calls in text (Cline, Roo
 * Code, Kilo Code and their forks). They record a tool's output as text blocks of the next
 * user message, after a header the client writes:
 * - `[read_file for 'src/a.ts'] Result:` then the output as the next block(s) (Cline's and
 *   Roo's `pushToolResult`: cline/cline src/core/task/tools/utils/ToolResultUtils.ts, older
 *   versions; RooCodeInc/Roo-Code src/core/assistant-message/presentAssistantMessage.ts);
 * - `[read_file for 'src/a.ts'] Result:\n<output>` in one block (Cline ≥ 3.3x when the
 *   native tool call's id is not in its map: ToolResultUtils.createToolResultBlock, id "cline");
 * - the output may be one of Cline's wrappers (cline/cline src/core/prompts/responses.ts):
 *   `The tool execution failed with the following error:\n<error>…`, `The user denied this
 *   operation.`, or `Tool [x] was not executed because a tool has already been used in this
 *   message…` (presentAssistantMessage).
 * The user's own words sit in the same messages: `<feedback>` (ToolResultUtils
 * pushAdditionalToolFeedback, responses.ts toolDeniedWithFeedback, attempt_completion's
 * "The user has provided feedback on the results…"), `<answer>` (ask_followup_question),
 * `<user_message>` (task resumption), `<task>`, typed text and images. Client-injected context is
 * kept verbatim like Claude Code's `<system-reminder>` until a later copy restates it: Cline's and
 * Roo's `<environment_details>` (re-sent every turn; cline/cline src/core/task/index.ts
 * getEnvironmentDetails, the cwd file listing only when it includes file details) and Cline's focus
 * chain block (its task_progress checklist and reminder, pushed as its own block by loadContext:
 * src/core/task/focus-chain/index.ts generateFocusChainInstructions, prompts.ts). An older copy
 * whose content a later one restates is stale: session/user-text.ts stops protecting it.
 *
 * Only tool output is marked; everything else stays the user's (protected). A block that holds
 * output and the user's words together (a result whose text carries a `<feedback>`) is kept
 * whole: the user's words are never trimmed, so the doubt goes to them.
 */
import type { ContentBlockParam } from './types';

/** A tool-output text block: the tool the header names and the header's quoted argument (a path, a command). */
export interface ClientToolOutput {
  readonly toolName: string;
  readonly target?: string;
}

/** The client's header of a tool result: `[name] Result:` or `[name for '…'] Result:` at the block's start. */
const HEADER = /^\[([\w-]+)(?: for '([^]*?)')?\] Result:/;
/** Cline's answer to a second tool call in one response (presentAssistantMessage). */
const NOT_EXECUTED = /^Tool \[([\w-]+)\] was not executed because a tool has already been used in this message\./;
/** Tags that wrap the user's own words in these clients' messages. */
const USER_WORDS = /<(?:feedback|answer|user_message|task)>/;
/** Client-injected context, re-sent every turn. */
const CONTEXT = /^\s*<environment_details>/;
/** Cline's focus chain block (the headings of its focus-chain prompts), pushed beside the turn's content. */
const FOCUS_CHAIN = /^\s*(?:# (?:task_progress|TODO LIST|Todo List)\b|\*\*All \d+ items have been completed!\*\*)/;
/** The cwd file listing Cline adds to the environment block when it includes file details (first turn, resumption). */
const FILE_LISTING = /^# Current Working Directory \(.*\) Files$/m;

/**
 * Kinds of client context: the environment block without and with the file listing, the focus chain block. A later
 * block supersedes an earlier one when it restates all the earlier one holds ({@link supersedesContext}).
 */
export type ClientContextKind = 'environment' | 'environment-files' | 'focus-chain';

/** The kind of client context a text is, or undefined (the user's words, tool output). */
export function clientContextKind(text: string): ClientContextKind | undefined {
  if (CONTEXT.test(text)) return FILE_LISTING.test(text) ? 'environment-files' : 'environment';
  // Every focus chain prompt names the task_progress parameter: a typed "# TODO LIST" prompt stays the user's.
  return FOCUS_CHAIN.test(text) && text.includes('task_progress') ? 'focus-chain' : undefined;
}

/**
 * Whether a later context block of kind `later` restates everything one of kind `earlier` holds: any environment block
 * restates the visible files, open tabs, time and mode; only one with the file listing restates a listing; a focus chain
 * block restates the previous checklist.
 */
export function supersedesContext(later: ClientContextKind, earlier: ClientContextKind): boolean {
  if (earlier === 'focus-chain' || later === 'focus-chain') return later === earlier;
  return earlier === 'environment' || later === 'environment-files';
}

/**
 * Whether a native tool_result of such a client carries the user's words (Roo Code puts an
 * approval's or attempt_completion's `<feedback>`, and ask_followup_question's `<answer>`, in
 * the result it sends): a message that also holds the client's `<environment_details>` block.
 */
export function resultCarriesUserWords(block: ContentBlockParam, message: readonly ContentBlockParam[]): boolean {
  if (block.type !== 'tool_result') return false;
  // The message's client context first: a huge result of another client's message is never scanned.
  if (!message.some((b) => b.type === 'text' && isClientContext(b.text))) return false;
  const c = block.content;
  const text = typeof c === 'string' ? c : (c ?? []).map((x) => (x.type === 'text' ? x.text : '')).join('\n');
  return USER_WORDS.test(text);
}

/** Whether a text is client context (kept verbatim like a system reminder until a later copy restates it). */
export function isClientContext(text: string): boolean {
  return clientContextKind(text) !== undefined;
}

/** Whether a text opens a tool's output (a result header, or the answer to a call that was not run). */
export function opensToolOutput(text: string): boolean {
  return HEADER.test(text) || NOT_EXECUTED.test(text);
}

/** The tool a header names, when `text` starts with one. */
export function toolOutputHeader(text: string): ClientToolOutput | undefined {
  const m = HEADER.exec(text);
  if (!m) return undefined;
  return m[2] !== undefined ? { toolName: m[1], target: m[2] } : { toolName: m[1] };
}

/**
 * Per block of a user message: the tool output it is (see module doc), or undefined (the
 * user's words, client context, native tool_result blocks, images, documents). A header opens
 * a run: the text blocks after it are that tool's output until the next header, the client's
 * context, or a block with the user's words.
 */
export function classifyUserBlocks(blocks: readonly ContentBlockParam[]): (ClientToolOutput | undefined)[] {
  const out: (ClientToolOutput | undefined)[] = [];
  let run: ClientToolOutput | undefined;
  for (const b of blocks) {
    if (b.type === 'tool_result') {
      run = undefined;
      out.push(undefined);
      continue;
    }
    if (b.type !== 'text') {
      // Images and documents stay the user's (a screenshot result is kept, conservatively).
      out.push(undefined);
      continue;
    }
    const text = b.text;
    const header = toolOutputHeader(text);
    if (header) {
      const mixed = USER_WORDS.test(text);
      run = mixed ? undefined : header;
      out.push(mixed ? undefined : header);
      continue;
    }
    const skipped = NOT_EXECUTED.exec(text);
    if (skipped && !USER_WORDS.test(text)) {
      run = undefined;
      out.push({ toolName: skipped[1] });
      continue;
    }
    if (isClientContext(text) || USER_WORDS.test(text)) run = undefined;
    out.push(run);
  }
  return out;
}
