/**
 * The price before an action (issue 17): the host prices it (`price` request), the status
 * line says the price, and an action that will not pay back over the calls the session is
 * expected to make asks first, offering to wait for the next cold cache instead. A small
 * in-page bar (no window dialogs), keyboard first: focus lands on "Wait", Escape cancels.
 */
import { isActionPrice, type ActionPrice } from '../../src/protocol/prices';
import { button, clear, h, setText } from '../shared/dom';

export type PriceChoice = 'apply' | 'defer' | 'cancel';

/** A price from the host, checked (undefined when the host sent something else). */
export function checkedPrice(v: unknown): ActionPrice | undefined {
  return isActionPrice(v) ? v : undefined;
}

export class PriceConfirm {
  readonly el = h('div', {
    class: 'price-confirm',
    role: 'group',
    'aria-label': 'Confirm an action that will not pay back',
    hidden: true,
  });
  private settle?: (c: PriceChoice) => void;

  /** Ask about `label` priced `price`; resolves with the user's choice. */
  ask(label: string, price: ActionPrice, canDefer: boolean): Promise<PriceChoice> {
    this.settle?.('cancel');
    clear(this.el);
    // Focus goes back where it was once the user chose (the trim editor, a row, a finding).
    const back = document.activeElement instanceof HTMLElement ? document.activeElement : undefined;
    const text = h('span', { class: 'price-text' });
    setText(text, `${label}: ${price.summary}. It will not pay back over the calls expected.`);
    const done = (c: PriceChoice): void => {
      this.el.hidden = true;
      clear(this.el);
      const s = this.settle;
      this.settle = undefined;
      if (back?.isConnected) back.focus();
      s?.(c);
    };
    const wait = canDefer
      ? button('Wait for the next cold cache', () => done('defer'), { class: 'price-defer' })
      : undefined;
    const apply = button('Apply now', () => done('apply'), { class: 'price-apply' });
    const cancel = button('Cancel', () => done('cancel'), { class: 'price-cancel' });
    this.el.append(text, ...(wait ? [wait] : []), apply, cancel);
    this.el.onkeydown = (e) => {
      if (e.key !== 'Escape') return;
      e.preventDefault();
      done('cancel');
    };
    this.el.hidden = false;
    (wait ?? apply).focus();
    return new Promise((resolve) => (this.settle = resolve));
  }
}
