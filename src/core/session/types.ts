/**
 * The session log: what happened, never edited. Everything the model sees is
 * computed from this log plus overlays (see overlay.ts and view.ts).
 *
 * Block payloads are the Anthropic SDK's own param types, so the bytes we
 * send are the bytes we recorded (restore is byte-exact by construction).
 */
import type Anthropic from '@anthropic-ai/sdk';

export type ContentBlockParam = Anthropic.ContentBlockParam;
export type MessageParam = Anthropic.MessageParam;
export type TextBlockParam = Anthropic.TextBlockParam;
export type ToolUseBlockParam = Anthropic.ToolUseBlockParam;
export type ToolResultBlockParam = Anthropic.ToolResultBlockParam;
export type ToolDefinition = Anthropic.Tool;
export type Role = 'user' | 'assistant';

/** Usage as reported by the API for one model call. */
export interface CallUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  /** Cache writes by TTL, when the API reported the split (Claude Code ≥ 2.1.29 writes mostly 1-hour). */
  cache_creation?: { ephemeral_5m_input_tokens?: number; ephemeral_1h_input_tokens?: number } | null;
}

/** Total input of a call: everything before the response, cached or not. */
export function totalInput(u: CallUsage): number {
  return u.input_tokens + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
}

export type BlockKind =
  'text' | 'thinking' | 'redacted_thinking' | 'tool_use' | 'tool_result' | 'image' | 'document' | 'other';

export interface LogBlock {
  /** Stable id: `${messageId}.${index}`. */
  readonly id: string;
  readonly messageId: string;
  readonly index: number;
  readonly kind: BlockKind;
  /** The block exactly as recorded (string content is normalized to a text block). */
  readonly param: ContentBlockParam;
  /**
   * For tool_use: its name; for tool_result: the name of the tool_use it answers (if known); for
   * a client's text-form tool output (session/client-text.ts): the tool its header names.
   */
  readonly toolName?: string;
  /** A client's text-form tool output: the header's quoted argument (`[read_file for 'a.ts']`: `a.ts`). */
  readonly toolTarget?: string;
  /** For tool_use: its id; for tool_result: tool_use_id. */
  readonly toolUseId?: string;
  /**
   * Environment output of a thought-action loop (from the message's `meta.observation`), or a
   * client's text-form tool output (Cline, Roo: session/client-text.ts): the answer to the
   * agent's action, carried as user text but trimmed like a tool result.
   */
  readonly observation?: true;
}

export interface MessageMeta {
  /** Where it came from, for error messages and "why" (e.g. `file.jsonl:123`). */
  source?: string;
  timestamp?: string;
  model?: string;
  /** The API message id (`msg_…`) of an assistant message. */
  apiMessageId?: string;
  /** Usage of the call that produced this assistant message. */
  usage?: CallUsage;
  /** Streaming was cut or cancelled: never sent back as if complete. */
  interrupted?: boolean;
  /** Claude Code compaction summary: the recorded history restarts here. */
  compactBoundary?: boolean;
  /** Cline-style tool results as text: the tool_use ids in the previous message are unanswered. */
  unansweredToolUses?: boolean;
  /**
   * A user message that is the environment's answer to the preceding assistant message's
   * action (command output, a file view) in a thought-action agent loop (SWE-agent without
   * function calling, mini-swe-agent), as the recording's own structure says: not the user's
   * words, trimmed like a tool result. Set by importers only; kept in journals with the meta.
   */
  observation?: boolean;
  /** Free-form flags from importers (e.g. `synthetic`). */
  flags?: string[];
}

export interface LogMessage {
  /** Stable id, `m<seq>` for messages created here, or derived from the source. */
  readonly id: string;
  readonly seq: number;
  readonly role: Role;
  readonly blocks: readonly LogBlock[];
  readonly meta: MessageMeta;
}

/** One model call recorded in a transcript (or made live by the agent). */
export interface CallRecord {
  readonly index: number;
  /** Number of log messages that preceded this call: its request is built from messages [epochStart, at). */
  readonly at: number;
  /** Start of the recorded history for this call (after a compaction, the compact summary). */
  readonly epochStart: number;
  readonly apiMessageId?: string;
  readonly model?: string;
  readonly timestamp?: string;
  readonly usage?: CallUsage;
}

/** Problems found while importing; never fatal. */
export interface ImportIssue {
  line?: number;
  message: string;
}

/** The built-in formats; a format registered later (src/core/import/detect.ts `registerImporter`) names its own. */
export type TranscriptFormat =
  'claude-code' | 'cline' | 'openhands' | 'openai-chat' | 'anthropic-json' | 'trimline-journal' | (string & {});

export interface ImportedSession {
  format: TranscriptFormat;
  file: string;
  system?: string | TextBlockParam[];
  tools?: ToolDefinition[];
  model?: string;
  messages: LogMessage[];
  calls: CallRecord[];
  issues: ImportIssue[];
  /** Claude Code: attachment uuid → log block id, for the attachments imported (those a microcompact cleared). */
  attachmentBlocks?: ReadonlyMap<string, string>;
  /**
   * Claude Code: log block id of a kept message's copy (partial compaction) → the block it copies (same bytes, same
   * size, same cache identity).
   */
  copiedBlocks?: ReadonlyMap<string, string>;
}
