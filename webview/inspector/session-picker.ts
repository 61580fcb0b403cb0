/**
 * The session picker of a proxy's inspector (issue 17): the proxied sessions, a client
 * session's subagents and side calls under it, and "follow the active one" (the default).
 * Asked for with each snapshot; hidden for hosts without sessions to pick (they refuse the
 * request). Keyboard: a toolkit dropdown like the strategy switcher.
 */
import { isSessionsResult, type SessionEntry, type SessionsResult } from '../../src/protocol/sessions';
import { clear, h } from '../shared/dom';
import type { Transport } from '../shared/transport';

type ValueElement = HTMLElement & { value: string };

/**
 * The list is asked for again this often while a picked session shows (its snapshot does not change when others do).
 */
const REFRESH_MS = 2_000;

/** The value of the "follow the most recently active session" option. */
const FOLLOW = '';

/** Parents first (most recent first), each followed by its children. */
export function ordered(sessions: readonly SessionEntry[]): { entry: SessionEntry; depth: number }[] {
  const ids = new Set(sessions.map((s) => s.id));
  const out: { entry: SessionEntry; depth: number }[] = [];
  for (const s of sessions) {
    if (s.parent !== undefined && ids.has(s.parent)) continue;
    out.push({ entry: s, depth: 0 });
    for (const c of sessions) if (c.parent === s.id) out.push({ entry: c, depth: 1 });
  }
  return out;
}

export class SessionPicker {
  readonly el: HTMLElement;
  private readonly dropdown: ValueElement;
  private key = '';
  private unsupported = false;
  private asking = false;
  private timer?: number;

  constructor(private readonly transport: Transport) {
    this.dropdown = h('vscode-dropdown', {
      class: 'session-picker',
      'aria-label': 'Proxied session shown',
    }) as ValueElement;
    this.dropdown.addEventListener('change', () => this.pick(this.dropdown.value));
    this.el = h('label', { class: 'session-label', hidden: true }, h('span', {}, 'Session'), this.dropdown);
  }

  /** Ask the host for its sessions (after each snapshot, and every REFRESH_MS); one request at a time. */
  refresh(): void {
    if (this.unsupported || this.asking) return;
    this.timer ??= window.setInterval(() => this.refresh(), REFRESH_MS);
    this.asking = true;
    this.transport
      .request({ op: 'sessions' })
      .then(
        (r) => this.show(r),
        () => {
          this.unsupported = true;
          this.el.hidden = true;
          window.clearInterval(this.timer);
        },
      )
      .finally(() => (this.asking = false));
  }

  private pick(value: string): void {
    this.transport.request({ op: 'follow', ...(value === FOLLOW ? {} : { id: value }) }).then(
      (r) => this.show(r),
      () => undefined,
    );
  }

  private show(r: unknown): void {
    if (!isSessionsResult(r)) return;
    this.el.hidden = r.sessions.length === 0;
    const rows = ordered(r.sessions);
    const key = JSON.stringify([
      rows.map((x) => [x.entry.id, x.entry.title, x.entry.client, x.entry.calls, x.depth]),
      r.shown,
    ]);
    if (key !== this.key) {
      this.key = key;
      this.render(r, rows);
    }
    const value = r.followed ?? FOLLOW;
    if (this.dropdown.value !== value) this.dropdown.value = value;
  }

  private render(r: SessionsResult, rows: { entry: SessionEntry; depth: number }[]): void {
    clear(this.dropdown);
    const shown = r.sessions.find((s) => s.id === r.shown);
    this.dropdown.append(
      h(
        'vscode-option',
        { value: FOLLOW },
        `Follow the active session${shown && r.followed === undefined ? ` (${shown.title})` : ''}`,
      ),
    );
    for (const { entry, depth } of rows) {
      const label =
        `${depth ? '\u21b3 ' : ''}${entry.title}${entry.client ? ` · ${entry.client}` : ''} · ${entry.calls} ` +
        `call${entry.calls === 1 ? '' : 's'}`;
      this.dropdown.append(h('vscode-option', { value: entry.id, 'data-depth': depth }, label));
    }
  }
}
