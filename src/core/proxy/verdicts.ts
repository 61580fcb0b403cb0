/**
 * Cache verdicts of proxied calls: each request is compared with the one its client sent
 * before it (cache/verdict.ts), across the session's epochs. A client that edits an earlier
 * message gets a new epoch in the registry (a new log, a new journal), but the cache it
 * misses is the one its previous request wrote, so verdicts follow a lineage: the client's
 * session key, or for a keyless client the earlier keyless session that started with the
 * same first message. Calls are numbered per lineage, from 0, in the order sent.
 *
 * The lineage also keeps the previous response's id: the API's cache diagnostics need it
 * (`diagnostics.previous_message_id`).
 */
import type { CallVerdict, VerdictUsage } from '../../protocol/verdicts';
import { fingerprintRequest, type FingerprintBody, type RequestFingerprint } from '../cache/fingerprint';
import { cacheVerdict, type ApiMissReason } from '../cache/verdict';
import type { PriceOverrides } from '../models';
import type { CallUsage, MessageParam } from '../session/types';

interface Sent {
  print: RequestFingerprint;
  usage?: CallUsage;
  responseId?: string;
}

interface Lineage {
  readonly id: string;
  /** Calls sent so far. */
  count: number;
  last?: Sent;
  /** Digest of the first message of its latest request (keyless lineages are matched by it). */
  first?: string;
  /** The proxied session (epoch) that sent its latest request. */
  lastSession?: string;
}

interface Pending {
  readonly lineage: Lineage;
  readonly call: number;
  readonly sessionCall: number;
  readonly current: Sent;
  readonly previous?: Sent;
  readonly previousSession?: string;
  readonly clientAsked: boolean;
}

/** Lineages kept; the least recently used beyond this are forgotten (their next call is a first call). */
const MAX_LINEAGES = 256;
/** Calls in flight kept per proxy (a response that never comes must not leak). */
const MAX_PENDING = 512;

export interface VerdictRequest {
  readonly sessionId: string;
  readonly key: string | undefined;
  readonly sessionCall: number;
  readonly body: FingerprintBody;
  /** Digests of the client's messages (the registry's). */
  readonly digests: readonly string[];
  readonly now: number;
  /** The client asked for cache diagnostics itself (its body has `diagnostics`). */
  readonly clientAsked?: boolean;
}

/** A lineage's last request as an earlier run journaled it (store/load.ts SentEntry). */
export interface RestoredSent {
  readonly lineage: string;
  /** Its number in the lineage. */
  readonly call: number;
  readonly print: RequestFingerprint;
  readonly responseId?: string;
  readonly usage?: VerdictUsage;
}

export interface VerdictCall {
  readonly lineage: string;
  readonly call: number;
  /** The previous response's id in this lineage (null on the first call, or when it is not known). */
  readonly previousMessageId: string | null;
  /** The client changed its tools or system prompt since its previous call: its cached prefix is gone. */
  readonly headChanged: boolean;
  /** The proxied session that sent the lineage's previous call, when it is another one (an earlier epoch). */
  readonly previousSession?: string;
}

export class ProxyVerdicts {
  private readonly lineages = new Map<string, Lineage>();
  private readonly bySession = new Map<string, Lineage>();
  private readonly pending = new Map<string, Pending>();
  private readonly memo = new WeakMap<object, string>();
  /** Calls already journaled per lineage by an earlier run (seed). */
  private readonly seeded = new Map<string, number>();

  constructor(private readonly overrides?: PriceOverrides) {}

  /** A request is about to go upstream: fingerprint it and number it in its lineage. */
  onRequest(r: VerdictRequest): VerdictCall {
    const current: Sent = { print: fingerprintRequest(r.body, r.now, { clientDigests: r.digests, memo: this.memo }) };
    const lineage = this.lineageOf(r, current.print);
    const previous = lineage.last;
    const previousSession = lineage.lastSession;
    const call = lineage.count++;
    lineage.last = current;
    lineage.first = r.digests[0];
    lineage.lastSession = r.sessionId;
    this.lineages.delete(lineage.id);
    this.lineages.set(lineage.id, lineage);
    const clientAsked = r.clientAsked ?? false;
    const pending = { lineage, call, sessionCall: r.sessionCall, current, previous, previousSession, clientAsked };
    this.pending.set(pendingKey(r.sessionId, r.sessionCall), pending);
    this.trim();
    const headChanged = previous !== undefined && !sameHead(previous.print, current.print);
    const other = previousSession !== undefined && previousSession !== r.sessionId ? { previousSession } : {};
    return { lineage: lineage.id, call, previousMessageId: previous?.responseId ?? null, headChanged, ...other };
  }

  /**
   * What cache diagnostics should name as `previous_message_id` for a call in flight: the
   * previous response's id in its lineage, null on its first call; undefined when the call
   * is unknown or the client asked for diagnostics itself (its request goes as sent).
   */
  previousMessageId(sessionId: string, sessionCall: number): string | null | undefined {
    const p = this.pending.get(pendingKey(sessionId, sessionCall));
    if (!p || p.clientAsked) return undefined;
    return p.previous?.responseId ?? null;
  }

  /** Trimline rewrote the messages of a call before sending it: its fingerprint is of what was sent. */
  sentAs(sessionId: string, sessionCall: number, body: FingerprintBody, clientMessages: readonly MessageParam[]): void {
    const p = this.pending.get(pendingKey(sessionId, sessionCall));
    if (!p) return;
    p.current.print = fingerprintRequest(body, p.current.print.at, {
      clientMessages,
      clientDigests: p.current.print.clientMessages,
      memo: this.memo,
    });
  }

  /** Messages whose digests {@link sentAs} would make, for those it has not made yet (a worker thread can). */
  undigested(messages: readonly MessageParam[]): MessageParam[] {
    return messages.filter((m) => !this.memo.has(m));
  }

  /** Digests made elsewhere (a worker thread, from the same messages): {@link sentAs} uses them. */
  remember(messages: readonly MessageParam[], digests: readonly string[]): void {
    messages.forEach((m, i) => this.memo.set(m, digests[i]));
  }

  /** The response arrived: the verdict, from its usage and (when asked) the API's own answer. */
  onResponse(
    sessionId: string,
    sessionCall: number,
    facts: { readonly id?: string; readonly usage?: CallUsage; readonly cacheMissReason?: ApiMissReason | null },
  ): { lineage: string; verdict: CallVerdict; print: RequestFingerprint } | undefined {
    const key = pendingKey(sessionId, sessionCall);
    const p = this.pending.get(key);
    if (!p) return undefined;
    this.pending.delete(key);
    p.current.usage = facts.usage;
    p.current.responseId = facts.id;
    const verdict = cacheVerdict({
      call: p.call,
      sessionCall: p.sessionCall,
      current: p.current.print,
      previous: p.previous && { print: p.previous.print, usage: p.previous.usage },
      usage: facts.usage,
      api: facts.cacheMissReason,
      overrides: this.overrides,
    });
    return { lineage: p.lineage.id, verdict, print: p.current.print };
  }

  /**
   * The lineage of a request's session. A session seen before keeps its own. A new one (a
   * new epoch of a client session, or a keyless conversation) continues the most recent
   * lineage of the same client (same key; keyless: same first message) whose last request
   * had the same system prompt and tools: a client that rewrote its history. Anything else
   * (a side call, a subagent under the same key: another system prompt or tool set) starts
   * its own, so its requests are never compared with the main conversation's.
   */
  /**
   * The call got no answer the cache could come from (an error status, a cut stream): the
   * next call is compared with the request before it, and a retry takes its number back.
   */
  onFailed(sessionId: string, sessionCall: number): void {
    const key = pendingKey(sessionId, sessionCall);
    const p = this.pending.get(key);
    if (!p) return;
    this.pending.delete(key);
    const l = p.lineage;
    if (l.last === p.current) {
      l.last = p.previous;
      l.lastSession = p.previousSession;
    }
    if (l.count === p.call + 1) l.count = p.call;
  }

  private lineageOf(r: VerdictRequest, print: RequestFingerprint): Lineage {
    const known = this.bySession.get(r.sessionId);
    if (known) return known;
    const prefix = r.key !== undefined ? `key:${r.key}` : 'anon:';
    let lineage: Lineage | undefined;
    for (const l of this.lineages.values()) {
      if (
        !(r.key !== undefined
          ? l.id === prefix || l.id.startsWith(`${prefix}#`)
          : l.id.startsWith(prefix) && l.first === r.digests[0])
      )
        continue;
      if (l.last && sameHead(l.last.print, print)) lineage = l;
    }
    lineage ??= this.make(
      r.key !== undefined ? (this.lineages.has(prefix) ? `${prefix}#${r.sessionId}` : prefix) : `anon:${r.sessionId}`,
    );
    this.bySession.set(r.sessionId, lineage);
    return lineage;
  }

  /**
   * A lineage journaled by an earlier run of the proxy: its calls go on from `calls` (the
   * journal's numbering stays unique). Its next call has no previous request to compare with
   * unless `restore` gives it one.
   */
  seed(lineage: string, calls: number): void {
    this.seeded.set(lineage, Math.max(calls, this.seeded.get(lineage) ?? 0));
    const l = this.lineages.get(lineage);
    if (l) l.count = Math.max(l.count, calls);
  }

  /**
   * The last request a session's journal holds (an earlier run sent it): its lineage's next call
   * is compared with it, and the session keeps that lineage. A lineage this run has already
   * sent a later (or the same) call of keeps its own.
   */
  restore(sessionId: string, sent: RestoredSent): void {
    const calls = sent.call + 1;
    const known = this.lineages.get(sent.lineage);
    const newer = !known || (known.last ? known.count < calls : known.count <= calls);
    this.seed(sent.lineage, calls);
    const l = known ?? this.make(sent.lineage);
    if (newer) {
      const u = sent.usage;
      l.last = {
        print: sent.print,
        responseId: sent.responseId,
        usage: u && {
          input_tokens: u.uncached,
          output_tokens: 0,
          cache_read_input_tokens: u.read,
          cache_creation_input_tokens: u.written,
        },
      };
      l.first = sent.print.clientMessages[0];
    }
    if (!this.bySession.has(sessionId)) this.bySession.set(sessionId, l);
    this.trim();
  }

  private make(id: string): Lineage {
    const l: Lineage = { id, count: this.seeded.get(id) ?? 0 };
    this.lineages.set(id, l);
    return l;
  }

  private trim(): void {
    while (this.lineages.size > MAX_LINEAGES) {
      const oldest = this.lineages.keys().next().value as string;
      const l = this.lineages.get(oldest);
      this.lineages.delete(oldest);
      for (const [s, x] of this.bySession) if (x === l) this.bySession.delete(s);
    }
    while (this.pending.size > MAX_PENDING) this.pending.delete(this.pending.keys().next().value as string);
  }
}

function pendingKey(sessionId: string, sessionCall: number): string {
  return `${sessionId}\u0000${sessionCall}`;
}

/** Same system prompt and tool definitions (in the same order). */
function sameHead(a: RequestFingerprint, b: RequestFingerprint): boolean {
  return a.system.join() === b.system.join() && a.tools.map((t) => t.hash).join() === b.tools.map((t) => t.hash).join();
}
