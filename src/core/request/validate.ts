/**
 * Validator of the Messages API's request rules (docs/anthropic-api.md).
 * Messages are worded like the API's own 400 errors where the wording is known
 * (reference, and public issue threads quoting the API); the few rules the API
 * words differently or not at all say so next to them. Unknown block types are
 * tolerated. Linear in the number of blocks.
 */
import { MAX_BREAKPOINTS } from '../api/cache-rules';
import { prefillUnsupported } from '../models';
import type { ContentBlockParam } from '../session/types';
import {
  cacheControlOf,
  contentBlocks,
  endsWithWhitespace,
  isBlank,
  isThinking,
  nestedBlocks,
  sameBlock,
  type CacheControl,
} from '../api/blocks';
import type { RequestBody, Violation } from '../api/wire';
import { missingUserText, type RequiredUserText } from './user-text-carried';

/** Reference: "At most 100,000 messages." */
export const MAX_MESSAGES = 100_000;
/** Reference: at most 4 `cache_control` breakpoints per request (automatic caching counts): the cache rule's. */
export const MAX_CACHE_CONTROL_BLOCKS = MAX_BREAKPOINTS;

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

/** Rule ids, one per API rule (Violation.rule). */
export const RULE = {
  noMessages: 'no-messages',
  tooManyMessages: 'max-messages',
  firstUser: 'first-user',
  alternation: 'alternation',
  emptyContent: 'empty-content',
  emptyText: 'empty-text',
  whitespaceText: 'whitespace-text',
  finalWhitespace: 'final-assistant-whitespace',
  toolBlockRole: 'tool-block-role',
  toolUseWithoutResult: 'tool-use-without-result',
  unexpectedToolResult: 'unexpected-tool-result',
  toolResultsFirst: 'tool-results-first',
  duplicateToolUse: 'duplicate-tool-use',
  duplicateToolResult: 'duplicate-tool-result',
  thinkingFirst: 'thinking-first',
  thinkingModified: 'thinking-modified',
  thinkingLoopStart: 'thinking-loop-start',
  thinkingFinalBlock: 'thinking-final-block',
  thinkingPrefill: 'thinking-prefill',
  thinkingDisabledFinal: 'thinking-disabled-final',
  cacheControlCount: 'cache-control-count',
  cacheControlThinking: 'cache-control-thinking',
  cacheControlEmptyText: 'cache-control-empty-text',
  cacheTtlOrder: 'cache-ttl-order',
  prefill: 'prefill-unsupported',
  userTextLost: 'user-text-lost',
} as const;

type Messages = RequestBody['messages'];

function v(rule: string, message: string, messageIndex?: number, blockIndex?: number): Violation {
  return { rule, message, messageIndex, blockIndex };
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
      `messages: the user's text from history message ${first.position} is not in the request verbatim${more}: ${JSON.stringify(text.slice(0, 60))}; automatic strategies must keep the user's words`,
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

/** Whether an assistant message calls `id` (a scan: a round has a handful of calls, no set per message). */
export function callsTool(m: Messages[number] | undefined, id: string): boolean {
  if (!m || m.role !== 'assistant' || typeof m.content === 'string') return false;
  for (const b of m.content) if (b.type === 'tool_use' && b.id === id) return true;
  return false;
}

/** Whether a user message answers `id`. */
export function answersTool(m: Messages[number] | undefined, id: string): boolean {
  if (!m || m.role !== 'user' || typeof m.content === 'string') return false;
  for (const b of m.content) if (b.type === 'tool_result' && b.tool_use_id === id) return true;
  return false;
}

/** Number of distinct tool_use ids of an assistant message (only asked when a message is out of order). */
function callCount(m: Messages[number] | undefined): number {
  const ids = new Set<string>();
  if (m && m.role === 'assistant' && typeof m.content !== 'string')
    for (const b of m.content) if (b.type === 'tool_use') ids.add(b.id);
  return ids.size;
}

/**
 * tool_use ids are unique and answered by tool_result blocks in the immediately
 * following user message; each tool_result answers a tool_use of the immediately
 * preceding assistant message; results come first in their message.
 */
function checkToolPairing(msgs: Messages, out: Violation[]): void {
  const seenUses = new Set<string>();
  for (let i = 0; i < msgs.length; i++) checkPairingAt(msgs, i, seenUses, out);
}

/**
 * Whether a tool_result for `id` comes before block j (a message has a handful of results: a scan, no set per message).
 */
function resultBefore(content: readonly ContentBlockParam[], j: number, id: string): boolean {
  for (let k = 0; k < j; k++) {
    const b = content[k];
    if (b.type === 'tool_result' && b.tool_use_id === id) return true;
  }
  return false;
}

/** {@link checkToolPairing} for message i. */
function checkPairingAt(msgs: Messages, i: number, seenUses: Set<string>, out: Violation[]): void {
  const m = msgs[i];
  if (typeof m.content === 'string') return;
  if (m.role === 'assistant') {
    let missing: string[] | undefined;
    let uses = 0;
    for (let j = 0; j < m.content.length; j++) {
      const b = m.content[j];
      if (b.type !== 'tool_use') continue;
      if (seenUses.has(b.id))
        out.push(v(RULE.duplicateToolUse, `messages.${i}.content.${j}: \`tool_use\` ids must be unique`, i, j));
      seenUses.add(b.id);
      uses++;
      if (!answersTool(msgs[i + 1], b.id)) (missing ??= []).push(b.id);
    }
    if (uses === 0) return;
    if (missing) {
      out.push(
        v(
          RULE.toolUseWithoutResult,
          `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. ` +
            'Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
          i,
        ),
      );
    }
    return;
  }
  const prev = msgs[i - 1];
  let firstOther = -1;
  let resultAfterOther = false;
  let results = 0;
  for (let j = 0; j < m.content.length; j++) {
    const b = m.content[j];
    if (b.type !== 'tool_result') {
      if (firstOther < 0) firstOther = j;
      continue;
    }
    results++;
    if (firstOther >= 0) resultAfterOther = true;
    if (!callsTool(prev, b.tool_use_id)) {
      out.push(
        v(
          RULE.unexpectedToolResult,
          `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${b.tool_use_id}. ` +
            'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
          i,
          j,
        ),
      );
    } else if (resultBefore(m.content, j, b.tool_use_id)) {
      // Wording ours: a second result for one call.
      out.push(
        v(
          RULE.duplicateToolResult,
          `messages.${i}.content.${j}: \`tool_use\` id ${b.tool_use_id} is answered by more than one \`tool_result\` block`,
          i,
          j,
        ),
      );
    }
  }
  if (resultAfterOther) {
    const k = callCount(prev) || results;
    out.push(
      v(
        RULE.toolResultsFirst,
        `messages.${i}: Did not find ${k} \`tool_result\` block(s) at the beginning of this message. ` +
          'Messages following `tool_use` blocks must begin with a matching number of `tool_result` blocks.',
        i,
        firstOther,
      ),
    );
  }
}

const THINKING_MODIFIED =
  '`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.';

/** Thinking first in any assistant message that has thinking; the latest one's thinking unmodified. */
function checkThinking(msgs: Messages, originals: readonly ContentBlockParam[] | undefined, out: Violation[]): void {
  msgs.forEach((m, i) => {
    if (m.role !== 'assistant' || typeof m.content === 'string' || m.content.length === 0) return;
    const first = m.content[0];
    if (!isThinking(first) && m.content.some(isThinking)) {
      out.push(
        v(
          RULE.thinkingFirst,
          `messages.${i}.content.0: If an assistant message contains any thinking blocks, the first block must be thinking or redacted_thinking. Found ${first.type}.`,
          i,
          0,
        ),
      );
    }
  });
  checkLatestThinking(msgs, originals, out);
}

/** The latest assistant message carries the model's thinking blocks unmodified and in order. */
export function checkLatestThinking(
  msgs: Messages,
  originals: readonly ContentBlockParam[] | undefined,
  out: Violation[],
): void {
  const latest = lastIndexOf(msgs, 'assistant');
  if (!originals || latest < 0) return;
  const content = msgs[latest].content;
  const sent: { block: ContentBlockParam; index: number }[] = [];
  if (typeof content !== 'string') content.forEach((b, index) => isThinking(b) && sent.push({ block: b, index }));
  const n = Math.max(sent.length, originals.length);
  for (let k = 0; k < n; k++) {
    if (sent[k] && originals[k] && sameBlock(sent[k].block, originals[k])) continue;
    const j = sent[k]?.index ?? Math.max(0, content.length - 1);
    out.push(v(RULE.thinkingModified, `messages.${latest}.content.${j}: ${THINKING_MODIFIED}`, latest, j));
    return;
  }
}

/** The body's own `thinking` param turns extended thinking on (`enabled`, or `adaptive` on newer models). */
export function thinkingEnabled(body: RequestBody): boolean {
  const t = (body as { thinking?: { type?: string } | null }).thinking;
  return t?.type === 'enabled' || t?.type === 'adaptive';
}

/** Index of the last message with this role, or -1. */
function lastIndexOf(msgs: Messages, role: 'user' | 'assistant'): number {
  for (let i = msgs.length - 1; i >= 0; i--) if (msgs[i].role === role) return i;
  return -1;
}

/**
 * The thinking rules that depend on whether thinking is on (reference, "Requests that the API rejects"):
 * - a final assistant message does not end with a thinking block (the API's wording, from issue
 *   threads; an earlier thinking-only response is accepted: Claude Code sent one in ff59cfd2, call 24);
 * - with thinking on, the conversation ends with a user message (no prefill on any model; wording ours:
 *   the API's text for this case is not quoted anywhere we could find);
 * - with thinking on and the request continuing a tool loop (the last user message carries
 *   `tool_result`s), the assistant message before it starts with thinking (the API's wording);
 * - with thinking off, a final assistant message holds no thinking (the API's wording, from issue threads).
 */
export function checkThinkingLoop(msgs: Messages, thinking: boolean, out: Violation[]): void {
  const last = msgs.length - 1;
  if (last < 0) return;
  const final = msgs[last];
  if (final.role === 'assistant') {
    const tail = typeof final.content === 'string' ? undefined : final.content[final.content.length - 1];
    if (tail && isThinking(tail))
      out.push(
        v(
          RULE.thinkingFinalBlock,
          `messages.${last}: The final block in an assistant message cannot be \`thinking\`.`,
          last,
          final.content.length - 1,
        ),
      );
    if (thinking) {
      out.push(
        v(
          RULE.thinkingPrefill,
          `messages.${last}: When \`thinking\` is enabled, the conversation must end with a \`user\` message (assistant prefill is not supported with thinking).`,
          last,
        ),
      );
    } else if (typeof final.content !== 'string' && final.content.some(isThinking)) {
      out.push(
        v(
          RULE.thinkingDisabledFinal,
          `messages.${last}.content.0: When thinking is disabled, an \`assistant\` message in the final position cannot contain \`thinking\`. To use thinking blocks, enable \`thinking\` in your request.`,
          last,
          0,
        ),
      );
    }
    return;
  }
  if (!thinking || typeof final.content === 'string' || !final.content.some((b) => b.type === 'tool_result')) return;
  const a = lastIndexOf(msgs, 'assistant');
  if (a < 0) return;
  const content = msgs[a].content;
  const first = typeof content === 'string' ? 'text' : (content[0]?.type ?? 'nothing');
  if (first === 'thinking' || first === 'redacted_thinking') return;
  out.push(
    v(
      RULE.thinkingLoopStart,
      `messages.${a}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first}\`. ` +
        'When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). ' +
        'We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`.',
      a,
      0,
    ),
  );
}

interface Marker {
  readonly path: string;
  readonly cc: CacheControl;
  readonly messageIndex?: number;
  readonly blockIndex?: number;
}

/** Every cache_control in processing order: tools, system, messages (nested included), then top-level. */
function markers(body: RequestBody, out: Violation[]): Marker[] {
  const list: Marker[] = [];
  body.tools?.forEach((t, k) => {
    const cc = cacheControlOf(t);
    if (cc) list.push({ path: `tools.${k}`, cc });
  });
  if (Array.isArray(body.system)) {
    body.system.forEach((b, k) => {
      const cc = cacheControlOf(b);
      if (!cc) return;
      list.push({ path: `system.${k}`, cc });
      if (isBlank(b.text)) out.push(v(RULE.cacheControlEmptyText, 'cache_control cannot be set for empty text blocks'));
    });
  }
  body.messages.forEach((m, i) => {
    if (typeof m.content === 'string') return;
    m.content.forEach((b, j) => {
      const cc = cacheControlOf(b);
      if (cc) {
        list.push({ path: `messages.${i}.content.${j}`, cc, messageIndex: i, blockIndex: j });
        if (isThinking(b))
          out.push(
            v(
              RULE.cacheControlThinking,
              `messages.${i}.content.${j}.${b.type}.cache_control: Extra inputs are not permitted`,
              i,
              j,
            ),
          );
        if (b.type === 'text' && isBlank(b.text))
          out.push(v(RULE.cacheControlEmptyText, 'cache_control cannot be set for empty text blocks', i, j));
      }
      nestedBlocks(b).forEach((c, k) => {
        const ncc = cacheControlOf(c);
        if (ncc)
          list.push({ path: `messages.${i}.content.${j}.content.${k}`, cc: ncc, messageIndex: i, blockIndex: j });
      });
    });
  });
  if (body.cache_control) list.push({ path: 'cache_control', cc: body.cache_control });
  return list;
}

/** At most 4 breakpoints, none on thinking or empty text, and no 1h breakpoint after a 5m one. */
function checkCacheControl(body: RequestBody, out: Violation[]): void {
  const list = markers(body, out);
  if (list.length > MAX_CACHE_CONTROL_BLOCKS) {
    out.push(
      v(
        RULE.cacheControlCount,
        `A maximum of ${MAX_CACHE_CONTROL_BLOCKS} blocks with cache_control may be provided. Found ${list.length}.`,
      ),
    );
  }
  // A bare {type: 'ephemeral'} counts as 5m; the order is one pass over tools, system, messages.
  let seen5m = false;
  for (const m of list) {
    const ttl = m.cc.ttl ?? '5m';
    if (ttl === '5m') seen5m = true;
    else if (seen5m) {
      out.push(
        v(
          RULE.cacheTtlOrder,
          `${m.path}.cache_control.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. ` +
            'Note that blocks are processed in the following order: `tools`, `system`, `messages`.',
          m.messageIndex,
          m.blockIndex,
        ),
      );
    }
  }
}
