/**
 * What the chat view shows of one session, kept on the host so a re-created view
 * (hidden and shown again, window reloaded) gets it back: agent events become
 * ChatEvents, consecutive text deltas are merged, and a resumed session's log is
 * turned into the same events.
 */
import type { AgentEvent } from '../../core/agent/events';
import type { Session } from '../../core/session/session';
import type { ChatEvent } from '../../protocol';

/** Events kept for a replay at most (older ones are dropped, oldest first, with a note). */
const MAX_EVENTS = 5_000;

/** The chat id of an assistant message: one per model call. */
export const assistantId = (callIndex: number): string => `a${callIndex}`;

export class ChatTranscript {
  private events: ChatEvent[] = [];
  private dropped = 0;

  constructor(private readonly post: (e: ChatEvent) => void) {}

  /** Record and show an event. */
  push(e: ChatEvent): void {
    this.post(e);
    const last = this.events[this.events.length - 1];
    if (e.kind === 'text-delta' && last?.kind === 'text-delta' && last.id === e.id) {
      this.events[this.events.length - 1] = { ...last, text: last.text + e.text };
      return;
    }
    // Transient state is not replayed: status is re-sent on replay, settled approvals replace their card state.
    if (e.kind === 'status' || e.kind === 'workspace' || e.kind === 'reset') return;
    this.events.push(e);
    if (this.events.length > MAX_EVENTS) {
      this.events.shift();
      this.dropped++;
    }
  }

  /** Everything, for a view that just said `ready`. */
  replay(status: ChatEvent, workspace: ChatEvent): void {
    this.post({ kind: 'reset' });
    this.post(workspace);
    this.post(status);
    if (this.dropped)
      this.post({
        kind: 'notice',
        text: `${this.dropped} earlier events are not shown here; the inspector has the whole session.`,
      });
    for (const e of this.events) this.post(e);
  }

  clear(): void {
    this.events = [];
    this.dropped = 0;
  }
}

/** Map an agent event to chat events (none for bookkeeping events). */
export function chatEventsOf(e: AgentEvent): ChatEvent[] {
  switch (e.type) {
    case 'turn-start':
      return e.prompt !== undefined ? [{ kind: 'user', id: `u${Date.now().toString(36)}`, text: e.prompt }] : [];
    case 'call-start':
      return [{ kind: 'assistant-start', id: assistantId(e.callIndex) }];
    case 'text-delta':
      return [{ kind: 'text-delta', id: assistantId(e.callIndex), text: e.text }];
    case 'tool-start':
      return [
        { kind: 'tool-call', id: assistantId(e.callIndex), toolUseId: e.toolUseId, name: e.name, input: e.input },
      ];
    case 'tool-result':
      return [{ kind: 'tool-result', toolUseId: e.toolUseId, content: e.result.content, isError: e.result.is_error }];
    case 'retry':
      return [
        {
          kind: 'retrying',
          id: assistantId(e.callIndex),
          text: `Retrying in ${Math.ceil(e.delayMs / 1000)} s (${e.reason}; ${attemptOf(e.attempt, e.maxRetries)})…`,
        },
      ];
    case 'context-recovery':
      return [
        {
          kind: 'notice',
          text:
            `The context (${e.tokens.toLocaleString('en-US')} tokens) was over the model's window ` +
            `(${e.maximum.toLocaleString('en-US')}); an emergency trim to ${e.budget.toLocaleString('en-US')} ` +
            'tokens was applied and the request sent again.',
        },
      ];
    default:
      return [];
  }
}

/** Plain text of tool_result content. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((c: unknown) =>
      typeof c === 'object' && c !== null && (c as { type?: unknown }).type === 'text'
        ? String((c as { text?: unknown }).text ?? '')
        : '[non-text content]',
    )
    .join('\n');
}

/** The chat of a stored session, rebuilt from its log (for Resume). */
export function historyEvents(session: Session): ChatEvent[] {
  const out: ChatEvent[] = [];
  let call = 0;
  for (const m of session.messages) {
    if (m.role === 'user') {
      for (const b of m.blocks) {
        const p = b.param;
        if (p.type === 'text' && p.text.trim()) out.push({ kind: 'user', id: `${m.id}.${b.index}`, text: p.text });
        else if (p.type === 'tool_result')
          out.push({
            kind: 'tool-result',
            toolUseId: p.tool_use_id,
            content: resultText(p.content),
            isError: p.is_error === true,
          });
      }
      continue;
    }
    const id = `h${call++}`;
    out.push({ kind: 'assistant-start', id });
    for (const b of m.blocks) {
      const p = b.param;
      if (p.type === 'text') out.push({ kind: 'text-delta', id, text: p.text });
      else if (p.type === 'tool_use')
        out.push({ kind: 'tool-call', id, toolUseId: p.id, name: p.name, input: p.input });
    }
    if (m.meta.interrupted)
      out.push({
        kind: 'notice',
        text: 'This answer was interrupted (stopped or cut off); it is not sent back as complete.',
      });
  }
  return out;
}

/** "attempt N of M", as the retry notice says it. */
function attemptOf(attempt: number, maxRetries: number): string {
  return `attempt ${attempt} of ${maxRetries}`;
}
