/**
 * One live chat session: the durable session (journal), the agent loop on it, the
 * chat transcript and the inspector's model. Loop events become chat events, log
 * lines and status updates. The loop is rebuilt (same session, same journal file)
 * when the API key or the settings change, before the next turn starts.
 */
import {
  AgentLoop,
  CREDENTIALS_HINT,
  openAgentSession,
  resolveAgentConfig,
  type AgentConfig,
  type AgentErrorInfo,
  type AgentEvent,
  type AgentSessionHandle,
  type ExternalTools,
} from '../../core/agent';
import { totalInput } from '../../core/session/types';
import { makeTitle } from '../../core/store/list';
import { openJournal, type Journal } from '../../core/store/journal';
import { strategyNames, type Decision } from '../../core/trimming';
import type { ChatEvent } from '../../protocol';
import type { Approvals } from './approvals';
import { chatEventsOf, historyEvents, type ChatTranscript } from './chat-transcript';
import type { TrimlineSettings } from './config-map';
import type { StatusInfo } from './host-types';
import { LiveInspector } from '../../core/inspect/live';
import type { Log } from './log';
import type { VscodeWorkspace } from './workspace-adapter';

export interface LiveSessionDeps {
  readonly dir: string;
  readonly workspace: VscodeWorkspace;
  readonly approvals: Approvals;
  readonly log: Log;
  readonly transcript: ChatTranscript;
  settings(): TrimlineSettings;
  apiKey(): Promise<string | undefined>;
  /** MCP servers' tools for this session (undefined: none configured, or Restricted Mode). */
  mcpTools(): Promise<ExternalTools | undefined>;
  /** Something the inspector or the status bar shows changed. */
  changed(busy: boolean): void;
}

export const NO_KEY_MESSAGE =
  'No API key: run "Trimline: Set API Key" (stored in Secret Storage), set ANTHROPIC_API_KEY, or point ' +
  'trimline.baseUrl at an Anthropic-compatible endpoint.';

/** The loop's messages name the CLI's ways to set a key; in VS Code there is a command for it. */
function userMessage(message: string): string {
  return message
    .split(CREDENTIALS_HINT)
    .join(
      'run "Trimline: Set API Key" (kept in Secret Storage) or set ANTHROPIC_API_KEY; trimline.baseUrl selects ' +
        'another endpoint',
    );
}

export class LiveSession {
  readonly inspector: LiveInspector;
  loop: AgentLoop;
  private stale = false;
  private lastInput?: number;
  private turnCost = 0;
  private detach: () => void;
  private journal: Journal;
  private decisions: readonly Decision[];
  private shownTitle?: string;

  private constructor(
    private readonly deps: LiveSessionDeps,
    readonly handle: AgentSessionHandle,
    config: AgentConfig,
    private readonly mcpTools?: ExternalTools,
  ) {
    this.journal = handle.journal;
    this.decisions = handle.decisions;
    this.loop = this.makeLoop(config, handle.calibration);
    this.detach = this.loop.onAny((e) => this.onEvent(e));
    const loop = (): AgentLoop => this.loop;
    this.inspector = new LiveInspector(this.loop.engine, {
      sessionId: handle.sessionId,
      title: () => this.title,
      // The loop is rebuilt when settings change: the inspector names the strategy in use.
      get strategy(): string {
        return loop().config.strategy;
      },
      strategies: ['default', 'none', ...strategyNames()],
      // Each call's cache verdict goes into the session's journal (the journal may be reopened with the loop).
      onVerdict: (v) => this.journal.recordVerdict(`agent:${handle.sessionId}`, v),
    });
    const last = handle.session.calls.at(-1)?.usage;
    if (last) this.lastInput = totalInput(last);
  }

  /** A new session, or a stored one resumed (its chat rebuilt from the log). */
  static async open(deps: LiveSessionDeps, sessionId?: string): Promise<LiveSession> {
    const config = await LiveSession.config(deps);
    const mcpTools = await deps.mcpTools();
    const handle = openAgentSession({
      dir: deps.dir,
      sessionId,
      mustExist: sessionId !== undefined,
      model: config.model,
      journal: { onError: (e) => deps.log.error('journal write failed', e) },
    });
    const live = new LiveSession(deps, handle, config, mcpTools);
    deps.transcript.clear();
    if (handle.resumed) {
      for (const e of historyEvents(handle.session)) deps.transcript.push(e);
      deps.transcript.push({
        kind: 'notice',
        text: `Resumed session ${handle.sessionId} (${handle.session.messages.length} messages).`,
      });
      for (const issue of handle.issues)
        deps.log.warn(
          `resume ${handle.sessionId}: ${issue.line !== undefined ? `line ${issue.line}: ` : ''}${issue.message}`,
        );
    }
    deps.log.info(
      `${handle.resumed ? 'resumed' : 'new'} session ${handle.sessionId} (${config.model}, strategy ` +
        `${config.strategy}, journal ${handle.file})`,
    );
    return live;
  }

  private static async config(deps: LiveSessionDeps): Promise<AgentConfig> {
    const s = deps.settings();
    const apiKey = await deps.apiKey();
    deps.log.setSecrets([apiKey]);
    return resolveAgentConfig({
      model: s.model,
      apiKey,
      baseURL: s.baseUrl,
      strategy: s.strategy,
      pipeline: s.pipeline,
      ttl: s.ttl,
      prices: s.prices,
    });
  }

  private makeLoop(config: AgentConfig, calibration?: unknown): AgentLoop {
    return new AgentLoop({
      session: this.handle.session,
      workspace: this.deps.workspace,
      config,
      journal: this.journal,
      approve: this.deps.approvals.command,
      externalTools: this.mcpTools,
      calibration,
      decisions: this.decisions,
      compressions: this.handle.compressions,
      onListenerError: (e) => this.deps.log.error('event listener failed', e),
    });
  }

  get sessionId(): string {
    return this.handle.sessionId;
  }

  get title(): string {
    const first = this.handle.session.messages.find(
      (m) => m.role === 'user' && m.blocks.some((b) => b.param.type === 'text'),
    );
    const text = first?.blocks.map((b) => (b.param.type === 'text' ? b.param.text : '')).join(' ') ?? '';
    return text ? makeTitle(text) : 'New chat';
  }

  get running(): boolean {
    return this.loop.running;
  }

  /** The key or the settings changed: the next turn uses a fresh client and engine. */
  markStale(): void {
    this.stale = true;
  }

  private async freshLoop(): Promise<void> {
    if (!this.stale || this.loop.running) return;
    this.stale = false;
    const config = await LiveSession.config(this.deps);
    const calibration = this.loop.engine.tokens.toJSON();
    this.decisions = [...this.loop.engine.decisions.all()];
    this.detach();
    // close() closes the journal; the new loop appends to the same file (records are deduplicated by id).
    this.loop.close();
    this.journal = openJournal(this.deps.dir, this.sessionId, {
      onError: (e) => this.deps.log.error('journal write failed', e),
    });
    this.journal.attach(this.handle.session);
    this.loop = this.makeLoop(config, calibration);
    this.detach = this.loop.onAny((e) => this.onEvent(e));
    this.inspector.setEngine(this.loop.engine);
    this.deps.log.info(
      `settings or API key changed: session ${this.sessionId} continues with ${config.model}, strategy ` +
        `${config.strategy}`,
    );
  }

  /** Start a turn with the user's prompt; resolves once it has started. */
  async send(text: string): Promise<void> {
    if (this.loop.running) throw new Error('Trimline is still working on the last prompt: wait, or press Stop.');
    await this.freshLoop();
    if (!this.loop.config.apiKey && !this.loop.config.authToken && !this.loop.config.baseURL)
      throw new Error(NO_KEY_MESSAGE);
    this.start(text);
  }

  /** Continue an unfinished turn (after an error). */
  async retry(): Promise<void> {
    if (this.loop.running) throw new Error('Trimline is already working.');
    await this.freshLoop();
    this.start(undefined);
  }

  private start(prompt: string | undefined): void {
    this.turnCost = 0;
    // Actions the user deferred to the next cold cache go in before the turn's first call.
    for (const m of this.inspector.applyDeferredIfCold(Date.now())) this.deps.log.info(`deferred action applied: ${m}`);
    this.loop.run(prompt).catch((e: unknown) => this.deps.log.error('turn failed', e));
  }

  stop(): void {
    this.deps.approvals.denyAll();
    this.loop.cancel();
  }

  status(busy = this.loop.running): StatusInfo {
    const engine = this.loop.engine;
    const snap = this.lastInput === undefined ? this.inspector.snapshot() : undefined;
    return {
      contextTokens: this.lastInput ?? snap?.totals.sentTokens ?? 0,
      contextWindow: engine.contextWindow,
      cost: this.loop.ledger.session.cost,
      calibrated: this.lastInput !== undefined,
      busy,
    };
  }

  statusEvent(): Extract<ChatEvent, { kind: 'status' }> {
    this.shownTitle = this.title;
    return { kind: 'status', busy: this.loop.running, sessionId: this.sessionId, title: this.shownTitle };
  }

  /** The user changed overlays: the exact size of the last call no longer describes the next one. */
  overlaysChanged(): void {
    this.lastInput = undefined;
    this.inspector.invalidate();
  }

  private onEvent(e: AgentEvent): void {
    const { transcript, log } = this.deps;
    for (const c of chatEventsOf(e)) transcript.push(c);
    switch (e.type) {
      case 'turn-start':
        transcript.push(this.statusEvent());
        log.info(`turn started${e.resumed ? ' (continuing the unfinished turn)' : ''}`);
        break;
      case 'call-start':
        this.inspector.onCallStart(e);
        log.info(
          `call ${e.callIndex}: ${this.loop.config.model}, ${e.requestMessages} messages, ~${e.stats.sentTokens} ` +
            'message tokens ' +
            `(${e.stats.untrimmedTokens} untrimmed, ${e.stats.overlays} overlays, ${e.stats.appliedThisCall} ` +
            `applied now, ${e.stats.pending} deferred), ` +
            `${e.breakpoints.length} cache breakpoints, ${e.stats.repairs} repairs`,
        );
        break;
      case 'usage': {
        const u = e.usage;
        this.lastInput = totalInput(u);
        this.turnCost += e.cost.total;
        this.inspector.onUsage(e.callIndex, u);
        log.info(
          `call ${e.callIndex} usage: input ${u.input_tokens}, cache write ` +
            `${u.cache_creation_input_tokens ?? 0}, cache read ${u.cache_read_input_tokens ?? 0}, output ` +
            `${u.output_tokens}, $${e.cost.total.toFixed(4)}`,
        );
        break;
      }
      case 'retry':
        log.warn(`call ${e.callIndex}: ${e.reason}; retry ${e.attempt}/${e.maxRetries} in ${e.delayMs} ms`);
        break;
      case 'context-recovery':
        log.warn(
          `call ${e.callIndex}: prompt too long (${e.tokens} > ${e.maximum}); emergency trim to ${e.budget}, ` +
            `${e.overlaysAdded} overlays`,
        );
        break;
      case 'decision': {
        const d = e.decision;
        log.info(
          `decision (call ${d.callIndex}) ${d.by} ${d.action} ` +
            `${d.targets.slice(0, 3).join(', ')}${d.targets.length > 3 ? '…' : ''}: ` +
            `${d.reason}${d.tokensSaved ? ` (saves ~${d.tokensSaved} tokens)` : ''}`,
        );
        this.inspector.invalidate();
        break;
      }
      case 'message':
        this.inspector.invalidate();
        // The first prompt names the session: the chat header shows it from now on.
        if (e.message.role === 'user' && this.title !== this.shownTitle) transcript.push(this.statusEvent());
        break;
      case 'tool-result':
        log.info(`tool ${e.name} ${e.result.is_error ? 'failed' : 'done'} in ${e.durationMs} ms`);
        break;
      case 'error':
        log.error(errorLine(e.error));
        transcript.push({
          kind: 'error',
          message: userMessage(e.error.message),
          retryable: e.error.kind !== 'refused',
        });
        break;
      case 'turn-end':
        this.deps.approvals.denyAll();
        if (e.reason !== 'error' && e.reason !== 'idle')
          transcript.push({ kind: 'turn-end', stopReason: e.reason, cost: this.turnCost });
        transcript.push({ ...this.statusEvent(), busy: false });
        log.info(`turn ended: ${e.reason} after ${e.calls} calls, $${this.turnCost.toFixed(4)}`);
        break;
      default:
        break;
    }
    if (e.type !== 'text-delta' && e.type !== 'thinking-delta' && e.type !== 'tool-input-delta')
      this.deps.changed(e.type === 'turn-end' ? false : this.loop.running);
  }

  close(): void {
    this.detach();
    this.loop.close();
  }
}

/** An agent error as the log shows it: kind, status, request id, message. */
function errorLine(error: AgentErrorInfo): string {
  const status = error.status ? ` ${error.status}` : '';
  const request = error.requestId ? ` (request ${error.requestId})` : '';
  return `${error.kind}${status}${request}: ${error.message}`;
}
