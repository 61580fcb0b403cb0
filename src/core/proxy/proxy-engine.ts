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
import type { DeferPolicy } from '../tokens';
import type { PipelineConfig } from '../trimming';
import { ProxyFaults } from './faults';
import { Lanes } from './lanes';
import { inThreadOffload, nextTurn, type Offload } from './offload';
import { ProxySessions, type KnownPrefix, type ProxiedSession } from './registry';
import * as step from './request-steps';
import { SessionStates, type SessionState } from './session-states';
import { sessionKeyOf, type Headers } from './session-key';
import type { ResponseFacts } from './sse-usage';
import { ProxyVerdicts } from './verdicts';

type Forward = step.Forward;
export type { Forward } from './request-steps';
export type { SessionState } from './session-states';

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
/**
 * New bytes from which a request is handled in steps (`handle`): parsed, digested and serialized
 * off the event loop, its session work in turns of its own. Below it all of it takes a few ms.
 */
export const BIG_BODY_BYTES = 512 * 1024;

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
  /** Where a big request's parsing, digests and serialization run (default: this thread, a turn each). */
  readonly offload?: Offload;
  /** A request with at least this many new bytes is handled in steps (default BIG_BODY_BYTES). */
  readonly bigBodyBytes?: number;
}

export class ProxyEngine {
  readonly sessions: ProxySessions;
  /** Cache verdicts: each call compared with the one its client sent before (verdicts.ts). */
  readonly verdicts = new ProxyVerdicts();
  /** Failures of the engine's own work, for stderr and the inspector's findings (faults.ts). */
  readonly faults: ProxyFaults;
  private readonly states: SessionStates;
  private readonly steps: step.StepsContext;
  private readonly offload: Offload;
  private readonly lanes = new Lanes();

  constructor(private readonly o: ProxyEngineOptions) {
    const warn = (line: string): void => (o.warn ?? o.log)?.(line);
    this.faults = new ProxyFaults(warn, (id) => this.showFault(id));
    const defer = o.defer === false ? undefined : (o.defer ?? PROXY_DEFER);
    this.states = new SessionStates({ ...o, defer, faults: this.faults, verdicts: this.verdicts, warn });
    this.sessions = new ProxySessions({
      restore: (id) => this.states.restore(id),
      onEvict: (entry) => this.states.forget(entry.id),
      // The new messages and the call record reach the session's journal with one fsync, not one per record.
      beforeAppend: (entry) => {
        const c = this.steps.matching.call;
        if (c) c.release ??= this.states.get(entry.id)?.journal?.hold();
      },
    });
    const { sessions, states, verdicts } = this;
    this.steps = { sessions, states, verdicts, strategy: o.strategy, log: o.log, matching: {} };
    this.offload = o.offload ?? inThreadOffload();
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

  /** Decide what goes upstream for a client's `POST /v1/messages` body, in one go. Never throws. */
  onRequest(raw: Buffer, headers: Headers, now = Date.now()): Forward {
    const body = this.parse(raw, headers);
    return isForward(body) ? body : this.run(raw, body, headers, now);
  }

  /**
   * Decide what goes upstream without holding the event loop long (the server's entry): a body
   * with at least `bigBodyBytes` new bytes is parsed, digested and serialized off the event loop
   * (offload.ts) and its session work runs in turns of its own, so other sessions' calls are
   * answered meanwhile; a call of the same session waits for it (lanes.ts). Other bodies go as
   * `onRequest`, to the same bytes. Never rejects.
   */
  async handle(raw: Buffer, headers: Headers, now = Date.now()): Promise<Forward> {
    try {
      // Other sessions often start with the same bytes (a client's first messages): the header's key picks its own.
      const known = this.sessions.known(raw, sessionKeyOf(headers, {}));
      const fresh = raw.length - (known ? known.skip.tail - known.skip.open : 0);
      if (fresh >= (this.o.bigBodyBytes ?? BIG_BODY_BYTES)) return await this.big(raw, headers, now, known);
      const body = this.parse(raw, headers);
      if (isForward(body)) return body;
      const key = sessionKeyOf(headers, body);
      if (!this.lanes.busy(key)) return this.run(raw, body, headers, now);
      return await this.lanes.run(key, () => Promise.resolve(this.run(raw, body, headers, now)));
    } catch (e) {
      return step.untouched(raw, `the engine failed on this request: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** The body as parsed (only what is new when it continues a recent session's bytes), or the client's bytes. */
  private parse(raw: Buffer, headers: Headers): RequestBody | Forward {
    let body: unknown = step.parseKnown(this.sessions, raw, headers);
    try {
      body ??= JSON.parse(raw.toString('utf8'));
    } catch {
      body = undefined;
    }
    return step.checkBody(raw, body);
  }

  /** Every step of a call in one go. */
  private run(raw: Buffer, body: RequestBody, headers: Headers, now: number): Forward {
    const c: step.Call = { raw, body };
    try {
      const observed = step.begin(this.steps, c, headers, now);
      if (observed) return observed;
      const p = step.plan(this.steps, c, now);
      if (isForward(p)) return p;
      return step.sent(this.steps, c, p.up, Buffer.from(JSON.stringify(p.up), 'utf8'));
    } catch (e) {
      return step.failed(this.steps, c, e);
    } finally {
      step.end(this.steps, c);
    }
  }

  /** A big body: parsed off the event loop, then its steps in its session's lane. */
  private async big(raw: Buffer, headers: Headers, now: number, known?: KnownPrefix): Promise<Forward> {
    const prefix = known?.entry.rawPrefix;
    const spans = known ? { first: known.count, from: prefix?.end } : { first: 0 };
    const parsed = await this.offload.parse({ raw, skip: known?.skip, spans });
    let body = parsed.body;
    if (known) {
      // The session's last request changed meanwhile (its known messages may not be these bytes'): read all of it.
      if (known.entry.rawPrefix !== prefix) return this.big(raw, headers, now);
      body = step.withKnown(this.sessions, body, headers, known.entry, known.count);
      // Not the known session's after all (another key): read all of it.
      if (body === undefined) return this.big(raw, headers, now);
    }
    const checked = step.checkBody(raw, body);
    if (isForward(checked)) return checked;
    const offset = known?.count ?? 0;
    const digests: (string | undefined)[] = [...Array<undefined>(offset), ...parsed.digests];
    const c: step.Call = { raw, body: checked };
    return this.lanes.run(sessionKeyOf(headers, checked), async () => {
      try {
        const observed = step.begin(this.steps, c, headers, now, { digests, spans: parsed.spans });
        step.rememberRefs(c, parsed.refs, offset);
        step.rememberKeys(c, parsed.keys ?? [], offset);
        await nextTurn();
        // Observe only: the journal's records (the new messages: megabytes) are written in steps of their own.
        if (observed) {
          await step.endInSteps(this.steps, c);
          return observed;
        }
        const p = step.plan(this.steps, c, now);
        if (isForward(p)) {
          await step.endInSteps(this.steps, c);
          return p;
        }
        await nextTurn();
        await step.endInSteps(this.steps, c);
        const undigested = this.verdicts.undigested(p.up.messages);
        const { digests: made, bytes, identities } = await this.offload.send(p.up, undigested);
        this.verdicts.remember(undigested, made);
        step.rememberIdentities(p.up, identities ?? []);
        return step.sent(this.steps, c, p.up, bytes);
      } catch (e) {
        return step.failed(this.steps, c, e);
      } finally {
        step.end(this.steps, c);
      }
    });
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
    this.offload.close();
  }
}

function isForward<T extends object>(x: T | Forward): x is Forward {
  return 'transformed' in x;
}
