/**
 * The inspector's prompt box (issue 17): a host that can take another prompt itself (the
 * offline demo after its scripted prompts) answers `canPrompt`, and the box appears; Enter
 * or Send sends the prompt (`send`), whose calls then show live like the rest. Hidden for
 * every other host.
 */
import { isCanPromptResult } from '../../src/protocol/prompt';
import { button, h, setText } from '../shared/dom';
import type { Transport } from '../shared/transport';

export class PromptBox {
  readonly el: HTMLElement;
  private readonly input: HTMLInputElement;
  private asked = false;

  constructor(
    private readonly transport: Transport,
    private readonly status: { say(text: string): void; fail(text: string): void },
  ) {
    this.input = h('input', { type: 'text', class: 'prompt-input', 'aria-label': 'Prompt for the agent' });
    this.input.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter' || e.shiftKey) return;
      e.preventDefault();
      void this.send();
    });
    // Empty until the host says it takes prompts (an empty status bar hides itself on the empty state).
    this.el = h('form', { class: 'prompt-box', hidden: true, 'aria-label': 'Send the agent another prompt' });
    this.el.addEventListener('submit', (e) => e.preventDefault());
  }

  /** Ask once whether the host takes prompts from here. */
  probe(): void {
    if (this.asked) return;
    this.asked = true;
    this.transport.request({ op: 'canPrompt' }).then(
      (r) => {
        if (!isCanPromptResult(r)) return;
        this.input.placeholder = r.placeholder;
        this.el.append(
          this.input,
          button('Send', () => void this.send(), { class: 'prompt-send' }),
        );
        this.el.hidden = false;
      },
      () => undefined,
    );
  }

  private async send(): Promise<void> {
    const text = this.input.value.trim();
    if (!text) return;
    try {
      await this.transport.request({ op: 'send', text });
      this.input.value = '';
      this.status.say(`Sent: ${text}`);
    } catch (e) {
      this.status.fail((e as Error).message);
    }
  }
}

/** Status-line text helpers for the box (kept out of StatusLine's action flow). */
export function statusTarget(
  status: HTMLElement,
  alert: HTMLElement,
): { say(text: string): void; fail(text: string): void } {
  return {
    say: (t) => {
      setText(alert, '');
      setText(status, t);
    },
    fail: (t) => setText(alert, t),
  };
}
