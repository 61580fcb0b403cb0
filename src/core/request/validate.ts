/**
 * Validator of the Messages API's request rules (docs/anthropic-api.md).
 * Messages are worded like the API's own 400 errors where the wording is known
 * (reference, and public issue threads quoting the API); the few rules the API
 * words differently or not at all say so next to them. Unknown block types are
 * tolerated. Linear in the number of blocks.
 */
import { prefillUnsupported } from '../models';
import type { ContentBlockParam } from '../session/types';
import { contentBlocks, endsWithWhitespace, isBlank, nestedBlocks } from '../api/blocks';
import type { RequestBody, Violation } from '../api/wire';
import { missingUserText, type RequiredUserText } from './user-text-carried';
import { MAX_MESSAGES, RULE, v, type Messages } from './validate-rules';
import { checkToolPairing } from './validate-tools';
import { checkThinking, checkThinkingLoop, thinkingEnabled } from './validate-thinking';
import { checkCacheControl } from './validate-cache';

export { MAX_CACHE_CONTROL_BLOCKS, MAX_MESSAGES, RULE } from './validate-rules';
export { answersTool, callsTool } from './validate-tools';
export { checkLatestThinking, checkThinkingLoop, thinkingEnabled } from './validate-thinking';

export interface ValidateOptions {
  /** Model the request is for (defaults to body.model): decides the 4.6+ "end with a user message" rule. */
  readonly model?: string;
  /**
   * The thinking/redacted_thinking blocks of the latest assistant message as the
   * model produced them. When given, the body's latest assistant message must carry
   * exactly these, unmodified and in order.
   */
  readonly latestAssistantThinking?: readonly ContentBlockParam[];
  /**
   * The request is sent with extended thinking enabled. Default: the body's own
   * `thinking` param (`enabled` or `adaptive`). Replays of recorded sessions do not
   * know the client's thinking config; the builder passes true when the response the
   * request continues was produced with thinking (it had thinking blocks).
   */
  readonly thinking?: boolean;
  /**
   * The protected user text of the history the request covers (request/user-text-carried.ts):
   * each must be carried verbatim in a user message. Checked when given (the engine's builder).
   */
  readonly userText?: readonly RequiredUserText[];
}

/** Every violation of the API's request rules in `body`; [] when the API would accept it. */
export function validateRequest(body: RequestBody, opts: ValidateOptions = {}): Violation[] {
  const out: Violation[] = [];
  const msgs = body.messages;
  if (msgs.length === 0) out.push(v(RULE.noMessages, 'messages: at least one message is required'));
  // Wording ours: the API's message for this limit is not quoted anywhere we could find.
  if (msgs.length > MAX_MESSAGES)
    out.push(v(RULE.tooManyMessages, `messages: at most ${MAX_MESSAGES} messages are allowed, found ${msgs.length}`));
  checkRoles(msgs, out);
  checkContent(msgs, out);
  checkToolPairing(msgs, out);
  const thinking = opts.thinking ?? thinkingEnabled(body);
  checkThinking(msgs, opts.latestAssistantThinking, out);
  checkThinkingLoop(msgs, thinking, out);
  checkCacheControl(body, out);
  if (opts.userText) checkUserText(msgs, opts.userText, out);
  if (
    msgs.length > 0 &&
    msgs[msgs.length - 1].role === 'assistant' &&
    prefillUnsupported(opts.model ?? body.model) === true
  ) {
    out.push(
      v(
        RULE.prefill,
        'This model does not support assistant message prefill. The conversation must end with a user message.',
        msgs.length - 1,
      ),
    );
  }
  return out;
}

/** The user's words are carried verbatim (a rule of ours, not the API's: wording ours). */
function checkUserText(msgs: Messages, required: readonly RequiredUserText[], out: Violation[]): void {
  const missing = missingUserText(msgs, required);
  if (!missing.length) return;
  const first = missing[0];
  const text = first.param.type === 'text' ? first.param.text : `[${first.param.type}]`;
  const more = missing.length > 1 ? ` (and ${missing.length - 1} more)` : '';
  out.push(
    v(
      RULE.userTextLost,
      `messages: the user's text from history message ${first.position} is not in the request verbatim${more}: ` +
        `${JSON.stringify(text.slice(0, 60))}; automatic strategies must keep the user's words`,
    ),
  );
}

/** First message is user; roles alternate (the API merges same-role runs today, but we never rely on it). */
function checkRoles(msgs: Messages, out: Violation[]): void {
  if (msgs.length > 0 && msgs[0].role !== 'user')
    out.push(v(RULE.firstUser, 'messages: first message must use the "user" role', 0));
  for (let i = 1; i < msgs.length; i++) {
    const role = msgs[i].role;
    if (role === msgs[i - 1].role) {
      out.push(
        v(
          RULE.alternation,
          `messages: roles must alternate between "user" and "assistant", but found multiple "${role}" roles in a row`,
          i,
        ),
      );
    }
  }
}

function checkText(text: string, i: number, j: number, out: Violation[]): void {
  if (text.length === 0) out.push(v(RULE.emptyText, 'messages: text content blocks must be non-empty', i, j));
  else if (isBlank(text))
    out.push(v(RULE.whitespaceText, 'messages: text content blocks must contain non-whitespace text', i, j));
}

/** Non-empty content, no empty or whitespace-only text (nested in tool results too), tool blocks in the right role. */
function checkContent(msgs: Messages, out: Violation[]): void {
  const last = msgs.length - 1;
  // Plain loops: this runs on every request over the whole history (no closure or array per message).
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i];
    const empty = m.content.length === 0;
    if (empty && !(i === last && m.role === 'assistant')) {
      out.push(
        v(
          RULE.emptyContent,
          `messages.${i}: all messages must have non-empty content except for the optional final assistant message`,
          i,
        ),
      );
    }
    if (empty) continue;
    const blocks = contentBlocks(m.content);
    for (let j = 0; j < blocks.length; j++) {
      const b = blocks[j];
      if (b.type === 'text') checkText(b.text, i, j, out);
      else if (b.type === 'tool_result' && Array.isArray(b.content)) {
        for (const c of nestedBlocks(b))
          if ((c as ContentBlockParam).type === 'text') checkText((c as { text: string }).text, i, j, out);
      }
      // Wording ours: the API rejects these with a schema error whose text varies.
      if (b.type === 'tool_result' && m.role !== 'user')
        out.push(
          v(
            RULE.toolBlockRole,
            `messages.${i}.content.${j}: \`tool_result\` blocks are only allowed in user messages`,
            i,
            j,
          ),
        );
      if (b.type === 'tool_use' && m.role !== 'assistant')
        out.push(
          v(
            RULE.toolBlockRole,
            `messages.${i}.content.${j}: \`tool_use\` blocks are only allowed in assistant messages`,
            i,
            j,
          ),
        );
    }
    const tail = blocks[blocks.length - 1];
    if (
      i === last &&
      m.role === 'assistant' &&
      tail.type === 'text' &&
      !isBlank(tail.text) &&
      endsWithWhitespace(tail.text)
    ) {
      out.push(
        v(
          RULE.finalWhitespace,
          'messages: final assistant content cannot end with trailing whitespace',
          i,
          blocks.length - 1,
        ),
      );
    }
  }
}
