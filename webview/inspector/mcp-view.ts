/**
 * The Tools tab: MCP servers and the tokens of each tool definition (sent on every
 * call). Switching one off waits for the prompt cache to expire (free); "Apply now"
 * rewrites the cache at once, at the price shown.
 */
import type { McpInspectorInfo, McpServerView, McpToolView } from '../../src/protocol';
import { button, clear, h } from '../shared/dom';
import { fmtTokens, fmtUsd } from '../shared/format';

/**
 * Dollars with two significant digits when small: a per-call saving of a few tool definitions is fractions of a cent.
 */
function usd(n: number): string {
  return n >= 0.01 || n === 0 ? fmtUsd(n) : `$${n.toPrecision(2)}`;
}

export interface McpHandlers {
  /** Switch a server (tool undefined) or a tool, at the cache's expiry. */
  toggle(server: string, tool: string | undefined, enabled: boolean): void;
  /** Apply the pending switches now (rewrites the prompt cache). */
  applyNow(): void;
}

export class McpView {
  readonly el: HTMLElement;
  private readonly body = h('div', { class: 'mcp-servers' });
  private readonly summary = h('p', { class: 'mcp-summary' });
  private readonly pending = h('div', { class: 'mcp-pending', role: 'status' });
  private readonly empty = h(
    'p',
    { class: 'muted empty' },
    'No MCP servers: add them to .vscode/mcp.json, .mcp.json or the trimline.mcpServers setting, then start a chat.',
  );

  constructor(private readonly handlers: McpHandlers) {
    this.el = h('div', { class: 'mcp-view' }, this.summary, this.pending, this.body, this.empty);
  }

  update(info: McpInspectorInfo): void {
    clear(this.body);
    this.empty.hidden = info.servers.length > 0;
    const mcpTokens = info.servers.reduce((s, x) => s + x.tokens, 0);
    this.summary.textContent = info.servers.length
      ? `Tool definitions: ${fmtTokens(info.toolsTokens)} tokens on every call, ${fmtTokens(mcpTokens)} of them ` +
        `from ${info.servers.length} MCP server${info.servers.length === 1 ? '' : 's'}.`
      : '';
    clear(this.pending);
    const waiting =
      info.servers.filter((s) => s.pending).length +
      info.servers.reduce((n, s) => n + s.tools.filter((t) => t.pending).length, 0);
    if (waiting) {
      const a = info.applyNow;
      const paidOff = a?.breakEvenCalls != null ? `, paid off after ${a.breakEvenCalls} calls` : '';
      const saved =
        a && a.savedPerCallUsd > 0
          ? `then ${usd(a.savedPerCallUsd)} saved per call${paidOff}`
          : 'and nothing saved per call';
      const price = a
        ? ` Apply now: +${usd(a.rewriteUsd)} on the next call (the prompt cache is rewritten), ${saved}.`
        : '';
      this.pending.append(
        h(
          'span',
          {},
          `${waiting} switch${waiting === 1 ? ' waits' : 'es wait'} for the prompt cache to expire (no extra ` +
            `cost).${price}`,
        ),
        button('Apply now', () => this.handlers.applyNow(), { class: 'secondary', 'data-action': 'mcp-apply' }),
      );
    }
    for (const s of info.servers) this.body.append(this.server(s));
  }

  private checkbox(label: string, checked: boolean, onChange: (on: boolean) => void): HTMLInputElement {
    const box = h('input', { type: 'checkbox', 'aria-label': label });
    box.checked = checked;
    box.addEventListener('change', () => onChange(box.checked));
    return box;
  }

  private server(s: McpServerView): HTMLElement {
    const state = s.state === 'ready' ? '' : ` · ${s.state}${s.error ? `: ${s.error}` : ''}`;
    const head = h(
      'div',
      { class: 'mcp-server-head' },
      this.checkbox(`Offer the tools of ${s.name}`, s.enabled !== s.pending, (on) =>
        this.handlers.toggle(s.name, undefined, on),
      ),
      h('strong', {}, s.name),
      h(
        'span',
        { class: 'muted' },
        ` ${s.origin} · ${s.tools.length} tools · ${fmtTokens(s.tokens)} ` +
          `tokens${s.pending ? ' · switch pending' : ''}${state}`,
      ),
    );
    const rows = s.tools.map((t) => this.tool(s.name, t));
    return h(
      'section',
      { class: 'mcp-server', 'data-server': s.name },
      head,
      h('table', { class: 'mcp-tools' }, h('tbody', {}, ...rows)),
    );
  }

  private tool(server: string, t: McpToolView): HTMLElement {
    return h(
      'tr',
      { 'data-tool': t.apiName, class: t.enabled ? '' : 'off' },
      h(
        'td',
        {},
        this.checkbox(`Offer ${t.apiName}`, t.enabled !== t.pending, (on) => this.handlers.toggle(server, t.name, on)),
      ),
      h('td', {}, h('code', {}, t.apiName)),
      h('td', { class: 'num', 'data-tokens': String(t.tokens) }, `${fmtTokens(t.tokens)} tokens`),
      h('td', { class: 'muted' }, t.pending ? 'switch pending' : t.enabled ? '' : 'off'),
    );
  }
}
