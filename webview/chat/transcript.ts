/**
 * The conversation as DOM: user and assistant messages, streamed text rendered
 * as safe Markdown, tool-call cards (input, collapsed result, errors), approval
 * cards and errors with Retry. It only reacts to ChatEvents; user actions go out
 * through the callbacks.
 */
import type { ChatEvent, EditSummary, McpApprovalInfo } from '../../src/protocol';
import { bidiVisible } from '../../src/protocol/safe-text';
import { h } from '../shared/dom';
import { button, formatCost, inputSummary, oneLine } from './dom';
import { renderMarkdown } from './markdown';

export interface TranscriptActions {
  /** `always`: approve every call to this MCP server for the rest of the session. */
  approve(requestId: string, approved: boolean, always?: boolean): void;
  showDiff(requestId: string): void;
  retry(): void;
  setApiKey(): void;
}

/** Characters of a tool result rendered at most (the rest is summarized). */
const MAX_RESULT_CHARS = 20_000;

interface TextSegment {
  el: HTMLElement;
  text: string;
  dirty: boolean;
}

export class Transcript {
  private readonly messages = new Map<string, HTMLElement>();
  private readonly segments = new Map<string, TextSegment>();
  private readonly cards = new Map<string, HTMLElement>();
  private readonly approvals = new Map<string, HTMLElement>();
  private renderScheduled = false;

  constructor(
    readonly root: HTMLElement,
    private readonly actions: TranscriptActions,
  ) {}

  clear(): void {
    this.root.replaceChildren();
    this.messages.clear();
    this.segments.clear();
    this.cards.clear();
    this.approvals.clear();
  }

  get empty(): boolean {
    return this.root.childElementCount === 0;
  }

  /** Apply one event; returns an element that should take focus, if any. */
  apply(e: ChatEvent): HTMLElement | undefined {
    switch (e.kind) {
      case 'user':
        this.append(
          h(
            'div',
            { class: 'msg user', 'data-id': e.id },
            h('div', { class: 'who' }, 'You'),
            h('div', { class: 'body plain' }, e.text),
          ),
        );
        return undefined;
      case 'assistant-start':
        this.assistant(e.id);
        return undefined;
      case 'text-delta':
        this.textDelta(e.id, e.text);
        return undefined;
      case 'tool-call':
        this.toolCall(e.id, e.toolUseId, e.name, e.input);
        return undefined;
      case 'tool-result':
        this.toolResult(e.toolUseId, e.content, e.isError);
        return undefined;
      case 'approval':
        return this.approval(e.requestId, e.tool, e.detail, e.edit, e.mcp);
      case 'approval-settled':
        this.settle(e.requestId, e.approved ? 'Approved' : 'Not approved');
        return undefined;
      case 'turn-end':
        this.turnEnd(e.stopReason, e.cost);
        return undefined;
      case 'error':
        return this.error(e.message, e.retryable);
      case 'retrying':
        this.retrying(e.id, e.text);
        return undefined;
      case 'notice':
        this.append(h('div', { class: 'notice', role: 'note' }, e.text));
        return undefined;
      default:
        return undefined;
    }
  }

  private append(el: HTMLElement): void {
    this.root.append(el);
    el.scrollIntoView({ block: 'end' });
  }

  private assistant(id: string): HTMLElement {
    let msg = this.messages.get(id);
    if (!msg) {
      msg = h('div', { class: 'msg assistant', 'data-id': id }, h('div', { class: 'who' }, 'Trimline'));
      this.messages.set(id, msg);
      this.append(msg);
    }
    return msg;
  }

  private textDelta(id: string, text: string): void {
    const msg = this.assistant(id);
    let seg = this.segments.get(id);
    // Text after a tool card starts a new segment below it.
    if (!seg || msg.lastElementChild !== seg.el) {
      seg = { el: h('div', { class: 'body md' }), text: '', dirty: true };
      this.segments.set(id, seg);
      msg.append(seg.el);
    }
    seg.text += text;
    seg.dirty = true;
    this.scheduleRender();
  }

  /** Re-render dirty segments once per frame: streaming many small deltas stays cheap. */
  private scheduleRender(): void {
    if (this.renderScheduled) return;
    this.renderScheduled = true;
    requestAnimationFrame(() => {
      this.renderScheduled = false;
      const atBottom = this.root.scrollHeight - this.root.scrollTop - this.root.clientHeight < 40;
      for (const seg of this.segments.values()) {
        if (!seg.dirty) continue;
        seg.dirty = false;
        seg.el.replaceChildren(renderMarkdown(document, seg.text));
      }
      if (atBottom) this.root.scrollTop = this.root.scrollHeight;
    });
  }

  /** The streamed response of `id` is void (it will stream again): drop its text, say why. */
  private retrying(id: string, text: string): void {
    const msg = this.assistant(id);
    for (const el of msg.querySelectorAll('.body.md, .retry-note')) el.remove();
    this.segments.delete(id);
    msg.append(h('div', { class: 'retry-note', role: 'status' }, text));
  }

  private toolCall(messageId: string, toolUseId: string, name: string, input: unknown): void {
    const msg = this.assistant(messageId);
    const summary = inputSummary(name, input);
    const json = JSON.stringify(input, null, 2) ?? '';
    const status = h('span', { class: 'tool-status', role: 'status' }, 'running…');
    const result = h('div', { class: 'tool-result' });
    const card = h(
      'div',
      {
        class: 'tool-card running',
        'data-tool-use-id': toolUseId,
        'data-tool': name,
        role: 'group',
        'aria-label': `Tool call ${name}`,
      },
      h(
        'div',
        { class: 'tool-head' },
        h('span', { class: 'tool-name' }, name),
        h('span', { class: 'tool-arg', title: summary }, oneLine(summary, 80)),
        status,
      ),
      h('details', { class: 'tool-input' }, h('summary', {}, 'Input'), h('pre', { tabindex: 0 }, json)),
      result,
    );
    this.cards.set(toolUseId, card);
    msg.append(card);
    card.scrollIntoView({ block: 'end' });
  }

  private toolResult(toolUseId: string, content: string, isError: boolean): void {
    const card = this.cards.get(toolUseId);
    if (!card) return;
    card.classList.remove('running');
    card.classList.toggle('error', isError);
    const status = card.querySelector('.tool-status');
    const lines = content ? content.split('\n').length : 0;
    if (status) status.textContent = isError ? 'error' : `${lines} line${lines === 1 ? '' : 's'}`;
    const shown =
      content.length > MAX_RESULT_CHARS
        ? `${content.slice(0, MAX_RESULT_CHARS)}\n… (${content.length - MAX_RESULT_CHARS} more characters; the ` +
          'full result is in the inspector)'
        : content;
    const details = h(
      'details',
      { class: 'tool-output' },
      h('summary', {}, isError ? 'Error result' : 'Result'),
      h('pre', { tabindex: 0 }, shown || '(empty)'),
    );
    // Errors are short and matter: show them open.
    if (isError) details.open = true;
    card.querySelector('.tool-result')?.replaceChildren(details);
  }

  private approval(
    requestId: string,
    tool: string,
    detail: string,
    edit?: EditSummary,
    mcp?: McpApprovalInfo,
  ): HTMLElement {
    // One answer per card: a double click must not answer twice (the second would find nothing pending).
    const answer = (approved: boolean, always = false): void => {
      if (card.classList.contains('answering')) return;
      card.classList.add('answering');
      for (const b of buttons.querySelectorAll<HTMLButtonElement>(
        'button[data-action="approve"], button[data-action="deny"], button[data-action="always"]',
      ))
        b.disabled = true;
      this.actions.approve(requestId, approved, always);
    };
    const approve = button('Approve', () => answer(true), { class: 'primary', 'data-action': 'approve' });
    const deny = button('Deny', () => answer(false), { class: 'secondary', 'data-action': 'deny' });
    const buttons = h('div', { class: 'buttons' }, approve, deny);
    let what: HTMLElement;
    if (edit) {
      const stats = edit.isNew
        ? `new file, ${edit.added} line${edit.added === 1 ? '' : 's'}`
        : `+${edit.added} −${edit.removed}`;
      what = h(
        'div',
        { class: 'approval-what' },
        `${tool === 'write_file' && !edit.isNew ? 'Overwrite' : edit.isNew ? 'Create' : 'Edit'} `,
        h('code', {}, edit.path),
        ` (${stats})`,
      );
      buttons.append(
        button('Review diff', () => this.actions.showDiff(requestId), { class: 'secondary', 'data-action': 'diff' }),
      );
    } else if (mcp) {
      what = h(
        'div',
        { class: 'approval-what' },
        'Call ',
        h('code', {}, mcp.tool),
        ' of MCP server ',
        h('code', {}, mcp.server),
        h('pre', { tabindex: 0 }, detail),
      );
      buttons.insertBefore(
        button(`Always for ${mcp.server}`, () => answer(true, true), { class: 'secondary', 'data-action': 'always' }),
        deny,
      );
    } else {
      what = h('div', { class: 'approval-what' }, 'Run command', h('pre', { tabindex: 0 }, detail));
    }
    const card = h(
      'div',
      {
        class: 'approval',
        role: 'alertdialog',
        'aria-label': `Approve ${tool}?`,
        'data-request-id': requestId,
        'data-tool': tool,
      },
      h('div', { class: 'approval-title' }, `${tool} needs your approval`),
      what,
      edit ? h('div', { class: 'approval-detail' }, detail) : undefined,
      buttons,
    );
    this.approvals.set(requestId, card);
    this.append(card);
    return approve;
  }

  private settle(requestId: string, outcome: string): void {
    const card = this.approvals.get(requestId);
    if (!card) return;
    card.classList.add('settled');
    card.setAttribute('role', 'group');
    card.setAttribute('aria-label', bidiVisible(`${card.dataset.tool ?? 'tool'}: ${outcome}`));
    const title = card.querySelector('.approval-title');
    if (title) title.textContent = bidiVisible(`${card.dataset.tool ?? 'tool'}: ${outcome.toLowerCase()}`);
    card.querySelector('.approval-detail')?.remove();
    card.querySelector('.buttons')?.remove();
  }

  private turnEnd(stopReason: string, cost: number): void {
    const note = stopReason === 'end_turn' || stopReason === 'tool_use' ? '' : ` · stopped: ${stopReason}`;
    this.append(
      h(
        'div',
        { class: 'turn-end', 'aria-label': `Turn finished, cost ${formatCost(cost)}` },
        `${formatCost(cost)}${note}`,
      ),
    );
  }

  private error(message: string, retryable: boolean): HTMLElement | undefined {
    const isKey = /api key/i.test(message);
    const retry = retryable
      ? button('Retry', () => this.actions.retry(), { class: 'primary', 'data-action': 'retry' })
      : undefined;
    const key = isKey
      ? button('Set API Key', () => this.actions.setApiKey(), { class: 'secondary', 'data-action': 'set-key' })
      : undefined;
    const el = h(
      'div',
      { class: 'error-block', role: 'alert' },
      h('div', { class: 'error-text' }, message),
      retry || key ? h('div', { class: 'buttons' }, retry, key) : undefined,
    );
    this.append(el);
    return retry ?? key;
  }

  /** Disable the Retry buttons of earlier errors (a new turn started). */
  retireErrors(): void {
    for (const b of this.root.querySelectorAll<HTMLButtonElement>('.error-block button[data-action="retry"]'))
      b.remove();
  }
}
