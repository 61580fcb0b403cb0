/**
 * The inspector application: receives snapshots through the transport, keeps the UI
 * state (filters, expanded rows, tab), and turns clicks and keys into protocol
 * requests. The host answers a change with a new snapshot, so every effect shows at
 * once; the status line says what changed, including the next request's cost. Until
 * the host has a session it sends `empty`, and the empty state says what to do.
 *
 * A delta that keeps every row in its place (the live case: rows recounted or sent
 * whole, new ones at the end) patches the grid's model instead of rebuilding it, so
 * an update costs what it changed plus the visible rows.
 */
import { applyDelta } from '../../src/protocol/delta-apply';
import type {
  Finding,
  HostMessage,
  InspectorAction,
  InspectorRow,
  InspectorSnapshot,
  SnapshotDelta,
} from '../../src/protocol';
import { h, replaceChildren, setText } from '../shared/dom';
import type { ConnectionState, Transport } from '../shared/transport';
import { applyTheme } from '../shared/theme';
import { CallChart } from './chart';
import { DiffView } from './diff-view';
import type { CallVerdict } from '../../src/protocol/verdicts';
import { verdictOf } from './verdict-view';
import { SessionPicker } from './session-picker';
import { HeadView } from './head-view';
import { PromptBox, statusTarget } from './prompt-box';
import { EmptyState } from './empty-state';
import { isFiltered, NO_FILTER, type RowFilter } from './filter';
import { FindingsView } from './findings-view';
import { VirtualGrid } from './grid';
import { GridModel, type RowPatch } from './grid-model';
import { Header } from './header';
import { McpView } from './mcp-view';
import type { RowAction } from './row';
import { RowDetails } from './row-details';
import { StatusLine } from './status-line';
import { Tabs, type TabId } from './tabs';
import { Toolbar } from './toolbar';

interface SavedState {
  filter: RowFilter;
  expanded: string[];
  tab: TabId;
  overview?: boolean;
}

/** Whether a delta keeps every row of `base` in its place: none removed, new ones only after the last. */
function keepsPlaces(base: InspectorSnapshot, d: SnapshotDelta): boolean {
  const last = base.rows.at(-1)?.blockId;
  return d.removed.length === 0 && d.added.every((run) => run.after === last);
}

export class InspectorApp {
  private snapshot?: InspectorSnapshot;
  /** Revision of `snapshot` (deltas apply to it), and whether a whole snapshot was asked for. */
  private revision?: number;
  private resyncing = false;
  private filter: RowFilter = NO_FILTER;
  /** Rows by ref (the diff view names rows by ref), made when asked for, for these rows. */
  private refs?: { rows: readonly InspectorRow[]; map: Map<string, InspectorRow> };
  private diffCall?: number;
  private readonly model = new GridModel();
  private readonly statusLine: StatusLine;
  private readonly details: RowDetails;
  private readonly header: Header;
  private readonly chart = new CallChart((c) => this.showDiff(c));
  private readonly sessions: SessionPicker;
  private readonly head = new HeadView();
  private readonly prompt: PromptBox;
  private headAsking = false;
  private headUnsupported = false;
  private headKnown = false;
  private readonly toolbar: Toolbar;
  private readonly grid: VirtualGrid;
  private readonly findings: FindingsView;
  private readonly diff: DiffView;
  private readonly mcp: McpView;
  private readonly tabs: Tabs;
  private readonly conn = h('span', { class: 'conn' });
  private readonly overview: HTMLElement;
  private readonly empty = new EmptyState((a) => this.statusLine.runAction(a));
  /** Header, overview and tabs: shown with the first snapshot, hidden while the empty state shows. */
  private readonly main: HTMLElement;
  private readonly loading = h('p', { class: 'loading' }, 'Loading the context inspector…');

  constructor(
    private readonly root: HTMLElement,
    private readonly transport: Transport,
  ) {
    this.statusLine = new StatusLine(transport, () => this.snapshot?.cost.nextRequest ?? 0);
    this.details = new RowDetails(transport, this.statusLine, () => this.save());
    this.header = new Header(
      (spec) => this.run({ op: 'setStrategy', spec }, `Replaying with ${spec}…`),
      () => this.setOverview(this.overview.hidden),
    );
    this.sessions = new SessionPicker(transport);
    this.prompt = new PromptBox(transport, statusTarget(this.statusLine.status, this.statusLine.alert));
    this.header.el.querySelector('.topbar')?.append(this.sessions.el);
    this.toolbar = new Toolbar((f) => this.setFilter(f));
    this.grid = new VirtualGrid(
      {
        onAction: (row, action) => this.onRowAction(row, action),
        onToggle: (row, open) => this.details.toggle(row, open),
        detail: (row) => this.details.detail(row),
        isExpanded: (id) => this.details.isExpanded(id),
      },
      'Blocks of the next request',
      this.model,
    );
    this.details.grid = this.grid;
    this.overview = h('div', { class: 'overview' }, this.header.compositionEl(), this.chart.el);
    this.findings = new FindingsView({
      act: (f) => this.onFinding(f),
      showBlock: (id) => this.showBlock(id),
      showDiff: (c) => this.showDiff(c),
    });
    this.diff = new DiffView({ selectCall: (c) => this.loadDiff(c), showRef: (ref) => this.showRef(ref) });
    this.mcp = new McpView({
      toggle: (server, tool, enabled) =>
        void this.statusLine.runMcp({
          op: 'mcpSwitch',
          server,
          ...(tool !== undefined ? { tool } : {}),
          enabled,
          now: false,
        }),
      applyNow: () => void this.statusLine.runMcp({ op: 'mcpApply' }),
    });
    this.tabs = new Tabs(
      [
        { id: 'context', label: 'Context', panel: h('div', { class: 'context-panel' }, this.toolbar.el, this.grid.el) },
        { id: 'findings', label: 'Findings', panel: this.findings.el },
        { id: 'diff', label: 'Diff', panel: this.diff.el },
        { id: 'head', label: 'System & tools', panel: this.head.el, optional: true },
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
      for (const id of saved.expanded ?? []) this.details.expanded.add(id);
    }
    this.model.setFilter(this.filter);
    const footer = h(
      'footer',
      { class: 'statusbar' },
      this.prompt.el,
      this.statusLine.confirm.el,
      this.statusLine.status,
      this.statusLine.alert,
      this.conn,
    );
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
    } else if (m.type === 'theme' && this.transport.kind === 'standalone') applyTheme(m.kind);
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
    const base = this.snapshot;
    const start = performance.now();
    const next = base && d.base === this.revision ? applyDelta(base, d) : undefined;
    performance.measure('trimline:apply', { start });
    if (!base || !next) {
      if (!this.resyncing) {
        this.resyncing = true;
        this.transport.resync();
      }
      return;
    }
    this.revision = d.revision;
    this.onSnapshot(
      next,
      keepsPlaces(base, d) ? { before: base.rows, changed: d.changed.map((r) => r.blockId) } : undefined,
    );
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

  /** Show a snapshot; `patch` says what changed since the one shown (a delta that kept the rows in place). */
  private onSnapshot(s: InspectorSnapshot, patch?: RowPatch): void {
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
    if (patch) this.model.patch(s.rows, patch, s.cache.nextCachedTokens);
    else this.model.reset(s.rows, s.cache.nextCachedTokens);
    // The grid first: it reads no layout, and what follows only writes.
    this.showRows();
    this.header.update(s);
    this.chart.update(s);
    this.sessions.refresh();
    this.prompt.probe();
    // Once to know whether the host has a head to show, then while its tab is open.
    if (!this.headKnown || this.tabs.current === 'head') this.loadHead();
    this.toolbar.updateTools(this.model.tools);
    // The findings list is drawn when its tab shows (live updates change a few findings each call).
    if (this.tabs.current === 'findings') this.findings.update(s.findings);
    this.tabs.setCount('findings', s.findings.length);
    this.details.loadExpandedOriginals(this.model);
    if (this.tabs.current === 'diff' && this.diffCall === undefined) this.loadDiff(undefined);
    this.statusLine.shown(s.cost.nextRequest);
  }

  private showRows(): void {
    this.grid.update();
    this.toolbar.setCount(this.model.shown, this.model.total);
    this.tabs.setCount('context', this.model.total);
  }

  private setFilter(f: RowFilter): void {
    this.filter = f;
    this.model.setFilter(f);
    if (this.snapshot) this.showRows();
    this.save();
  }

  /** Rows by ref, for the rows shown now. */
  private rowsByRef(): Map<string, InspectorRow> {
    const rows = this.snapshot?.rows ?? [];
    if (this.refs?.rows !== rows) this.refs = { rows, map: new Map(rows.map((r) => [r.ref, r])) };
    return this.refs.map;
  }

  private save(): void {
    this.transport.saveState({
      filter: this.filter,
      expanded: [...this.details.expanded].slice(-200),
      tab: this.tabs.current,
      overview: !this.overview.hidden,
    } satisfies SavedState);
  }

  private setOverview(shown: boolean): void {
    this.overview.hidden = !shown;
    this.header.setOverviewShown(shown);
    this.save();
  }

  // ── requests ──

  private run(req: Parameters<StatusLine['run']>[0], pending: string): void {
    void this.statusLine.run(req, pending);
  }

  private onRowAction(row: InspectorRow, action: RowAction): void {
    if (action === 'trim') return this.details.startTrim(row);
    const verb = { pin: 'Pinning', unpin: 'Unpinning', restore: 'Restoring' }[action];
    this.run({ op: action, blockId: row.blockId }, `${verb} ${row.ref}…`);
  }

  private onFinding(f: Finding): void {
    const a = f.action;
    if (!a) return;
    if (a.kind === 'compact') this.run({ op: 'compact' }, 'Compacting…');
    else if (a.blockId) this.run({ op: a.kind, blockId: a.blockId }, `${a.label}…`);
  }

  // ── navigation ──

  private showBlock(blockId: string): void {
    this.tabs.select('context', true);
    if (!this.grid.focusBlock(blockId) && isFiltered(this.filter)) {
      this.toolbar.reset();
      this.grid.focusBlock(blockId);
    }
  }

  private showRef(ref: string): void {
    const r = this.rowsByRef().get(ref);
    if (r) this.showBlock(r.blockId);
  }

  private showDiff(call: number): void {
    this.tabs.select('diff', true);
    this.loadDiff(call);
  }

  /** The System & tools tab: loaded with each snapshot (the tab appears once the host answers). */
  private loadHead(): void {
    if (this.headUnsupported || this.headAsking) return;
    this.headAsking = true;
    this.transport
      .request({ op: 'head' })
      .then(
        (r) => {
          this.headKnown = true;
          if (this.head.show(r)) this.tabs.show('head');
        },
        () => (this.headUnsupported = true),
      )
      .finally(() => (this.headAsking = false));
  }

  private onTab(id: TabId): void {
    if (id === 'head') this.loadHead();
    if (id === 'diff') this.loadDiff(this.diffCall);
    if (id === 'findings' && this.snapshot) this.findings.update(this.snapshot.findings);
    this.save();
  }

  /** Load the diff of a call (undefined = the next request) against the one before. */
  private loadDiff(call: number | undefined): void {
    const s = this.snapshot;
    if (!s) return;
    this.diffCall = call === s.callIndex ? undefined : call;
    const verdict = (c: number): CallVerdict | undefined => verdictOf(this.snapshot?.calls.find((p) => p.call === c));
    this.diff.setCalls(
      s.callIndex,
      s.calls.map((p) => p.call),
      call ?? s.callIndex,
      verdict,
    );
    this.diff.showLoading();
    this.transport.request({ op: 'diff', call }).then(
      (d) => this.diff.show(d, this.rowsByRef(), verdict(d.call)),
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
