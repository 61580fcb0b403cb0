/**
 * The inspector's empty state, shown while its host has no session to inspect: what
 * the inspector is for, and one button per action the host offered in its `empty`
 * message (VS Code: start a chat, import a transcript). A host without them (the
 * standalone server) gets the explanation alone: the webview never guesses what its
 * host can do. Buttons are toolkit buttons: Tab reaches them, Enter and Space press
 * them, the focus ring is the theme's.
 */
import type { InspectorAction } from '../../src/protocol';
import { h, replaceChildren, setText, svg } from '../shared/dom';

interface ActionSpec {
  label: string;
  detail: string;
  appearance: 'primary' | 'secondary';
}

const ACTIONS: Readonly<Record<InspectorAction, ActionSpec>> = {
  startChat: {
    label: 'Start a Chat',
    detail: 'Ask Trimline in the chat view. This inspector follows the session request by request.',
    appearance: 'primary',
  },
  importTranscript: {
    label: 'Import Transcript…',
    detail: 'Replay a recorded session: Claude Code (JSONL), Cline, OpenAI chat (SWE-agent) or Anthropic JSON.',
    appearance: 'secondary',
  },
};

const WITH_ACTIONS = 'Start a chat or import a transcript to begin.';
const WITHOUT_ACTIONS = 'The session appears here as soon as it makes its first request.';

/** A stack of layers (the inspector's icon), drawn with DOM APIs. */
function icon(): SVGSVGElement {
  const line = (points: string) => svg('polyline', { points, fill: 'none' });
  return svg(
    'svg',
    { class: 'empty-icon', viewBox: '0 0 48 48', width: 48, height: 48, 'aria-hidden': 'true', focusable: 'false' },
    svg('polygon', { points: '24,7 42,16 24,25 6,16' }),
    line('6,24 24,33 42,24'),
    line('6,32 24,41 42,32'),
  );
}

export class EmptyState {
  readonly el: HTMLElement;
  private readonly lead = h('p', { class: 'empty-lead', id: 'empty-lead' });
  private readonly list = h('ul', { class: 'empty-actions', 'aria-label': 'What to do' });
  private readonly pending = new Set<InspectorAction>();
  private shown?: string;

  constructor(private readonly onAction: (action: InspectorAction) => Promise<unknown>) {
    this.el = h('section', {
      class: 'empty-state',
      'aria-labelledby': 'empty-title',
      'aria-describedby': 'empty-lead',
      hidden: true,
    });
  }

  /** Built on first use: a host that always has a session never pays for it. */
  private build(): void {
    replaceChildren(
      this.el,
      h(
        'div',
        { class: 'empty-inner' },
        icon(),
        h('h1', { class: 'empty-title', id: 'empty-title' }, 'No session to inspect yet'),
        h(
          'p',
          { class: 'empty-about' },
          'The Context Inspector shows what the model sees on every request: each block of the context, what was ' +
            'trimmed and why, where the prompt cache ends and what the next request costs. You can pin, trim and ' +
            'restore blocks here.',
        ),
        this.lead,
        this.list,
      ),
    );
  }

  /** Show the empty state with the host's actions (in the host's order). */
  show(actions: readonly InspectorAction[]): void {
    if (!this.el.firstChild) this.build();
    this.el.hidden = false;
    setText(this.lead, actions.length ? WITH_ACTIONS : WITHOUT_ACTIONS);
    const key = actions.join('|');
    if (key === this.shown) return;
    this.shown = key;
    replaceChildren(this.list, ...actions.map((a) => this.item(a)));
    this.list.hidden = !actions.length;
  }

  hide(): void {
    this.el.hidden = true;
  }

  /** Whether keyboard focus is inside the empty state. */
  hasFocus(): boolean {
    return this.el.contains(document.activeElement);
  }

  private item(action: InspectorAction): HTMLElement {
    const spec = ACTIONS[action];
    const detailId = `empty-detail-${action}`;
    const b = h(
      'vscode-button',
      { appearance: spec.appearance, class: 'empty-action', 'data-action': action, 'aria-describedby': detailId },
      spec.label,
    );
    b.addEventListener('click', () => this.press(action));
    return h('li', {}, b, h('p', { class: 'empty-detail', id: detailId }, spec.detail));
  }

  /** One press at a time per action (a second Import would open a second dialog). */
  private press(action: InspectorAction): void {
    if (this.pending.has(action)) return;
    this.pending.add(action);
    const done = (): void => void this.pending.delete(action);
    this.onAction(action).then(done, done);
  }
}
