/** ARIA tabs (Context, Findings, Diff, System & tools, Tools): arrow keys move between tabs, Home/End jump. */
import { h, setText } from '../shared/dom';
import { fmtInt } from '../shared/format';

export type TabId = 'context' | 'findings' | 'diff' | 'head' | 'tools';

export interface TabSpec {
  id: TabId;
  label: string;
  panel: HTMLElement;
  /** Not in the tab list until `show` (the Tools tab appears when the host reports MCP servers). */
  optional?: boolean;
}

export class Tabs {
  readonly el: HTMLElement;
  private readonly buttons = new Map<TabId, HTMLButtonElement>();
  private readonly counts = new Map<TabId, HTMLElement>();
  private readonly panels = new Map<TabId, HTMLElement>();
  private readonly list: HTMLElement;
  private readonly shown = new Set<TabId>();
  current: TabId;

  constructor(
    private readonly specs: readonly TabSpec[],
    private readonly onSelect: (id: TabId) => void,
  ) {
    this.current = specs[0].id;
    const list = (this.list = h('div', { class: 'tablist', role: 'tablist', 'aria-label': 'Inspector views' }));
    const panels: HTMLElement[] = [];
    for (const s of specs) {
      const count = h('span', { class: 'tab-count' });
      const b = h(
        'button',
        {
          type: 'button',
          role: 'tab',
          id: `tab-${s.id}`,
          class: 'tab',
          'aria-controls': `panel-${s.id}`,
          'aria-selected': String(s.id === this.current),
          tabindex: s.id === this.current ? 0 : -1,
        },
        s.label,
        count,
      );
      b.addEventListener('click', () => this.select(s.id, true));
      b.addEventListener('keydown', (e) => this.onKey(e));
      const panel = h(
        'section',
        {
          role: 'tabpanel',
          id: `panel-${s.id}`,
          class: `panel panel-${s.id}`,
          'aria-labelledby': `tab-${s.id}`,
          hidden: s.id !== this.current,
        },
        s.panel,
      );
      this.buttons.set(s.id, b);
      this.counts.set(s.id, count);
      this.panels.set(s.id, panel);
      if (!s.optional) {
        list.append(b);
        this.shown.add(s.id);
      }
      panels.push(panel);
    }
    this.el = h('div', { class: 'tabs' }, list, ...panels);
  }

  select(id: TabId, notify: boolean, focus = false): void {
    this.current = id;
    for (const [k, b] of this.buttons) {
      const on = k === id;
      b.setAttribute('aria-selected', String(on));
      b.tabIndex = on ? 0 : -1;
      this.panels.get(k)!.hidden = !on;
    }
    if (focus) this.buttons.get(id)?.focus();
    if (notify) this.onSelect(id);
  }

  /** Put an optional tab into the tab list (once). */
  show(id: TabId): void {
    const b = this.buttons.get(id);
    if (!b || this.shown.has(id)) return;
    this.shown.add(id);
    this.list.append(b);
  }

  setCount(id: TabId, n: number): void {
    const el = this.counts.get(id);
    if (el) setText(el, ` ${fmtInt(n)}`);
  }

  private onKey(e: KeyboardEvent): void {
    const ids = this.specs.map((s) => s.id).filter((id) => this.shown.has(id));
    const i = ids.indexOf(this.current);
    const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: ids.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    this.select(ids[(to + ids.length) % ids.length], true, true);
  }
}
