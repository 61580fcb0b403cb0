/**
 * The validator for a stream of requests that grow from call to call (the request
 * builder's): the same answer as {@link validateRequest}, with the work of a clean
 * request proportional to what changed since the last clean one.
 *
 * A request whose messages [0, k) are the very objects of the last clean request's
 * keeps every rule that only looks at those messages and their neighbours inside
 * [0, k - 1). So the rules are checked again from message s = min(k, last length) − 1
 * on (that message's link to the first changed one, and the former last message, which
 * is no longer last); tool_use ids, breakpoint counts and the 5m/1h order carry over as
 * running state. Anything this shortcut cannot show to be clean (a request ending with an
 * assistant message, any rule broken, a changed tools/system breakpoint state) goes to the
 * full validator, whose answer is returned as is: violations are always the full
 * validator's, in its order and wording.
 */
import type { ContentBlockParam } from '../session/types';
import { cacheControlOf, contentBlocks, isBlank, isThinking, nestedBlocks } from '../api/blocks';
import type { RequestBody, Violation } from '../api/wire';
import { carriedAt, type RequiredUserText } from './user-text-carried';
import {
  answersTool,
  callsTool,
  checkLatestThinking,
  checkThinkingLoop,
  MAX_CACHE_CONTROL_BLOCKS,
  MAX_MESSAGES,
  thinkingEnabled,
  validateRequest,
  type ValidateOptions,
} from './validate';

type Messages = RequestBody['messages'];

/** Breakpoint state after a point of the request: how many, and whether a 5m one came yet. */
interface CcState {
  count: number;
  seen5m: boolean;
}

interface Clean {
  readonly messages: Messages;
  /** tool_use id → index of the message calling it. */
  readonly useAt: Map<string, number>;
  /** Breakpoint state after tools and system. */
  readonly head: CcState;
  /** Breakpoint state after each message (index i: after message i). */
  readonly after: CcState[];
  /** Each required user block (by object) → the index of a message that carried it (see carriedAt). */
  readonly carried?: ReadonlyMap<object, number>;
}

export class RequestStreamValidator {
  private clean?: Clean;
  /** Requests found clean by the shortcut (the rest went to the full validator). */
  shortcuts = 0;

  validate(body: RequestBody, opts: ValidateOptions = {}): Violation[] {
    if (this.cleanSince(body, opts)) {
      this.shortcuts++;
      return [];
    }
    this.clean = undefined;
    const out = validateRequest(body, opts);
    this.clean = out.length === 0 ? remember(body, opts.userText) : undefined;
    return out;
  }

  /** True only when the full validator would find nothing; then the running state is updated. */
  private cleanSince(body: RequestBody, opts: ValidateOptions): boolean {
    const prev = this.clean;
    const msgs = body.messages;
    const n = msgs.length;
    if (!prev || n === 0 || n > MAX_MESSAGES || msgs[n - 1].role !== 'user') return false;
    const head = headState(body);
    if (!head || head.count !== prev.head.count || head.seen5m !== prev.head.seen5m) return false;
    let k = 0;
    const limit = Math.min(n, prev.messages.length);
    while (k < limit && msgs[k] === prev.messages[k]) k++;
    const s = Math.max(0, Math.min(k, prev.messages.length) - 1);
    // Tool ids of the messages from s on are checked again: forget them (the entries of earlier messages stay).
    // A failed check leaves the state to the full validator, which replaces it.
    const useAt = prev.useAt;
    for (let i = s; i < prev.messages.length; i++) {
      for (const b of contentBlocks(prev.messages[i].content))
        if (b.type === 'tool_use' && useAt.get(b.id) === i) useAt.delete(b.id);
    }
    const from = s > 0 ? prev.after[s - 1] : head;
    const cc: CcState = { count: from.count, seen5m: from.seen5m };
    // The state after the kept messages stays; the rest is recomputed (in place: a failed check drops the state).
    const after = prev.after;
    after.length = s;
    for (let i = s; i < n; i++) {
      if (!messageClean(msgs, i)) return false;
      const m = msgs[i];
      if (typeof m.content !== 'string') {
        for (const b of m.content) {
          if (b.type === 'tool_use') {
            if (useAt.has(b.id)) return false;
            useAt.set(b.id, i);
          }
          if (!blockMarksClean(b, cc)) return false;
        }
      }
      after.push({ count: cc.count, seen5m: cc.seen5m });
    }
    if (body.cache_control && !markClean(body.cache_control.ttl, cc)) return false;
    // The rules about the latest messages are the full validator's own (cheap: they look at the end only).
    const tail: Violation[] = [];
    checkLatestThinking(msgs, opts.latestAssistantThinking, tail);
    checkThinkingLoop(msgs, opts.thinking ?? thinkingEnabled(body), tail);
    if (tail.length > 0) return false;
    const carried = opts.userText ? userTextCarried(msgs, opts.userText, k, prev.carried) : undefined;
    if (carried === null) return false;
    this.clean = { messages: msgs, useAt, head, after, carried };
    return true;
  }
}

/**
 * Where each required user block is carried, or null when one is not (the full validator then
 * says which). Messages [0, k) are the last clean request's own objects: a block one of them
 * carried is carried still; the others are looked for in the messages from k on, and only
 * those not found there in the whole request.
 */
function userTextCarried(
  msgs: Messages,
  required: readonly RequiredUserText[],
  k: number,
  before: ReadonlyMap<object, number> | undefined,
): Map<object, number> | null {
  const carried = new Map<object, number>();
  let pending: RequiredUserText[] | undefined;
  for (const r of required) {
    const j = before?.get(r.param);
    if (j !== undefined && j < k) carried.set(r.param, j);
    else (pending ??= []).push(r);
  }
  if (!pending) return carried;
  const late = carriedAt(msgs, pending, k);
  const elsewhere = pending.filter((r) => !late.has(r.param));
  const early = elsewhere.length ? carriedAt(msgs, elsewhere) : undefined;
  for (const r of pending) {
    const i = late.get(r.param) ?? early?.get(r.param);
    if (i === undefined) return null;
    carried.set(r.param, i);
  }
  return carried;
}

/** The running state of a request validated in full. */
function remember(body: RequestBody, userText?: readonly RequiredUserText[]): Clean {
  const head = headState(body) ?? { count: 0, seen5m: false };
  const useAt = new Map<string, number>();
  const after: CcState[] = [];
  const cc = { ...head };
  body.messages.forEach((m, i) => {
    for (const b of contentBlocks(m.content)) {
      if (b.type === 'tool_use' && !useAt.has(b.id)) useAt.set(b.id, i);
      blockMarksClean(b, cc);
    }
    after.push({ ...cc });
  });
  return {
    messages: body.messages,
    useAt,
    head,
    after,
    carried: userText ? carriedAt(body.messages, userText) : undefined,
  };
}

/** Breakpoints of tools and system (undefined when one of them already breaks a rule). */
function headState(body: RequestBody): CcState | undefined {
  const cc: CcState = { count: 0, seen5m: false };
  for (const t of body.tools ?? []) {
    const c = cacheControlOf(t);
    if (c && !markClean(c.ttl, cc)) return undefined;
  }
  if (Array.isArray(body.system)) {
    for (const b of body.system) {
      const c = cacheControlOf(b);
      if (c && (isBlank(b.text) || !markClean(c.ttl, cc))) return undefined;
    }
  }
  return cc;
}

/** One more breakpoint: within the count and not a 1h one after a 5m one. */
function markClean(ttl: string | undefined, cc: CcState): boolean {
  cc.count++;
  if ((ttl ?? '5m') === '5m') cc.seen5m = true;
  else if (cc.seen5m) return false;
  return cc.count <= MAX_CACHE_CONTROL_BLOCKS;
}

/** A message block's breakpoints (its own and nested ones) break no rule. */
function blockMarksClean(b: ContentBlockParam, cc: CcState): boolean {
  const own = cacheControlOf(b);
  if (own) {
    if (isThinking(b) || (b.type === 'text' && isBlank(b.text))) return false;
    if (!markClean(own.ttl, cc)) return false;
  }
  for (const c of nestedBlocks(b)) {
    const nested = cacheControlOf(c);
    if (nested && !markClean(nested.ttl, cc)) return false;
  }
  return true;
}

/**
 * Message i (not the last of an assistant-final request) breaks none of the rules about
 * itself and its neighbours: role order, content, tool blocks in the right role, thinking
 * first, its calls answered by the next message, its results answering the previous one,
 * results first and once each.
 */
function messageClean(msgs: Messages, i: number): boolean {
  const m = msgs[i];
  if (i === 0 ? m.role !== 'user' : m.role === msgs[i - 1].role) return false;
  if (m.content.length === 0) return false;
  const blocks = contentBlocks(m.content);
  let other = false;
  for (let j = 0; j < blocks.length; j++) {
    const b = blocks[j];
    if (b.type === 'text') {
      if (isBlank(b.text)) return false;
    } else if (b.type === 'tool_result') {
      if (m.role !== 'user' || other || !callsTool(msgs[i - 1], b.tool_use_id)) return false;
      for (let k = 0; k < j; k++) {
        const p = blocks[k];
        if (p.type === 'tool_result' && p.tool_use_id === b.tool_use_id) return false;
      }
      for (const c of nestedBlocks(b))
        if ((c as ContentBlockParam).type === 'text' && isBlank((c as { text: string }).text)) return false;
    } else if (b.type === 'tool_use') {
      if (m.role !== 'assistant' || !answersTool(msgs[i + 1], b.id)) return false;
    }
    if (b.type !== 'tool_result') other = true;
    if (m.role === 'assistant' && j > 0 && isThinking(b) && !isThinking(blocks[0])) return false;
  }
  return true;
}
