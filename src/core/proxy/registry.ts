/**
 * Sessions from requests: which proxied session a `POST /v1/messages` continues, and what
 * in it is new.
 *
 * A request continues the session whose log is a prefix of its messages (compared by
 * digest, cache_control ignored), preferring the client's own session key: among the
 * sessions with the request's key (or, without a key, the keyless ones) the one with the
 * longest log that is such a prefix wins. Anything else starts a new session:
 * - a client that rewrote its history (its compaction, an edit) gets a new epoch of the key,
 *   not a corrupt log;
 * - a side call (title generation, a subagent with the same key) does not match the main
 *   log, so it is its own session and the main one continues untouched next time.
 * The messages after the matched prefix are appended to the immutable log.
 */
import { Session } from '../session/session';
import type { ClientKind } from './client-kind';
import type { MessageParam, TextBlockParam, ToolDefinition } from '../session/types';
import { commonPrefix, messageDigest } from './digest';
import { elidedSpan, knownPrefix, nextPrefix, type MessageSpans, type RawPrefix } from './raw-prefix';

/** Sessions kept in memory per proxy; the least recently used beyond this are forgotten (their journals stay). */
export const MAX_LIVE_SESSIONS = 64;
/** Sessions whose last raw body is kept for the prefix check (a subagent or two beside the main session). */
const MAX_RAW_BODIES = 8;

export interface ProxiedSession {
  /** Stable id (journal file name): the key plus epoch, or `anon-<n>`. */
  readonly id: string;
  readonly key: string | undefined;
  readonly epoch: number;
  readonly session: Session;
  /** Digest of every log message, in order. */
  readonly digests: string[];
  lastSeen: number;
  /** The last request's raw body and its stable prefix (raw-prefix.ts), while the session is recent. */
  rawPrefix?: RawPrefix;
  /** The last request's messages as parsed (what its raw prefix's bytes hold, markers included). */
  lastMessages?: readonly MessageParam[];
  /** The agent the session's first request came from (client-kind.ts). */
  client?: ClientKind;
}

export interface Match {
  readonly entry: ProxiedSession;
  /** Log length before this request's new messages were appended. */
  readonly known: number;
  /** True when this request made the session (first sight, new epoch, side call). */
  readonly created: boolean;
}

export interface MatchInput {
  readonly key: string | undefined;
  readonly messages: readonly MessageParam[];
  readonly system?: string | TextBlockParam[];
  readonly tools?: readonly ToolDefinition[];
  readonly model: string;
  readonly now: number;
  /** The request's raw body: messages whose bytes a session already saw are not digested again. */
  readonly raw?: Buffer;
  /** Digests already made elsewhere (a worker thread), by message index; the others are made here. */
  readonly digests?: readonly (string | undefined)[];
  /** The raw body's message spans, found elsewhere (a worker thread) from some message on. */
  readonly spans?: MessageSpans;
}

/** A body that continues a recent session's last request: its first `count` messages are bytes (open, tail). */
export interface KnownPrefix {
  readonly entry: ProxiedSession;
  readonly count: number;
  readonly skip: { readonly open: number; readonly tail: number };
}

export interface ProxySessionsOptions {
  /**
   * A session kept from an earlier run under this id (its journal), if any: a proxy restarted
   * mid-session continues it, the user's pins and trims included, when its log is a prefix of
   * the request.
   */
  readonly restore?: (id: string) => Session | undefined;
  /** A session was forgotten (least recently used beyond MAX_LIVE_SESSIONS): free what is kept beside it. */
  readonly onEvict?: (entry: ProxiedSession) => void;
  /** A request's new messages are about to be appended to this session (the engine batches their journal records). */
  readonly beforeAppend?: (entry: ProxiedSession) => void;
}

export class ProxySessions {
  private readonly entries: ProxiedSession[] = [];
  private anon = 0;
  private readonly epochs = new Map<string, number>();

  constructor(private readonly o: ProxySessionsOptions = {}) {}

  all(): readonly ProxiedSession[] {
    return this.entries;
  }

  byId(id: string): ProxiedSession | undefined {
    return this.entries.find((e) => e.id === id);
  }

  /** The most recently active session. */
  latest(): ProxiedSession | undefined {
    let best: ProxiedSession | undefined;
    for (const e of this.entries) if (!best || e.lastSeen >= best.lastSeen) best = e;
    return best;
  }

  /**
   * The session whose last request `raw` continues byte for byte, and where the body's known
   * messages are (raw-prefix.ts): the caller parses only what is new. Undefined when no recent
   * session's bytes start the body. With `key` (the client's session header), only that key's sessions.
   */
  known(raw: Buffer, key?: string): KnownPrefix | undefined {
    let best: ProxiedSession | undefined;
    for (const e of this.entries)
      if (
        (key === undefined || e.key === key) &&
        e.rawPrefix &&
        e.lastMessages &&
        (!best || e.rawPrefix.count > best.rawPrefix!.count) &&
        knownPrefix(e.rawPrefix, raw) > 0
      )
        best = e;
    const skip = best && elidedSpan(best.rawPrefix!, raw);
    return skip === undefined ? undefined : { entry: best!, count: best!.rawPrefix!.count, skip };
  }

  /** {@link known}, with the body's JSON text without the known messages. */
  peek(raw: Buffer): { entry: ProxiedSession; count: number; json: string } | undefined {
    const k = this.known(raw);
    if (!k) return undefined;
    const json = raw.toString('utf8', 0, k.skip.open + 1) + raw.toString('utf8', k.skip.tail);
    return { entry: k.entry, count: k.count, json };
  }

  /** The first `count` messages of a session's last request, as the client sent them. */
  knownMessages(entry: ProxiedSession, count: number): MessageParam[] {
    if (!entry.lastMessages || entry.lastMessages.length < count)
      throw new Error(`session ${entry.id}: the last request's messages are not kept`);
    return entry.lastMessages.slice(0, count);
  }

  /** Find (or make) the session of a request and append its new messages. */
  match(input: MatchInput): Match {
    // Leading messages byte-identical to a session's last request keep their digests (one memcmp).
    let source: ProxiedSession | undefined;
    let reused = 0;
    if (input.raw) {
      for (const e of this.entries) {
        if (e.key !== input.key) continue;
        const k = knownPrefix(e.rawPrefix, input.raw);
        if (k > reused) [source, reused] = [e, k];
      }
    }
    const given = input.digests;
    const digests = input.messages.map((m, i) => (i < reused ? source!.digests[i] : (given?.[i] ?? messageDigest(m))));
    let entry: ProxiedSession | undefined;
    for (const e of this.entries) {
      if (e.key !== input.key || e.digests.length > digests.length) continue;
      if (commonPrefix(e.digests, digests) !== e.digests.length) continue;
      if (
        !entry ||
        e.digests.length > entry.digests.length ||
        (e.digests.length === entry.digests.length && e.lastSeen > entry.lastSeen)
      )
        entry = e;
    }
    const created = entry === undefined;
    entry ??= this.create(input, digests);
    const known = entry.digests.length;
    const s = entry.session;
    if (input.messages.length > known) this.o.beforeAppend?.(entry);
    s.system = input.system;
    s.tools = input.tools ? [...input.tools] : undefined;
    s.model = input.model;
    for (let i = known; i < input.messages.length; i++) {
      const m = input.messages[i];
      s.append(m.role as 'user' | 'assistant', m.content, {}, `${entry.id}.m${i}`);
      entry.digests.push(digests[i]);
    }
    entry.lastSeen = input.now;
    entry.rawPrefix = input.raw
      ? nextPrefix(
          input.raw,
          input.messages.length,
          source === entry ? entry.rawPrefix : undefined,
          source === entry ? reused : 0,
          input.spans,
        )
      : undefined;
    entry.lastMessages = entry.rawPrefix ? input.messages : undefined;
    this.forgetOldRawBodies();
    return { entry, known, created };
  }

  /** Raw bodies are kept for the most recently active sessions only (they can be megabytes each). */
  private forgetOldRawBodies(): void {
    const kept = this.entries.filter((e) => e.rawPrefix).sort((a, b) => b.lastSeen - a.lastSeen);
    for (const e of kept.slice(MAX_RAW_BODIES)) {
      e.rawPrefix = undefined;
      e.lastMessages = undefined;
    }
  }

  private create(input: MatchInput, digests: readonly string[]): ProxiedSession {
    let id: string;
    let epoch = 0;
    let session: Session | undefined;
    let known: string[] = [];
    if (input.key) {
      const key = input.key;
      const idOf = (n: number): string => (n === 1 ? key : `${key}.e${n}`);
      epoch = (this.epochs.get(key) ?? 0) + 1;
      // Earlier runs' epochs of this key: continue the one the request extends, else start after them.
      for (let n = epoch; ; n++) {
        if (this.byId(idOf(n))) continue; // live: the prefix check above already said no
        const kept = this.o.restore?.(idOf(n));
        if (!kept) {
          epoch = n;
          break;
        }
        const keptDigests = kept.messages.map((m) =>
          messageDigest({ role: m.role, content: m.blocks.map((b) => b.param) }),
        );
        if (keptDigests.length <= digests.length && commonPrefix(keptDigests, digests) === keptDigests.length) {
          epoch = n;
          session = kept;
          known = keptDigests;
          break;
        }
      }
      this.epochs.set(key, epoch);
      id = idOf(epoch);
    } else {
      id = `anon-${input.now.toString(36)}-${++this.anon}`;
    }
    session ??= new Session({
      system: input.system,
      tools: input.tools ? [...input.tools] : undefined,
      model: input.model,
    });
    const entry: ProxiedSession = { id, key: input.key, epoch, session, digests: known, lastSeen: input.now };
    this.entries.push(entry);
    if (this.entries.length > MAX_LIVE_SESSIONS) {
      // The least recently seen other than the one being made (a clock that went back must not evict it).
      let oldest = this.entries[0];
      for (const e of this.entries) if (e !== entry && (oldest === entry || e.lastSeen < oldest.lastSeen)) oldest = e;
      this.evict(oldest);
    }
    return entry;
  }

  /**
   * Forget a session. Its key's next new session probes the journals again from this epoch
   * on, so the session comes back from its journal (restore) when the client continues it;
   * a key with no live session left is forgotten entirely (memory stays bounded).
   */
  private evict(old: ProxiedSession): void {
    this.entries.splice(this.entries.indexOf(old), 1);
    if (old.key !== undefined) {
      if (!this.entries.some((e) => e.key === old.key)) this.epochs.delete(old.key);
      else this.epochs.set(old.key, Math.min(this.epochs.get(old.key) ?? 0, old.epoch - 1));
    }
    this.o.onEvict?.(old);
  }
}
