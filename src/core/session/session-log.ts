/**
 * The session's log and its indexes: messages appended in order (never edited), the calls
 * made on them, where each message, block and tool pair is, which blocks are the user's
 * words, and a revision per message that the overlays above (session.ts) bump whenever a
 * message's view changes.
 */
import { newId } from './ids';
import { makeMessage } from './log';
import type { Author, Overlay } from './overlay';
import type {
  CallRecord,
  ContentBlockParam,
  LogBlock,
  LogMessage,
  MessageMeta,
  Role,
  TextBlockParam,
  ToolDefinition,
} from './types';
import { ProtectedIndex } from './user-text';

export interface SessionInit {
  system?: string | TextBlockParam[];
  tools?: ToolDefinition[];
  model?: string;
}

export type SessionEvent =
  | { type: 'message'; message: LogMessage }
  | { type: 'overlay-added'; overlay: Overlay }
  | { type: 'overlay-removed'; overlay: Overlay; by: Author };

export class SessionLog {
  system?: string | TextBlockParam[];
  tools?: ToolDefinition[];
  model?: string;
  readonly messages: LogMessage[] = [];
  readonly calls: CallRecord[] = [];

  protected readonly positions = new Map<string, number>();
  protected readonly blocks = new Map<string, LogBlock>();
  private readonly toolNames = new Map<string, string>();
  private readonly toolUseBlock = new Map<string, string>();
  private readonly toolResultBlock = new Map<string, string>();
  private readonly revisions = new Map<string, number>();
  /** See updateLoopHead. */
  protected loopHead = -1;
  private readonly listeners = new Set<(e: SessionEvent) => void>();
  /** The user's own words: blocks no automatic strategy may change (user-text.ts). */
  readonly userText = new ProtectedIndex();

  constructor(init: SessionInit = {}) {
    ({ system: this.system, tools: this.tools, model: this.model } = init);
  }

  on(listener: (e: SessionEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  protected emit(e: SessionEvent): void {
    for (const l of this.listeners) l(e);
  }

  /** Append new content to the log. */
  append(role: Role, content: string | readonly ContentBlockParam[], meta: MessageMeta = {}, id?: string): LogMessage {
    return this.appendMessage(makeMessage(id ?? newId('m'), this.messages.length, role, content, meta, this.toolNames));
  }

  /** Append an already-built message (importers, journal resume). Duplicate ids are ignored. */
  appendMessage(m: LogMessage): LogMessage {
    const existing = this.positions.get(m.id);
    if (existing !== undefined) return this.messages[existing];
    const msg =
      m.seq === this.messages.length
        ? m
        : makeMessage(
            m.id,
            this.messages.length,
            m.role,
            m.blocks.map((b) => b.param),
            m.meta,
            this.toolNames,
          );
    this.positions.set(msg.id, this.messages.length);
    this.userText.add(msg, this.messages.length);
    this.messages.push(msg);
    this.updateLoopHead();
    for (const b of msg.blocks) {
      this.blocks.set(b.id, b);
      if (b.kind === 'tool_use' && b.toolUseId) {
        this.toolUseBlock.set(b.toolUseId, b.id);
        if (b.toolName) this.toolNames.set(b.toolUseId, b.toolName);
      }
      if (b.kind === 'tool_result' && b.toolUseId) this.toolResultBlock.set(b.toolUseId, b.id);
    }
    this.emit({ type: 'message', message: msg });
    return msg;
  }

  recordCall(call: Omit<CallRecord, 'index'>): CallRecord {
    const rec: CallRecord = { ...call, index: this.calls.length };
    this.calls.push(rec);
    return rec;
  }

  /** A call's response arrived after it was recorded (a proxied call): its usage and API id. */
  completeCall(index: number, facts: Pick<CallRecord, 'usage' | 'apiMessageId'>): CallRecord | undefined {
    const call = this.calls[index];
    if (!call) return undefined;
    const done: CallRecord = { ...call, ...facts };
    this.calls[index] = done;
    return done;
  }

  position(messageId: string): number | undefined {
    return this.positions.get(messageId);
  }
  block(blockId: string): LogBlock | undefined {
    return this.blocks.get(blockId);
  }
  messageOf(blockId: string): LogMessage | undefined {
    const b = this.blocks.get(blockId);
    return b ? this.messages[this.positions.get(b.messageId) ?? -1] : undefined;
  }
  toolName(toolUseId: string): string | undefined {
    return this.toolNames.get(toolUseId);
  }
  toolUseBlockId(toolUseId: string): string | undefined {
    return this.toolUseBlock.get(toolUseId);
  }
  toolResultBlockId(toolUseId: string): string | undefined {
    return this.toolResultBlock.get(toolUseId);
  }
  revision(messageId: string): number {
    return this.revisions.get(messageId) ?? 0;
  }
  /** The other half of a tool pair: a tool_use's result block, or a tool_result's call block. */
  partnerBlockId(blockId: string): string | undefined {
    const b = this.blocks.get(blockId);
    if (!b?.toolUseId) return undefined;
    if (b.kind === 'tool_use') return this.toolResultBlock.get(b.toolUseId);
    if (b.kind === 'tool_result') return this.toolUseBlock.get(b.toolUseId);
    return undefined;
  }

  /**
   * The assistant message a tool loop continues: the log ends with a user message carrying
   * tool results, right after it. Strategies never touch it (the API wants it as the model
   * made it, thinking first): its view ignores strategy overlays. When it changes, both the
   * old and the new one get a new revision (their view changed).
   */
  private updateLoopHead(): void {
    const n = this.messages.length;
    const last = this.messages[n - 1];
    const head =
      last?.role === 'user' &&
      this.messages[n - 2]?.role === 'assistant' &&
      last.blocks.some((b) => b.kind === 'tool_result')
        ? n - 2
        : -1;
    if (head === this.loopHead) return;
    if (this.loopHead >= 0) this.bump(this.messages[this.loopHead].id);
    if (head >= 0) this.bump(this.messages[head].id);
    this.loopHead = head;
  }

  /** Position of the assistant message the log's tool loop continues, or -1. */
  get loopHeadPosition(): number {
    return this.loopHead;
  }

  protected bump(messageId: string): void {
    this.revisions.set(messageId, (this.revisions.get(messageId) ?? 0) + 1);
  }
}
