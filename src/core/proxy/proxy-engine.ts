/**
 * The engine behind the proxy: every `POST /v1/messages` is one recorded call of a foreign
 * session, arriving one call at a time (as a replay does). The request is matched to its
 * session (registry.ts), its new messages appended, the pipeline + cache planner + validator
 * run on the messages only, and the client's body goes upstream with its messages replaced
 * (upstream.ts). `none` is observe-only: the upstream bytes are the client's bytes, until the
 * user trims or pins something in the inspector (then the engine builds the messages).
 *
 * Fail open: if anything here throws or the result would be refused, the client's original bytes go
 * upstream and the reason is kept for the inspector. Auth never reaches this module.
 */
import type { RequestBody } from '../api/wire';
import { thinkingEnabled, validateRequest } from '../request/validate';
import type { ToolDefinition } from '../session/types';
import type { DeferPolicy } from '../tokens';
import type { PipelineConfig } from '../trimming';
import { classifyClient } from './client-kind';
import { ProxyFaults } from './faults';
import { ProxySessions, type ProxiedSession } from './registry';
import { SessionStates, type SessionState } from './session-states';
import { sessionKeyOf, type Headers } from './session-key';
import type { ResponseFacts } from './sse-usage';
import { clientTtl, headAllowsLongTtl, upstreamBody } from './upstream';
import { ProxyVerdicts } from './verdicts';

/**
 * Token counting on the request path: js-tiktoken encodes ~1.2 MB/s, so a long session
 * met for the first time (5,000 messages ≈ 8 MB) would stall the client for seconds.
 * Texts of at least 512 chars (a file read; ~0.4 ms each to encode) are estimated from
 * their characters, shorter ones are encoded until 2,048 chars per call (≈ 2 ms), and
 * everything estimated is made exact between requests (`refine`).
 */
export const PROXY_DEFER: DeferPolicy = { minChars: 512, budgetChars: 2_048 };
/** Text encoded per refinement step (≈ 3–4 ms at 1.2 MB/s), so relayed streams never wait long between steps. */
export const REFINE_STEP_CHARS = 4_096;

export interface ProxyEngineOptions {
  /** `none` (observe only), `default`, or a strategy spec. */
  readonly strategy: string;
  readonly config?: PipelineConfig;
  /** Journal every session here (one JSONL per session, fsync per record, one writer per file). */
  readonly journalDir?: string;
  /** A session changed (new call, usage, user action): the inspector should refresh. */
  readonly onChange?: (entry: ProxiedSession) => void;
  /** One line per noteworthy event (no request content, no headers). */
  readonly log?: (line: string) => void;
  /** Problems the user must hear of even when not logging (journal write errors); default: `log`. */
  readonly warn?: (line: string) => void;
  /** Token counting on the request path (default PROXY_DEFER); false: exact counts, however long (benchmarks). */
  readonly defer?: DeferPolicy | false;
}

/** What to send upstream for one client request. */
export interface Forward {
  /** The exact bytes to send (the client's own when `transformed` is false). */
  readonly body: Buffer;
  readonly transformed: boolean;
  readonly sessionId?: string;
  readonly callIndex?: number;
  /** Why the client's request went untouched although a strategy is on. */
  readonly failOpen?: string;
}

export type { SessionState } from './session-states';

export class ProxyEngine {
  readonly sessions: ProxySessions;
  /** Cache verdicts: each call compared with the one its client sent before (verdicts.ts). */
  readonly verdicts = new ProxyVerdicts();
  /** Failures of the engine's own work, for stderr and the inspector's findings (faults.ts). */
  readonly faults: ProxyFaults;
  private readonly states: SessionStates;
  /** The journal batch of the request being handled (its new messages and call record: one fsync). */
  private releaseBatch?: () => void;

  constructor(private readonly o: ProxyEngineOptions) {
    const warn = (line: string): void => (o.warn ?? o.log)?.(line);
    this.faults = new ProxyFaults(warn, (id) => this.showFault(id));
    const defer = o.defer === false ? undefined : (o.defer ?? PROXY_DEFER);
    this.states = new SessionStates({ ...o, defer, faults: this.faults, verdicts: this.verdicts, warn });
    this.sessions = new ProxySessions({
      restore: (id) => this.states.restore(id),
      onEvict: (entry) => this.states.forget(entry.id),
      beforeAppend: (entry) => {
        this.releaseBatch ??= this.states.get(entry.id)?.journal?.hold();
      },
    });
  }

  /** Number of sessions with engine state (bounded by the registry's MAX_LIVE_SESSIONS). */
  get liveSessions(): number {
    return this.states.size;
  }

  get strategy(): string {
    return this.o.strategy;
  }

  state(id: string): SessionState | undefined {
    return this.states.get(id);
  }

  /** Whether any proxied session has an overlay (a user's pin or trim under observe-only `none`). */
  hasOverlays(): boolean {
    return this.states.anyOverlays();
  }

  /**
   * Whether a request with these headers may continue a session an earlier run kept (a restart)
   * or that was released (beyond MAX_LIVE_SESSIONS) and is not live now: its journal may hold
   * the user's pins and trims, which must apply to this very request, so observe-only `none`
   * reads it whole and runs the engine first.
   */
  mayRestore(headers: Headers): boolean {
    const key = this.o.journalDir === undefined ? undefined : sessionKeyOf(headers, {});
    if (key === undefined || this.sessions.all().some((e) => e.key === key)) return false;
    return this.states.journaled(key);
  }

  /** Whether any proxied session has actions waiting for a cold cache (requests then go through the engine). */
  hasDeferred(): boolean {
    for (const st of this.states.values()) if (st.inspector.deferred.size > 0) return true;
    return false;
  }

  /** The session the inspector follows: the most recently active. */
  active(): SessionState | undefined {
    const e = this.sessions.latest();
    return e && this.states.get(e.id);
  }

  /** Decide what goes upstream for a client's `POST /v1/messages` body. Never throws. */
  onRequest(raw: Buffer, headers: Headers, now = Date.now()): Forward {
    const untouched = (failOpen?: string, sessionId?: string, callIndex?: number): Forward => ({
      body: raw,
      transformed: false,
      failOpen,
      sessionId,
      callIndex,
    });
    let body = this.parseKnown(raw, headers);
    try {
      body ??= JSON.parse(raw.toString('utf8')) as RequestBody;
    } catch {
      return untouched('the request body is not JSON');
    }
    if (typeof body !== 'object' || body === null || !Array.isArray(body.messages) || typeof body.model !== 'string')
      return untouched('not a Messages API request');
    let st: SessionState | undefined;
    let callIndex: number | undefined;
    // The new messages and the call record reach the session's journal with one fsync, not one per
    // record: the registry opens the batch on the matched session before it appends (beforeAppend).
    this.releaseBatch = undefined;
    try {
      // Tools go upstream as sent; the session keeps them for token counts (server tools count as their JSON).
      const tools = body.tools as ToolDefinition[] | undefined;
      const m = this.sessions.match({
        key: sessionKeyOf(headers, body),
        messages: body.messages,
        system: body.system,
        tools,
        model: body.model,
        now,
        raw,
      });
      st = this.states.of(m.entry);
      m.entry.client ??= classifyClient(headers, body);
      if (!st.journal) this.states.reopenJournal(st);
      this.releaseBatch ??= st.journal?.hold();
      const s = m.entry.session;
      const call = s.recordCall({
        at: s.messages.length,
        epochStart: 0,
        model: body.model,
        timestamp: new Date(now).toISOString(),
      });
      st.journal?.recordCall(call);
      callIndex = call.index;
      const verdict = this.verdicts.onRequest({
        sessionId: m.entry.id,
        key: m.entry.key,
        sessionCall: callIndex,
        body,
        digests: m.entry.digests,
        now,
        clientAsked: 'diagnostics' in body,
      });
      // One numbering everywhere: the inspector shows the call as the journal and the verdicts number it.
      st.callNumbers.set(callIndex, verdict.call);
      const earlier = verdict.previousSession === undefined ? undefined : this.states.get(verdict.previousSession);
      if (earlier) st.inspector.continues(earlier.inspector);
      // What the inspector shows for this call is this call's request, never an earlier one's.
      st.prepared = undefined;
      // The engine follows the client: its breakpoints' TTL and its model.
      st.engine.ttl = clientTtl(body);
      st.engine.longTtlAllowed = headAllowsLongTtl(body);
      st.engine.model = body.model;
      for (const done of st.inspector.applyDeferredIfCold(now))
        this.o.log?.(`session ${m.entry.id}: deferred action applied on a cold cache: ${done}`);
      // Observe only: the client's bytes, unless the user pinned, trimmed or restored something here.
      if (this.o.strategy === 'none' && s.overlayCount === 0) return untouched(undefined, m.entry.id, callIndex);
      const coldFrom = verdict.headChanged
        ? { position: 0, why: 'the client changed its system prompt or tools: its cached prefix is gone' }
        : undefined;
      const prepared = st.engine.prepare({ callIndex, upTo: s.messages.length, epochStart: 0, now, coldFrom });
      st.prepared = prepared;
      // The builder had to repair something: if the client's own request breaks a rule, the
      // client gets the API's answer to what it sent, not a request we made valid for it.
      if (prepared.repairs.length > 0) {
        const own = validateRequest(body, { model: body.model, thinking: thinkingEnabled(body) });
        if (own.length > 0)
          return this.failOpen(
            st,
            `the client's request breaks an API rule as sent: ${own[0].message}`,
            raw,
            callIndex,
          );
      }
      const up = upstreamBody(body, prepared.body.messages);
      if ('error' in up) return this.failOpen(st, up.error, raw, callIndex);
      st.lastFailOpen = undefined;
      this.verdicts.sentAs(m.entry.id, callIndex, up.body, body.messages);
      return {
        body: Buffer.from(JSON.stringify(up.body), 'utf8'),
        transformed: true,
        sessionId: m.entry.id,
        callIndex,
      };
    } catch (e) {
      const why = `the engine failed on this request: ${e instanceof Error ? e.message : String(e)}`;
      return st ? this.failOpen(st, why, raw, callIndex) : untouched(why);
    } finally {
      const release = this.releaseBatch;
      this.releaseBatch = undefined;
      release?.();
      if (st) this.states.checkJournal(st);
    }
  }

  /**
   * The body of a request that continues a recent session's last request byte for byte,
   * parsed without its known messages (they are the session's own), or undefined (then the
   * caller parses everything). The session key must be the one that session has.
   */
  private parseKnown(raw: Buffer, headers: Headers): RequestBody | undefined {
    const peek = this.sessions.peek(raw);
    if (!peek) return undefined;
    try {
      const body = JSON.parse(peek.json) as RequestBody;
      if (
        typeof body !== 'object' ||
        body === null ||
        !Array.isArray(body.messages) ||
        sessionKeyOf(headers, body) !== peek.entry.key
      )
        return undefined;
      body.messages = [...this.sessions.knownMessages(peek.entry, peek.count), ...body.messages];
      return body;
    } catch {
      return undefined;
    }
  }

  /** After the request went upstream: the inspector's view of the call (off the latency path). */
  afterForward(f: Forward): void {
    const st = f.sessionId === undefined ? undefined : this.states.get(f.sessionId);
    const callIndex = f.callIndex;
    if (!st || callIndex === undefined) return;
    this.faults.guard('showing the call in the inspector', st.entry.id, () => {
      const p = st.prepared;
      if (p) {
        const { stats, breakpoints } = p;
        const requestMessages = p.body.messages.length;
        st.inspector.onCallStart({ type: 'call-start', callIndex, stats, breakpoints, requestMessages });
      } else st.inspector.onObservedCall(callIndex);
      this.o.onChange?.(st.entry);
    });
  }

  /** The inspector shows a failure of the proxy's own work (faults.ts): its views are built again. */
  private showFault(sessionId: string | undefined): void {
    const shown = sessionId === undefined ? [...this.states.values()] : [this.states.get(sessionId)];
    for (const st of shown) st?.inspector.invalidate();
    const st = sessionId === undefined ? this.active() : this.states.get(sessionId);
    if (st) this.o.onChange?.(st.entry);
  }

  /** The response's facts (from the relayed stream): usage calibrates the tokens and prices the call. */
  onResponse(sessionId: string, callIndex: number, facts: ResponseFacts): void {
    this.faults.guard('recording the response', sessionId, () => this.recordResponse(sessionId, callIndex, facts));
  }

  private recordResponse(sessionId: string, callIndex: number, facts: ResponseFacts): void {
    const st = this.states.get(sessionId);
    if (!st || !facts.usage) return;
    const s = st.entry.session;
    const call = s.completeCall(callIndex, { usage: facts.usage, apiMessageId: facts.id });
    st.journal?.recordUsage(callIndex, facts.usage);
    this.states.checkJournal(st);
    const judged = this.verdicts.onResponse(sessionId, callIndex, facts);
    if (judged) {
      st.journal?.recordVerdict(judged.lineage, judged.verdict, { print: judged.print, responseId: facts.id });
      st.inspector.setVerdict(judged.verdict);
    }
    if (this.o.strategy === 'none' || !st.entry.session.overlayCount)
      st.engine.observeUsage(facts.usage, call?.at ?? s.messages.length, 0, true);
    st.inspector.onUsage(callIndex, facts.usage);
    this.o.onChange?.(st.entry);
  }

  /** The call's response was an error (or never came whole): it left nothing in the cache to judge. */
  onFailed(sessionId: string, callIndex: number): void {
    this.faults.guard('recording the failed call', sessionId, () => this.verdicts.onFailed(sessionId, callIndex));
  }

  /**
   * One step of making estimated token counts exact (off the request path: the host calls
   * it while idle, one step per event-loop turn). The most recently active session first.
   * Returns true while any session still has estimates left. Never throws: a text whose count
   * fails keeps its estimate (RawCounter.refine), the failure is reported, the next step goes on.
   */
  refineStep(maxChars = REFINE_STEP_CHARS): boolean {
    let st: SessionState | undefined;
    try {
      const busy = [...this.states.values()].filter((s) => s.engine.tokens.pending() > 0);
      if (busy.length === 0) return false;
      st = busy.reduce((a, b) => (b.entry.lastSeen > a.entry.lastSeen ? b : a));
      return st.engine.tokens.refine(maxChars) > 0 || busy.length > 1;
    } catch (e) {
      this.faults.report('counting tokens', e, st?.entry.id);
      return st !== undefined;
    }
  }

  close(): void {
    this.states.close();
  }

  private failOpen(st: SessionState, why: string, raw: Buffer, callIndex: number | undefined): Forward {
    st.lastFailOpen = why;
    this.o.log?.(`session ${st.entry.id}: sent untouched: ${why}`);
    return { body: raw, transformed: false, failOpen: why, sessionId: st.entry.id, callIndex };
  }
}
