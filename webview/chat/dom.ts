/** Chat-specific DOM helpers on top of webview/shared/dom (every text is a text node, never markup). */
import { h, type Attrs } from '../shared/dom';

/** A button that runs `onClick`; keyboard activation comes with the element. */
export function button(label: string, onClick: () => void, attrs: Attrs = {}): HTMLButtonElement {
  const b = h('button', { type: 'button', ...attrs }, label);
  b.addEventListener('click', onClick);
  return b;
}

/** A short one-line summary of a tool input, for the card header. */
export function inputSummary(name: string, input: unknown): string {
  if (typeof input !== 'object' || input === null) return '';
  const o = input as Record<string, unknown>;
  const s = (k: string): string => (typeof o[k] === 'string' ? (o[k] as string) : '');
  switch (name) {
    case 'read_file': {
      const range =
        o.start_line !== undefined || o.end_line !== undefined
          ? `:${String(o.start_line ?? 1)}-${String(o.end_line ?? '')}`
          : '';
      return s('path') + range;
    }
    case 'list_files':
      return [s('path') || '.', s('pattern')].filter(Boolean).join(' ');
    case 'search':
      return `${JSON.stringify(s('query'))}${s('path') ? ` in ${s('path')}` : ''}`;
    case 'edit_file':
    case 'write_file':
      return s('path');
    case 'run_command':
      return s('command');
    case 'trim_tool_result':
      return s('tool_use_id');
    default:
      return '';
  }
}

export function oneLine(text: string, max = 120): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export function formatCost(usd: number): string {
  if (usd === 0) return '$0';
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}
