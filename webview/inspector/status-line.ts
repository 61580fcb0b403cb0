/**
 * The status line of the inspector: an action's progress, then its message and what it
 * changed in the next request's cost once the snapshot showing its effect is in; a
 * failure goes to the alert beside it.
 */
import type { InspectorAction, RequestResults, WebviewRequest } from '../../src/protocol';
import type { ActionPrice } from '../../src/protocol/prices';
import { h, setText } from '../shared/dom';
import { fmtUsd } from '../shared/format';
import type { Transport } from '../shared/transport';
import { checkedPrice, PriceConfirm } from './price-confirm';

export type ActionOp = 'pin' | 'unpin' | 'trim' | 'restore' | 'compact' | 'setStrategy';

/** A status note waits this long for the snapshot that shows the action's effect. */
const NOTE_WAIT_MS = 1500;

/** A restore, or a pin that sends a trimmed block whole again: it adds tokens, so it never "pays back". */
export function addsTokens(op: ActionOp, price: ActionPrice): boolean {
  return op === 'restore' || price.tokensPerCall < 0;
}

export class StatusLine {
  readonly status = h('div', { class: 'status', role: 'status', 'aria-live': 'polite' });
  readonly alert = h('div', { class: 'alert', role: 'alert' });
  readonly confirm = new PriceConfirm();
  private note?: { before: number; cost?: string; message?: string; after?: number; timer: number };

  constructor(
    private readonly transport: Transport,
    /** The next request's cost as the inspector shows it now. */
    private readonly nextCost: () => number,
  ) {}

  /**
   * Send an action after pricing it: the price goes to the status line; a saving that will
   * not pay back asks first (apply, wait for the next cold cache, or cancel). A restore (an
   * action that adds tokens) is no saving: its price is stated and it applies. A host that
   * cannot price (a replay) runs it at once.
   */
  async run(req: Extract<WebviewRequest, { op: ActionOp }>, pending: string): Promise<boolean> {
    setText(this.alert, '');
    const price = await this.transport.request({ op: 'price', action: req }).then(checkedPrice, () => undefined);
    if (price && !price.paysBack && !addsTokens(req.op, price)) {
      const choice = await this.confirm.ask(pending.replace(/…$/, ''), price, req.op !== 'setStrategy');
      if (choice === 'cancel') {
        setText(this.status, 'Cancelled: nothing changed.');
        return false;
      }
      if (choice === 'defer') return this.defer(req);
    }
    const cost = price && addsTokens(req.op, price) ? price.summary : undefined;
    return this.send(req, price ? `${pending.replace(/…$/, ':')} ${price.summary}.` : pending, cost);
  }

  private async defer(req: Extract<WebviewRequest, { op: ActionOp }>): Promise<boolean> {
    try {
      const result = (await this.transport.request({ op: 'defer', action: req })) as RequestResults['defer'];
      setText(this.status, `${result.message}.`);
      return true;
    } catch (e) {
      setText(this.alert, (e as Error).message);
      return false;
    }
  }

  /** `cost`: the price a restore states with its result (what it adds per call, what the rewrite costs). */
  private async send(req: Extract<WebviewRequest, { op: ActionOp }>, pending: string, cost?: string): Promise<boolean> {
    setText(this.status, pending);
    setText(this.alert, '');
    if (this.note) clearTimeout(this.note.timer);
    this.note = { before: this.nextCost(), cost, timer: window.setTimeout(() => this.flushNote(true), NOTE_WAIT_MS) };
    try {
      const result = (await this.transport.request(req)) as RequestResults[ActionOp];
      if (this.note) {
        this.note.message = result.message;
        this.flushNote();
      }
      return true;
    } catch (e) {
      if (this.note) clearTimeout(this.note.timer);
      this.note = undefined;
      setText(this.status, '');
      setText(this.alert, (e as Error).message);
      return false;
    }
  }

  /** An MCP switch from the Tools tab: its message goes to the status line, a failure to the alert. */
  async runMcp(req: Extract<WebviewRequest, { op: 'mcpSwitch' | 'mcpApply' }>): Promise<void> {
    setText(this.alert, '');
    try {
      const result = (await this.transport.request(req)) as RequestResults['mcpSwitch'];
      setText(this.status, result.message);
    } catch (e) {
      setText(this.alert, (e as Error).message);
    }
  }

  /** An empty-state button: the host runs the action (its effect arrives as a snapshot, or in the chat view). */
  async runAction(action: InspectorAction): Promise<void> {
    setText(this.alert, '');
    try {
      await this.transport.request({ op: 'runAction', action });
    } catch (e) {
      setText(this.alert, (e as Error).message);
    }
  }

  /** A new snapshot is shown: a pending note can say what the action changed. */
  shown(nextRequest: number): void {
    if (!this.note) return;
    this.note.after = nextRequest;
    this.flushNote();
  }

  /** Announce the action once both its response and the new snapshot are in (or after a wait). */
  private flushNote(force = false): void {
    const n = this.note;
    if (!n?.message || (n.after === undefined && !force)) return;
    clearTimeout(n.timer);
    this.note = undefined;
    const cost =
      n.after !== undefined && Math.abs(n.after - n.before) >= 0.00005
        ? ` Next request ${fmtUsd(n.before)} → ${fmtUsd(n.after)}.`
        : '';
    setText(this.status, `${n.message}.${n.cost ? ` ${n.cost}.` : ''}${cost}`);
  }
}
