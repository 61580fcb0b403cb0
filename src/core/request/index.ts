/** View → Messages API request: builder (with repairs), validator, shared block helpers. */
export * from '../api/wire';
export * from './validate';
export * from './build';
export {
  assemble,
  UNANSWERED_RESULT_TEXT,
  type AssembleOptions,
  type Assembled,
  type AssembledMessage,
} from './assemble';
export {
  INTERRUPTED_NOTE,
  SYNTHETIC,
  isSyntheticId,
  renderMessage,
  summaryText,
  type RenderedMessage,
  type SentBlock,
} from './render';
export { isBlank, isCacheable, isThinking, withoutCacheControl } from '../api/blocks';
