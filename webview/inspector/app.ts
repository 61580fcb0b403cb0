/**
 * The inspector application: receives snapshots through the transport, keeps the UI
 * state (filters, expanded rows, tab), and turns clicks and keys into protocol
 * requests. The host answers a change with a new snapshot, so every effect shows at
 * once; the status line says what changed, including the next request's cost. Until
 * the host has a session it sends `empty`, and the empty state says what to do.
 */
import { applyDelta } from '../../src/core/inspect/delta';
import type { Finding, HostMessage, InspectorAction, InspectorRow, InspectorSnapshot, RequestResults, SnapshotDelta, WebviewRequest } from '../../src/protocol';
import { h, replaceChildren, setText } from '../shared/dom';
import { fmtUsd } from '../shared/format';
import type { ConnectionState, Transport } from '../shared/transport';
import { applyTheme } from '../shared/theme';
import { CallChart } from './chart';
import { buildDetail, type DetailState, type Originals } from './detail';
import { DiffView } from './diff-view';
import { EmptyState } from './empty-state';
import { filterRows, gridItems, isFiltered, NO_FILTER, type RowFilter } from './filter';
import { FindingsView } from './findings-view';
import { VirtualGrid } from './grid';
import { Header } from './header';
import { McpView } from './mcp-view';
import type { RowAction } from './row';
import { Tabs, type TabId } from './tabs';
import { Toolbar } from './toolbar';

type ActionOp = 'pin' | 'unpin' | 'trim' | 'restore' | 'compact' | 'setStrategy';

interface SavedState {
  filter: RowFilter;
  expanded: string[];
  tab: TabId;
  overview?: boolean;
}

/** States whose overlay replaced something the user can look at (`originals`). */
const RESTORABLE: ReadonlySet<string> = new Set(['trimmed', 'summarized', 'pruned']);

/** A status note waits this long for the snapshot that shows the action's effect. */
const NOTE_WAIT_MS = 1500;

export class InspectorApp {
  private snapshot?: InspectorSnapshot;
  /** Revision of `snapshot` (deltas apply to it), and whether a whole snapshot was asked for. */
  private revision?: number;
  private resyncing = false;
  private filter: RowFilter = NO_FILTER;
  private readonly expanded = new Set<string>();
  private readonly editing = new Set<string>();
  private readonly originals = new Map<string, Originals>();
  private rowsByRef = new Map<string, InspectorRow>();
  private diffCall?: number;
  private note?: { before: number; message?: string; after?: number; timer: number };
  private readonly header: Header;
  private readonly chart = new CallChart();
  private readonly toolbar: Toolbar;
  private readonly grid: VirtualGrid;
  private readonly findings: FindingsView;
  private readonly diff: DiffView;
  private readonly mcp: McpView;
  private readonly tabs: Tabs;
  private readonly status = h('div', { class: 'status', role: 'status', 'aria-live': 'polite' });
  private readonly alert = h('div', { class: 'alert', role: 'alert' });
  private readonly conn = h('span', { class: 'conn' });
  private readonly overview: HTMLElement;
  private readonly empty = new EmptyState((a) => this.runAction(a));
  /** Header, overview and tabs: shown with the first snapshot, hidden while the empty state shows. */
  private readonly main: HTMLElement;
  private readonly loading = h('p', { class: 'loading' }, 'Loading the context inspector…');

  constructor(
    private readonly root: HTMLElement,
    private readonly transport: Transport,
  ) {
    this.header = new Header(
      (spec) => void this.run({ op: 'setStrategy', spec }, `Replaying with ${spec}…`),
      () => this.setOverview(this.overview.hidden),
    );
    this.toolbar = new Toolbar((f) => this.setFilter(f));
    this.grid = new VirtualGrid(
      {
        onAction: (row, action) => this.onRowAction(row, action),
        onToggle: (row, open) => this.toggle(row, open),
        detail: (row) => this.detail(row),
        isExpanded: (id) => this.expanded.has(id),
      },
      'Blocks of the next request',
    );
    this.overview = h('div', { class: 'overview' }, this.header.compositionEl(), this.chart.el);
    this.findings = new FindingsView({ act: (f) => this.onFinding(f), showBlock: (id) => this.showBlock(id), showDiff: (c) => this.showDiff(c) });
    this.diff = new DiffView({ selectCall: (c) => this.loadDiff(c), showRef: (ref) => this.showRef(ref) });
    this.mcp = new McpView({
      toggle: (server, tool, enabled) => void this.runMcp({ op: 'mcpSwitch', server, ...(tool !== undefined ? { tool } : {}), enabled, now: false }),
      applyNow: () => void this.runMcp({ op: 'mcpApply' }),
    });
    this.tabs = new Tabs(
      [
        { id: 'context', label: 'Context', panel: h('div', { class: 'context-panel' }, this.toolbar.el, this.grid.el) },
        { id: 'findings', label: 'Findings', panel: this.findings.el },
        { id: 'diff', label: 'Diff', panel: this.diff.el },
        { id: 'tools', label: 'Tools', panel: this.mcp.el, optional: true },
      ],
      (id) => this.onTab(id),
    );
    this.main = h('div', { class: 'inspector-main', hidden: true }, this.header.el, this.overview, this.tabs.el);
  }

  start(): void {
    const saved = this.transport.loadState<SavedState>();
    if (saved) {
      this.filter = { ...NO_FILTER, ...saved.filter };
      for (const id of saved.expanded ?? []) this.expanded.add(id);
    }
    const footer = h('footer', { class: 'statusbar' }, this.status, this.alert, this.conn);
    replaceChildren(this.root, this.loading, this.main, this.empty.el, footer);
    if (saved?.overview === false) this.setOverview(false);
    this.root.setAttribute('aria-busy', 'true');
    this.toolbar.filter = this.filter;
    if (saved?.tab) this.tabs.select(saved.tab, false);
    document.addEventListener('keydown', (e) => this.onGlobalKey(e));
    this.transport.start(
      (m) => this.onMessage(m),
      (s) => this.onConnection(s),
    );
  }

  private onMessage(m: HostMessage): void {
    if (m.type === 'snapshot') {
      const start = performance.now();
      this.revision = m.revision;
      this.resyncing = false;
      this.onSnapshot(m.snapshot);
      // What each update costs the page (devtools' Performance panel; the browser tests log it).
      performance.measure('trimline:snapshot', { start });
    } else if (m.type === 'snapshotDelta') {
      const start = performance.now();
      this.onDelta(m.delta);
      performance.measure('trimline:delta', { start });
    } else if (m.type === 'empty') this.onEmpty(m.actions);
    else if (m.type === 'mcp') {
      this.tabs.show('tools');
      this.mcp.update(m.info);
    }
    else if (m.type === 'theme' && this.transport.kind === 'standalone') applyTheme(m.kind);
  }

  private onConnection(s: ConnectionState): void {
    if (this.transport.kind === 'vscode') return;
    setText(this.conn, s === 'open' ? '● connected' : s === 'connecting' ? '○ connecting…' : '○ disconnected');
    this.conn.className = `conn conn-${s}`;
  }

  /**
   * A delta applies to the revision it names, and only to it; one that is older than
   * what the inspector shows is stale and dropped; anything else (a gap, a delta that
   * does not fit) asks the host for a whole snapshot, once, until it arrives.
   */
  private onDelta(d: SnapshotDelta): void {
    if (this.snapshot && this.revision !== undefined && d.revision <= this.revision) return;
    const start = performance.now();
    const next = this.snapshot && d.base === this.revision ? applyDelta(this.snapshot, d) : undefined;
    performance.measure('trimline:apply', { start });
    if (!next) {
      if (!this.resyncing) {
        this.resyncing = true;
        this.transport.resync();
      }
      return;
    }
    this.revision = d.revision;
    this.onSnapshot(next);
  }

  /** No session (yet, or any more): the empty state replaces the inspector. */
  private onEmpty(actions: InspectorAction[]): void {
    this.snapshot = undefined;
    this.revision = undefined;
    this.resyncing = false;
    this.root.setAttribute('aria-busy', 'false');
    this.loading.hidden = true;
    this.main.hidden = true;
    this.empty.show(actions);
  }

  private onSnapshot(s: InspectorSnapshot): void {
    this.snapshot = s;
    this.root.setAttribute('aria-busy', 'false');
    if (this.main.hidden) {
      // The first snapshot, or a session appeared: keep keyboard focus in the page (its button is going away).
      const refocus = this.empty.hasFocus();
      this.loading.hidden = true;
      this.empty.hide();
      this.main.hidden = false;
      if (refocus) this.tabs.select(this.tabs.current, false, true);
    }
    this.rowsByRef = new Map(s.rows.map((r) => [r.ref, r]));
    this.header.update(s);
    this.chart.update(s);
    this.toolbar.updateTools(s.rows);
    // The findings list is drawn when its tab shows (live updates change a few findings each call).
    if (this.tabs.current === 'findings') this.findings.update(s.findings);
    this.tabs.setCount('findings', s.findings.length);
    this.applyFilter();
    this.loadExpandedOriginals(s);
    if (this.tabs.current === 'diff' && this.diffCall === undefined) this.loadDiff(undefined);
    if (this.note) {
      this.note.after = s.cost.nextRequest;
      this.flushNote();
    }
  }

  private applyFilter(): void {
    const s = this.snapshot;
    if (!s) return;
    const rows = filterRows(s.rows, this.filter);
    this.grid.setItems(gridItems(rows, s.cache.nextCachedTokens));
    this.toolbar.setCount(rows.length, s.rows.length);
    this.tabs.setCount('context', s.rows.length);
  }

  private setFilter(f: RowFilter): void {
    this.filter = f;
    this.applyFilter();
    this.save();
  }

  private save(): void {
    this.transport.saveState({ filter: this.filter, expanded: [...this.expanded].slice(-200), tab: this.tabs.current, overview: !this.overview.hidden } satisfies SavedState);
  }

  private setOverview(shown: boolean): void {
    this.overview.hidden = !shown;
    this.header.setOverviewShown(shown);
    this.save();
  }

  // ── requests ───────────────────────────────────────────────────────────────

  /** Send an action; its message and the cost change go to the status line. */
  private async run(req: Extract<WebviewRequest, { op: ActionOp }>, pending: string): Promise<boolean> {
    setText(this.status, pending);
    setText(this.alert, '');
    if (this.note) clearTimeout(this.note.timer);
    const before = this.snapshot?.cost.nextRequest ?? 0;
    this.note = { before, timer: window.setTimeout(() => this.flushNote(true), NOTE_WAIT_MS) };
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
  private async runMcp(req: Extract<WebviewRequest, { op: 'mcpSwitch' | 'mcpApply' }>): Promise<void> {
    setText(this.alert, '');
    try {
      const result = (await this.transport.request(req)) as RequestResults['mcpSwitch'];
      setText(this.status, result.message);
    } catch (e) {
      setText(this.alert, (e as Error).message);
    }
  }

  /** Announce the action once both its response and the new snapshot are in (or after a wait). */
  private flushNote(force = false): void {
    const n = this.note;
    if (!n?.message || (n.after === undefined && !force)) return;
    clearTimeout(n.timer);
    this.note = undefined;
    const cost = n.after !== undefined && Math.abs(n.after - n.before) >= 0.00005 ? ` Next request ${fmtUsd(n.before)} → ${fmtUsd(n.after)}.` : '';
    setText(this.status, `${n.message}.${cost}`);
  }

  private onRowAction(row: InspectorRow, action: RowAction): void {
    if (action === 'trim') {
      this.editing.add(row.blockId);
      this.expanded.add(row.blockId);
      this.grid.refresh(row.blockId);
      requestAnimationFrame(() => {
        const editor = this.grid.el.querySelector(`.grid-row[data-block="${CSS.escape(row.blockId)}"] .trim-editor`);
        editor?.scrollIntoView({ block: 'nearest' });
        (editor?.querySelector('.trim-text') as HTMLElement | null)?.focus();
      });
      return;
    }
    const verb = { pin: 'Pinning', unpin: 'Unpinning', restore: 'Restoring' }[action];
    void this.run({ op: action, blockId: row.blockId }, `${verb} ${row.ref}…`);
  }

  private async submitTrim(row: InspectorRow, text: string): Promise<void> {
    const ok = await this.run({ op: 'trim', blockId: row.blockId, text: text.trim() || undefined }, `Trimming ${row.ref}…`);
    if (!ok) return;
    this.editing.delete(row.blockId);
    this.grid.refresh(row.blockId);
    this.grid.focusBlock(row.blockId);
  }

  private cancelTrim(row: InspectorRow): void {
    this.editing.delete(row.blockId);
    this.grid.refresh(row.blockId);
    this.grid.focusBlock(row.blockId);
  }

  /** Expanded rows show what their overlay replaced: fetch it for overlays that are new in this snapshot. */
  private loadExpandedOriginals(s: InspectorSnapshot): void {
    if (!this.expanded.size) return;
    for (const row of s.rows) {
      if (this.expanded.has(row.blockId) && row.overlayId && RESTORABLE.has(row.state) && !this.originals.has(row.overlayId)) this.loadOriginals(row);
    }
  }

  private toggle(row: InspectorRow, open: boolean): void {
    if (open) this.expanded.add(row.blockId);
    else {
      this.expanded.delete(row.blockId);
      this.editing.delete(row.blockId);
    }
    if (open && row.overlayId && RESTORABLE.has(row.state) && !this.originals.has(row.overlayId)) this.loadOriginals(row);
    this.grid.refresh(row.blockId);
    this.grid.focusBlock(row.blockId);
    this.save();
  }

  private detail(row: InspectorRow): Node {
    const st: DetailState = { editing: this.editing.has(row.blockId), originals: row.overlayId ? this.originals.get(row.overlayId) : undefined };
    return buildDetail(row, st, {
      loadOriginals: (r) => this.loadOriginals(r),
      submitTrim: (r, text) => void this.submitTrim(r, text),
      cancelTrim: (r) => this.cancelTrim(r),
    });
  }

  private loadOriginals(row: InspectorRow): void {
    const id = row.overlayId;
    if (!id) return;
    this.originals.set(id, 'loading');
    this.grid.refresh(row.blockId);
    this.transport.request({ op: 'originals', overlayId: id }).then(
      (o) => this.originals.set(id, o),
      (e: unknown) => this.originals.set(id, { error: (e as Error).message }),
    ).finally(() => this.grid.refresh(row.blockId));
  }

  private onFinding(f: Finding): void {
    const a = f.action;
    if (!a) return;
    if (a.kind === 'compact') void this.run({ op: 'compact' }, 'Compacting…');
    else if (a.blockId) void this.run({ op: a.kind, blockId: a.blockId }, `${a.label}…`);
  }

  /** An empty-state button: the host runs the action (its effect arrives as a snapshot, or in the chat view). */
  private async runAction(action: InspectorAction): Promise<void> {
    setText(this.alert, '');
    try {
      await this.transport.request({ op: 'runAction', action });
    } catch (e) {
      setText(this.alert, (e as Error).message);
    }
  }

  // ── navigation ─────────────────────────────────────────────────────────────

  private showBlock(blockId: string): void {
    this.tabs.select('context', true);
    if (!this.grid.focusBlock(blockId) && isFiltered(this.filter)) {
      this.toolbar.reset();
      this.grid.focusBlock(blockId);
    }
  }

  private showRef(ref: string): void {
    const r = this.rowsByRef.get(ref);
    if (r) this.showBlock(r.blockId);
  }

  private showDiff(call: number): void {
    this.tabs.select('diff', true);
    this.loadDiff(call);
  }

  private onTab(id: TabId): void {
    if (id === 'diff') this.loadDiff(this.diffCall);
    if (id === 'findings' && this.snapshot) this.findings.update(this.snapshot.findings);
    this.save();
  }

  /** Load the diff of a call (undefined = the next request) against the one before. */
  private loadDiff(call: number | undefined): void {
    const s = this.snapshot;
    if (!s) return;
    this.diffCall = call === s.callIndex ? undefined : call;
    this.diff.setCalls(s.callIndex, call ?? s.callIndex);
    this.diff.showLoading();
    this.transport.request({ op: 'diff', call }).then(
      (d) => this.diff.show(d, this.rowsByRef),
      (e: unknown) => this.diff.showError((e as Error).message),
    );
  }

  /** `/` focuses the search box (outside text fields). */
  private onGlobalKey(e: KeyboardEvent): void {
    const t = e.target as HTMLElement;
    if (e.key !== '/' || this.main.hidden || t.closest('input, textarea, vscode-text-field, vscode-text-area')) return;
    e.preventDefault();
    this.tabs.select('context', true);
    this.toolbar.focusSearch();
  }
}
