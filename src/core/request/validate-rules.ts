/** The rule ids and limits of the validator, and the shape of a violation (shared by its checks). */
import { MAX_BREAKPOINTS } from '../api/cache-rules';
import type { RequestBody, Violation } from '../api/wire';

/** Reference: "At most 100,000 messages." */
export const MAX_MESSAGES = 100_000;
/** Reference: at most 4 `cache_control` breakpoints per request (automatic caching counts): the cache rule's. */
export const MAX_CACHE_CONTROL_BLOCKS = MAX_BREAKPOINTS;

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

export type Messages = RequestBody['messages'];

export function v(rule: string, message: string, messageIndex?: number, blockIndex?: number): Violation {
  return { rule, message, messageIndex, blockIndex };
}
