/**
 * The agent loop: prompt → (trim, build, stream, record, run tools)* → done.
 *
 * Each model call: the context engine runs the trimming pipeline and builds the
 * exact request (cache breakpoints placed, validated); the SDK streams the
 * response (deltas go out as events); the complete assistant message is appended
 * to the session with its usage, model, API id and time; the usage feeds token
 * calibration and the cost ledger; the tool calls run and all their results go
 * back in one user message. It repeats until the model stops asking for tools.
 *
 * Invariants, whatever happens (cancel, crash, API failure):
 * - the session only ever holds complete messages, or partial text marked
 *   `meta.interrupted` (which the request builder never sends back as complete);
 * - every tool_use the session holds gets exactly one tool_result (cancelled or
 *   interrupted calls get an is_error result);
 * - with a journal attached, every appended message and overlay is durable
 *   before the loop moves on.
 */
import Anthropic from '@anthropic-ai/sdk';
import { ContextEngine } from '../engine/context-engine';
import { RequestRefusedError } from '../request/build';
import type { Session } from '../session/session';
import type { ContentBlockParam, LogMessage } from '../session/types';
import type { Journal } from '../store/journal';
import type { CompressionEntry } from '../store/load';
import { TokenEstimator } from '../tokens';
import { attachSummarizer, compressionStrategies, prepareCompression } from '../trimming/compression/api';
import { SdkSummarizer } from '../trimming/compression/summarizer';
import type { Decision } from '../trimming/types';
import { clientOptions, type AgentConfig } from './config';
import {
  AgentEmitter,
  type AgentErrorInfo,
  type AgentEventOf,
  type AgentEventType,
  type AgentEvent,
  type TurnEndReason,
} from './events';
import { recordInterrupted, recordResponse, recordSummary, type CallBook } from './call-record';
import { UsageLedger } from './ledger';
import { callModel, type PreparedRequest } from './model-call';
import { applyEmergencyTrim } from './recovery';
import { toolUses } from './stream-call';
import { offeredTools, refreshTools } from './offered-tools';
import { DEFAULT_SYSTEM_PROMPT } from './system-prompt';
import {
  closingResults,
  INTERRUPTED_TOOL_TEXT,
  MAX_TOKENS_TOOL_TEXT,
  runToolBatch,
  unansweredToolUses,
} from './tool-batch';
import { type ApprovalRequest, type ExternalTools, type ToolContext } from './tools';
import type { Workspace } from './workspace';

export interface AgentLoopOptions {
  readonly session: Session;
  readonly workspace: Workspace;
  readonly config: AgentConfig;
  /** Attached to `session` already (openAgentSession does it); the loop adds calls, usage, decisions, calibration. */
  readonly journal?: Journal;
  /** Tools beyond the built-in ones (MCP servers), offered after them. */
  readonly externalTools?: ExternalTools;
  /** Asked before every run_command; default: deny. */
  readonly approve?: (request: ApprovalRequest) => Promise<boolean>;
  /** Default: a client made from the config (maxRetries 0: the loop retries). */
  readonly client?: Anthropic;
  /** Saved token calibration (a resumed session's last state). */
  readonly calibration?: unknown;
  /** Decisions journaled before a resume, so the inspector can still say why. */
  readonly decisions?: readonly Decision[];
  /** History-compression calls journaled before a resume (their cost counts toward the session's). */
  readonly compressions?: readonly CompressionEntry[];
  /** Jitter source (tests pass a fixed one). */
  readonly random?: () => number;
  /** Clock (ms) for the prompt cache's expiry, when deferred tool switches apply (default Date.now). */
  readonly clock?: () => number;
  /** Where errors thrown by event listeners go (default: ignored; the loop must not die of a UI bug). */
  readonly onListenerError?: (e: unknown) => void;
}

export interface TurnResult {
  readonly reason: TurnEndReason;
  /** Model calls that got a response (retries not counted). */
  readonly calls: number;
  readonly error?: AgentErrorInfo;
}

const DENY = async (): Promise<boolean> => false;

/** Stop reasons after which the model is done with this turn (no tools asked for). */
function endReason(stop: Anthropic.StopReason | null): TurnEndReason {
  if (stop === 'max_tokens') return 'max_tokens';
  if (stop === 'end_turn' || stop === 'tool_use' || stop === 'pause_turn' || stop === null) return 'end_turn';
  return 'stop';
}

export class AgentLoop {
  readonly session: Session;
  readonly engine: ContextEngine;
  readonly ledger: UsageLedger;
  readonly config: AgentConfig;
  private readonly workspace: Workspace;
  private readonly external?: ExternalTools;
  private readonly journal?: Journal;
  private readonly client: Anthropic;
  private readonly approve: (request: ApprovalRequest) => Promise<boolean>;
  private readonly emitter: AgentEmitter;
  private readonly random: () => number;
  private readonly clock: () => number;
  private readonly detach: (() => void)[] = [];
  private controller?: AbortController;
  /** Where each call's outcome is kept (call-record.ts). */
  private readonly book: CallBook;

  constructor(opts: AgentLoopOptions) {
    const { session, config } = opts;
    this.session = session;
    this.config = config;
    this.workspace = opts.workspace;
    this.external = opts.externalTools;
    this.journal = opts.journal;
    this.approve = opts.approve ?? DENY;
    this.random = opts.random ?? Math.random;
    this.clock = opts.clock ?? Date.now;
    this.emitter = new AgentEmitter(opts.onListenerError);
    this.client = opts.client ?? new Anthropic(clientOptions(config));
    // The tools this loop executes are the tools the model is offered.
    session.tools = offeredTools(this.external, true);
    session.system ??= config.system ?? DEFAULT_SYSTEM_PROMPT;
    session.model ??= config.model;
    const estimator = opts.calibration !== undefined ? TokenEstimator.fromJSON(opts.calibration) : undefined;
    this.engine = new ContextEngine(session, {
      model: config.model,
      maxTokens: config.maxTokens,
      strategy: config.strategy,
      config: config.pipeline,
      ttl: config.ttl,
      estimator,
    });
    for (const d of opts.decisions ?? []) this.engine.decisions.add({ ...d });
    this.ledger = new UsageLedger(config.ttl, config.prices);
    this.book = { session, engine: this.engine, journal: this.journal, ledger: this.ledger, emitter: this.emitter };
    for (const c of session.calls) if (c.usage) this.ledger.addPrevious(c.usage, c.model ?? config.model);
    for (const c of opts.compressions ?? []) this.ledger.addPrevious(c.usage, c.model);
    if (compressionStrategies(this.engine.pipeline).length) {
      // LLM history compression: its summaries go through the same client (optionally a cheaper model) and are billed.
      const summarizer = new SdkSummarizer(this.client, {
        model: config.summaryModel,
        onUsage: (u, model) => recordSummary(this.book, u, model),
      });
      attachSummarizer(this.engine.pipeline, summarizer, { model: config.model, decisions: this.engine.decisions });
    }
    this.detach.push(
      this.engine.decisions.on((decision) => {
        this.journal?.recordDecision(decision);
        this.emitter.emit('decision', { decision });
      }),
    );
  }

  /** Listen to one event type; returns an unsubscribe function. */
  on<K extends AgentEventType>(type: K, listener: (e: AgentEventOf<K>) => void): () => void {
    return this.emitter.on(type, listener);
  }

  /** Listen to every event; returns an unsubscribe function. */
  onAny(listener: (e: AgentEvent) => void): () => void {
    return this.emitter.onAny(listener);
  }

  get running(): boolean {
    return this.controller !== undefined;
  }

  /** Stop the running turn (streaming, retry wait or tools). The session stays valid. */
  cancel(): void {
    this.controller?.abort();
  }

  /** Stop listening to the engine and close the journal. */
  close(): void {
    this.cancel();
    for (const d of this.detach.splice(0)) d();
    this.journal?.close();
  }

  /**
   * Run one turn: append `prompt` (if given) and call the model until it stops.
   * Without a prompt, an unfinished turn (a resumed session whose last message
   * awaits the model, or tool calls that never got results) is continued.
   * Resolves when the turn ends; never rejects for API problems (see `error`).
   */
  async run(prompt?: string): Promise<TurnResult> {
    if (this.controller) throw new Error('a turn is already running in this session');
    const controller = new AbortController();
    this.controller = controller;
    const state = { calls: 0 };
    try {
      return await this.turn(prompt, controller.signal, state);
    } catch (e) {
      // A bug or an environment failure (e.g. the journal cannot be written): say so, keep the session as it is.
      const error: AgentErrorInfo = { kind: 'internal', message: e instanceof Error ? e.message : String(e) };
      this.emitter.emit('error', { error });
      return this.end('error', state.calls, error);
    } finally {
      this.controller = undefined;
    }
  }

  private end(reason: TurnEndReason, calls: number, error?: AgentErrorInfo): TurnResult {
    const result: TurnResult = { reason, calls, ...(error ? { error } : {}) };
    this.emitter.emit('turn-end', result);
    return result;
  }

  /** The last message is the user's (a prompt or tool results): the model owes an answer. */
  private awaitingModel(): boolean {
    return this.session.messages.at(-1)?.role === 'user';
  }

  private async turn(prompt: string | undefined, signal: AbortSignal, state: { calls: number }): Promise<TurnResult> {
    const hasPrompt = prompt !== undefined && prompt.trim() !== '';
    const pending = unansweredToolUses(this.session);
    if (!hasPrompt && !pending.length && !this.awaitingModel()) return this.end('idle', 0);
    this.emitter.emit('turn-start', { prompt: hasPrompt ? prompt : undefined, resumed: !hasPrompt });
    // Calls left unanswered by a crash are answered first; a new prompt goes after their results, in the same message.
    const opening = [
      ...closingResults(pending, INTERRUPTED_TOOL_TEXT),
      ...(hasPrompt ? [{ type: 'text' as const, text: prompt }] : []),
    ];
    if (opening.length) this.appendUser(opening);
    for (;;) {
      if (state.calls >= this.config.maxCallsPerTurn) return this.end('call-limit', state.calls);
      if (!(await this.compress(signal))) return this.end('cancelled', state.calls);
      const first = this.prepare();
      if ('kind' in first) {
        this.emitter.emit('error', { error: first });
        return this.end('error', state.calls, first);
      }
      const outcome = await callModel(
        {
          client: this.client,
          config: this.config,
          emitter: this.emitter,
          random: this.random,
          recover: (r, t, m) => this.recover(r, t, m),
        },
        first,
        signal,
      );
      if (outcome.kind === 'failed') {
        this.emitter.emit('error', { error: outcome.error });
        return this.end('error', state.calls, outcome.error);
      }
      if (outcome.kind === 'cancelled') {
        recordInterrupted(this.book, outcome.partial, outcome.request);
        return this.end('cancelled', state.calls);
      }
      state.calls++;
      const content = recordResponse(this.book, outcome.message, outcome.request);
      const uses = toolUses(content);
      if (!uses.length) return this.end(endReason(outcome.message.stop_reason), state.calls);
      if (outcome.message.stop_reason === 'max_tokens') {
        this.appendUser(closingResults(uses, MAX_TOKENS_TOOL_TEXT));
        return this.end('max_tokens', state.calls);
      }
      const results = await runToolBatch(uses, this.toolContext(outcome.request.callIndex, signal), {
        start: (use) =>
          this.emitter.emit('tool-start', {
            callIndex: outcome.request.callIndex,
            toolUseId: use.id,
            name: use.name,
            input: use.input,
          }),
        done: (use, result, durationMs) =>
          this.emitter.emit('tool-result', {
            callIndex: outcome.request.callIndex,
            toolUseId: use.id,
            name: use.name,
            result,
            durationMs,
          }),
      });
      this.appendUser(results);
      if (signal.aborted) return this.end('cancelled', state.calls);
    }
  }

  private appendUser(content: ContentBlockParam[]): LogMessage {
    const message = this.session.append('user', content, { timestamp: new Date().toISOString() });
    this.emitter.emit('message', { message });
    return message;
  }

  /**
   * Let LLM compression strategies (if configured) summarize before the request is built.
   * Their failures are decisions, not errors; returns false when the turn was cancelled meanwhile.
   */
  private async compress(signal: AbortSignal): Promise<boolean> {
    if (!compressionStrategies(this.engine.pipeline).length) return true;
    try {
      await prepareCompression(this.session, this.engine, { callIndex: this.session.calls.length, signal });
    } catch (e) {
      if (signal.aborted) return false;
      throw e;
    }
    return !signal.aborted;
  }

  /** The request for the next call, or why it cannot be built (the builder refuses invalid requests). */
  private prepare(): PreparedRequest | AgentErrorInfo {
    if (this.external) refreshTools(this.session, this.external, this.config.ttl, this.clock());
    const upTo = this.session.messages.length;
    const epochStart = this.engine.builder.epochStart(this.session, upTo);
    const callIndex = this.session.calls.length;
    try {
      const prepared = this.engine.prepare({ callIndex, upTo, epochStart, now: Date.now() });
      return { prepared, callIndex, upTo, epochStart };
    } catch (e) {
      if (e instanceof RequestRefusedError)
        return { kind: 'refused', message: `${e.message} (nothing was sent; please report this as a bug)` };
      throw e;
    }
  }

  /** After 400 "prompt is too long": emergency trim, then the request again. */
  private recover(request: PreparedRequest, tokens: number, maximum: number): PreparedRequest | AgentErrorInfo {
    const { callIndex, upTo, epochStart } = request;
    const { budget, overlaysAdded } = applyEmergencyTrim({
      session: this.session,
      engine: this.engine,
      strategy: this.config.strategy,
      pipeline: this.config.pipeline,
      callIndex,
      epochStart,
      upTo,
      maximum,
    });
    this.emitter.emit('context-recovery', { callIndex, tokens, maximum, budget, overlaysAdded });
    return this.prepare();
  }

  private toolContext(callIndex: number, signal: AbortSignal): ToolContext {
    return {
      workspace: this.workspace,
      session: this.session,
      callIndex,
      approve: this.approve,
      signal,
      tokens: (text) => this.engine.tokens.text(text).tokens,
      external: this.external,
    };
  }
}
