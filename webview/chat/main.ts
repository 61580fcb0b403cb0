/**
 * The Trimline chat view. Keyboard-first: Enter sends, Shift+Enter is a newline,
 * Escape stops a running turn; focus goes back to the composer after a turn and to
 * the Approve/Retry button when one appears. Everything the model or a tool wrote
 * is rendered as text or through the safe Markdown renderer.
 */
import type { ChatEvent } from '../../src/protocol';
import { h } from '../shared/dom';
import { createTransport } from '../shared/transport';
import { button } from './dom';
import { Transcript } from './transcript';

interface SavedState {
  draft?: string;
}

const app = document.getElementById('app');
if (!app) throw new Error('chat: #app missing');

let busy = false;

const title = h('span', { class: 'title', id: 'session-title' }, 'New chat');
const busyDot = h('span', { class: 'busy', role: 'status', 'aria-live': 'polite' });
const banner = h('div', { class: 'banner', role: 'note', hidden: true });
const log = h('div', {
  class: 'transcript',
  role: 'log',
  'aria-live': 'polite',
  'aria-relevant': 'additions',
  'aria-label': 'Conversation',
  tabindex: 0,
});
const emptyState = h(
  'div',
  { class: 'empty' },
  h(
    'p',
    {},
    'Ask Trimline to work in this workspace. It reads, searches and edits files and can run commands after you ' +
      'approve them.',
  ),
  h('p', {}, 'The context inspector shows exactly what the model sees, and lets you pin, trim and restore it.'),
);
const input = h('textarea', {
  id: 'prompt',
  rows: 3,
  placeholder: 'Ask Trimline…',
  'aria-label': 'Message to Trimline',
  'aria-describedby': 'composer-hint',
});
const hint = h(
  'div',
  { id: 'composer-hint', class: 'visually-hidden' },
  'Enter to send, Shift+Enter for a new line, Escape to stop.',
);

const client = createTransport();
const transcript = new Transcript(log, {
  approve: (requestId, approved, always) =>
    void client.request({ op: 'approve', requestId, approved, ...(always ? { always } : {}) }).catch(showFailure),
  showDiff: (requestId) => void client.request({ op: 'showDiff', requestId }).catch(showFailure),
  retry: () => {
    transcript.retireErrors();
    void client.request({ op: 'retry' }).catch(showFailure);
  },
  setApiKey: () => void client.request({ op: 'setApiKey' }).catch(showFailure),
});

const sendBtn = button('Send', () => send(), { class: 'primary', 'aria-keyshortcuts': 'Enter', id: 'send' });
const stopBtn = button('Stop', () => stop(), {
  class: 'danger',
  'aria-keyshortcuts': 'Escape',
  id: 'stop',
  hidden: true,
});
// New chat and the inspector are also in the view's title bar; here they serve the empty state.
emptyState.append(
  h(
    'div',
    { class: 'buttons' },
    button('Open the inspector', () => void client.request({ op: 'openInspector' }).catch(showFailure), {
      class: 'secondary',
    }),
    button('Resume a session…', () => void client.request({ op: 'resume' }).catch(showFailure), {
      class: 'secondary',
    }),
  ),
  h('p', { class: 'hint' }, 'Enter sends · Shift+Enter adds a line · Escape stops'),
);

app.append(
  h('header', { class: 'bar' }, title, h('span', { class: 'spacer' }), busyDot),
  banner,
  log,
  emptyState,
  h(
    'div',
    { class: 'composer' },
    input,
    hint,
    h(
      'div',
      { class: 'composer-actions' },
      h('span', { class: 'hint' }, 'Enter ↵ send · Shift+Enter newline'),
      stopBtn,
      sendBtn,
    ),
  ),
);

client.start((m) => {
  if (m.type === 'chat') onEvent(m.event);
});
const saved = client.loadState<SavedState>();
if (saved?.draft) input.value = saved.draft;
input.focus();

input.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    send();
  }
});
input.addEventListener('input', () => client.saveState({ draft: input.value } satisfies SavedState));
document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape' && busy) {
    e.preventDefault();
    stop();
  }
});

function send(): void {
  const text = input.value.trim();
  if (!text || busy) return;
  input.value = '';
  client.saveState({});
  transcript.retireErrors();
  client.request({ op: 'send', text }).catch((err: unknown) => {
    input.value = text;
    showFailure(err);
  });
}

function stop(): void {
  void client.request({ op: 'stop' }).catch(showFailure);
}

function showFailure(err: unknown): void {
  onEvent({ kind: 'error', message: err instanceof Error ? err.message : String(err), retryable: false });
}

function setBusy(value: boolean): void {
  busy = value;
  sendBtn.hidden = value;
  stopBtn.hidden = !value;
  sendBtn.disabled = value;
  busyDot.textContent = value ? 'working…' : '';
  log.setAttribute('aria-busy', String(value));
  if (!value && !document.activeElement?.closest('.approval, .error-block')) input.focus();
}

function onEvent(e: ChatEvent): void {
  switch (e.kind) {
    case 'reset':
      transcript.clear();
      title.textContent = 'New chat';
      break;
    case 'status':
      setBusy(e.busy);
      if (e.title !== undefined) title.textContent = e.title || 'New chat';
      break;
    case 'workspace':
      input.placeholder = e.trusted ? 'Ask Trimline…' : 'Ask Trimline… (read-only: Restricted Mode)';
      banner.hidden = !e.notice;
      banner.textContent = e.notice ?? '';
      banner.classList.toggle('restricted', !e.trusted);
      break;
    default: {
      const focus = transcript.apply(e);
      focus?.focus();
    }
  }
  emptyState.hidden = !transcript.empty;
}
