/** Filters (role, tool, state), text search, the row count and the keyboard hints above the grid. */
import { clear, h, setText } from '../shared/dom';
import { fmtInt } from '../shared/format';
import { NO_FILTER, type RowFilter } from './filter';
import { STATES } from './labels';

type ValueElement = HTMLElement & { value: string };

/**
 * Search waits this long after the last keystroke (a 5,000-row filter is cheap, re-rendering on every key is not
 * needed).
 */
const SEARCH_DEBOUNCE_MS = 120;

export class Toolbar {
  readonly el: HTMLElement;
  private readonly role: ValueElement;
  private readonly tool: ValueElement;
  private readonly state: ValueElement;
  private readonly search: ValueElement;
  private readonly count = h('span', { class: 'count', 'aria-live': 'polite' });
  private tools = '';
  private timer = 0;

  constructor(private readonly onChange: (f: RowFilter) => void) {
    const dropdown = (label: string, cls: string, options: [string, string][]): ValueElement => {
      const d = h('vscode-dropdown', { class: cls, 'aria-label': label }) as ValueElement;
      for (const [value, text] of options) d.append(h('vscode-option', { value }, text));
      d.addEventListener('change', () => this.emit());
      return d;
    };
    this.role = dropdown('Filter by role', 'f-role', [
      ['', 'All roles'],
      ['user', 'user'],
      ['assistant', 'assistant'],
    ]);
    this.tool = dropdown('Filter by tool', 'f-tool', [['', 'All tools']]);
    this.state = dropdown('Filter by state', 'f-state', [
      ['', 'All states'],
      ...STATES.map((s): [string, string] => [s, s]),
    ]);
    this.search = h('vscode-text-field', {
      class: 'f-search',
      placeholder: 'Search blocks',
      'aria-label': 'Search blocks',
    }) as ValueElement;
    this.search.addEventListener('input', () => {
      clearTimeout(this.timer);
      this.timer = window.setTimeout(() => this.emit(), SEARCH_DEBOUNCE_MS);
    });
    const hints = h(
      'span',
      { class: 'hints', 'aria-hidden': 'true' },
      h('kbd', {}, '↑↓'),
      ' move ',
      h('kbd', {}, 'Enter'),
      ' expand ',
      h('kbd', {}, 'p'),
      ' pin ',
      h('kbd', {}, 't'),
      ' trim ',
      h('kbd', {}, 'r'),
      ' restore',
    );
    this.el = h(
      'div',
      { class: 'toolbar', role: 'search' },
      this.role,
      this.tool,
      this.state,
      this.search,
      this.count,
      hints,
    );
  }

  get filter(): RowFilter {
    return {
      role: this.role.value ?? '',
      tool: this.tool.value ?? '',
      state: this.state.value ?? '',
      text: this.search.value ?? '',
    };
  }

  /** Restore saved filters (after a reload). */
  set filter(f: RowFilter) {
    this.role.value = f.role;
    this.state.value = f.state;
    this.search.value = f.text;
    this.tool.value = f.tool;
  }

  private emit(): void {
    this.onChange(this.filter);
  }

  /** New tools may appear with new rows; keep the selection. */
  updateTools(names: readonly string[]): void {
    const key = names.join('|');
    if (key === this.tools) return;
    this.tools = key;
    const current = this.tool.value;
    clear(this.tool);
    this.tool.append(h('vscode-option', { value: '' }, 'All tools'));
    for (const n of names) this.tool.append(h('vscode-option', { value: n }, n));
    this.tool.value = names.includes(current) ? current : '';
  }

  setCount(shown: number, total: number): void {
    setText(this.count, shown === total ? `${fmtInt(total)} blocks` : `${fmtInt(shown)} of ${fmtInt(total)} blocks`);
  }

  focusSearch(): void {
    this.search.focus();
  }

  reset(): void {
    this.filter = NO_FILTER;
    this.emit();
  }
}
