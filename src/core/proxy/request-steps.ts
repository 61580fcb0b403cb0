/**
 * The steps of one proxied request, in order: read the body (only what is new when it continues
 * a recent session's bytes), begin the call (match the session, append the new messages, record
 * and judge the call), plan it (the pipeline, the planner, the builder; the client's own body when
 * it breaks an API rule), and send it (the verdicts learn what went upstream). The engine runs
 * them in one go for a normal request; a big one runs them as separate event-loop turns, its
 * text-bound work off the event loop (proxy-engine.ts, offload.ts). Any step may throw: the
 * caller sends the client's own bytes.
 */
import type { RequestBody } from '../api/wire';
import type { PreparedCall } from '../engine/context-engine';
import { HEAD_CHANGED } from '../engine/replay';
import { thinkingEnabled, validateRequest } from '../request/validate';
import type { ToolDefinition } from '../session/types';
import type { Release } from '../store/journal-writer';
import { rememberDefaultRefs } from '../trimming';
import { classifyClient } from './client-kind';
import { rememberContentKey } from '../tokens/hash';
import { rememberBlockIdentity } from '../cache/sim-identity';
import { hugeText, type BlockIdentity, type FoundRefs, type TextKey } from './prework';
import type { MatchInput, ProxiedSession, ProxySessions } from './registry';
import type { SessionState, SessionStates } from './session-states';
import { sessionKeyOf, type Headers } from './session-key';
import { clientTtl, headAllowsLongTtl, upstreamBody } from './upstream';
import type { ProxyVerdicts } from './verdicts';

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

export interface StepsContext {
  readonly sessions: ProxySessions;
  readonly states: SessionStates;
  readonly verdicts: ProxyVerdicts;
  readonly strategy: string;
  readonly log?: (line: string) => void;
  /** The call being matched: the registry's `beforeAppend` opens its journal batch before the messages go in. */
  readonly matching: { call?: Call };
}

/** A call under way: what the later steps need, filled in as the first one goes. */
export interface Call {
  readonly raw: Buffer;
  readonly body: RequestBody;
  st?: SessionState;
  entry?: ProxiedSession;
  callIndex?: number;
  headChanged?: boolean;
  /** Writes the call's journal records (one write and one fsync for all of them; `inSteps` for a big call). */
  release?: Release;
}

export function untouched(raw: Buffer, failOpen?: string, sessionId?: string, callIndex?: number): Forward {
  return { body: raw, transformed: false, failOpen, sessionId, callIndex };
}

/** The client's bytes go upstream: why is kept for the inspector. */
export function failOpen(ctx: StepsContext, c: Call, why: string): Forward {
  if (!c.st) return untouched(c.raw, why);
  c.st.lastFailOpen = why;
  ctx.log?.(`session ${c.st.entry.id}: sent untouched: ${why}`);
  return untouched(c.raw, why, c.st.entry.id, c.callIndex);
}

/** A step threw: the client's bytes go upstream. */
export function failed(ctx: StepsContext, c: Call, e: unknown): Forward {
  return failOpen(ctx, c, `the engine failed on this request: ${e instanceof Error ? e.message : String(e)}`);
}

/** The parsed body when it is a Messages API request, else what to send (the client's bytes). */
export function checkBody(raw: Buffer, body: unknown): RequestBody | Forward {
  if (body === undefined) return untouched(raw, 'the request body is not JSON');
  const b = body as RequestBody;
  if (typeof b !== 'object' || b === null || !Array.isArray(b.messages) || typeof b.model !== 'string')
    return untouched(raw, 'not a Messages API request');
  return b;
}

/**
 * The body of a request that continues a recent session's last request byte for byte, parsed
 * without its known messages (they are the session's own), or undefined (then the caller parses
 * everything). The session key must be the one that session has.
 */
export function parseKnown(sessions: ProxySessions, raw: Buffer, headers: Headers): RequestBody | undefined {
  const peek = sessions.peek(raw);
  if (!peek) return undefined;
  try {
    const body = JSON.parse(peek.json) as RequestBody;
    return withKnown(sessions, body, headers, peek.entry, peek.count);
  } catch {
    return undefined;
  }
}

/** A body parsed without the known messages of `entry`'s last request, given them back; undefined on a mismatch. */
export function withKnown(
  sessions: ProxySessions,
  body: RequestBody | undefined,
  headers: Headers,
  entry: ProxiedSession,
  count: number,
): RequestBody | undefined {
  if (typeof body !== 'object' || body === null || !Array.isArray(body.messages)) return undefined;
  if (sessionKeyOf(headers, body) !== entry.key) return undefined;
  body.messages = [...sessions.knownMessages(entry, count), ...body.messages];
  return body;
}

/**
 * Match the session, append what is new, record the call and judge it against the last one.
 * `found`: the messages' digests and spans where already known (a worker made them). Returns the
 * client's bytes when observe-only has nothing to change.
 */
export function begin(
  ctx: StepsContext,
  c: Call,
  headers: Headers,
  now: number,
  found: Pick<MatchInput, 'digests' | 'spans'> = {},
): Forward | undefined {
  const { body } = c;
  // Tools go upstream as sent; the session keeps them for token counts (server tools count as their JSON).
  const tools = body.tools as ToolDefinition[] | undefined;
  const key = sessionKeyOf(headers, body);
  const { raw } = c;
  const { messages, system, model } = body;
  ctx.matching.call = c;
  let m;
  try {
    m = ctx.sessions.match({ key, messages, system, tools, model, now, raw, ...found });
  } finally {
    ctx.matching.call = undefined;
  }
  const st = (c.st = ctx.states.of(m.entry));
  c.entry = m.entry;
  m.entry.client ??= classifyClient(headers, body);
  if (!st.journal) ctx.states.reopenJournal(st);
  c.release ??= st.journal?.hold();
  const s = m.entry.session;
  const call = s.recordCall({ at: s.messages.length, epochStart: 0, model: body.model, timestamp: isoAt(now) });
  st.journal?.recordCall(call);
  c.callIndex = call.index;
  const verdict = ctx.verdicts.onRequest({
    sessionId: m.entry.id,
    key: m.entry.key,
    sessionCall: call.index,
    body,
    digests: m.entry.digests,
    now,
    clientAsked: 'diagnostics' in body,
  });
  c.headChanged = verdict.headChanged;
  // One numbering everywhere: the inspector shows the call as the journal and the verdicts number it.
  st.callNumbers.set(call.index, verdict.call);
  const earlier = verdict.previousSession === undefined ? undefined : ctx.states.get(verdict.previousSession);
  if (earlier) st.inspector.continues(earlier.inspector);
  // What the inspector shows for this call is this call's request, never an earlier one's.
  st.prepared = undefined;
  // The engine follows the client: its breakpoints' TTL and its model.
  st.engine.ttl = clientTtl(body);
  st.engine.longTtlAllowed = headAllowsLongTtl(body);
  st.engine.model = body.model;
  for (const done of st.inspector.applyDeferredIfCold(now))
    ctx.log?.(`session ${m.entry.id}: deferred action applied on a cold cache: ${done}`);
  // Observe only: the client's bytes, unless the user pinned, trimmed or restored something here.
  if (ctx.strategy === 'none' && s.overlayCount === 0) return untouched(c.raw, undefined, m.entry.id, call.index);
  return undefined;
}

function isoAt(now: number): string {
  return new Date(now).toISOString();
}

/** Refs a worker found in huge tool results of the new messages: the summaries reuse them (trimming/refs.ts). */
export function rememberRefs(c: Call, found: readonly FoundRefs[], offset: number): void {
  const s = c.entry?.session;
  if (!s) return;
  for (const f of found) {
    const param = s.messages[offset + f.message]?.blocks[f.block]?.param;
    if (param?.type === 'tool_result' && param.tool_use_id === f.toolUseId) rememberDefaultRefs(param, f.refs);
  }
}

/** Content keys a worker made for huge texts of the new messages: the token counter does not hash them again. */
export function rememberKeys(c: Call, keys: readonly TextKey[], offset: number): void {
  const messages = c.body.messages;
  for (const k of keys) {
    const text = hugeText(messages, { ...k, message: offset + k.message });
    if (text !== undefined) rememberContentKey(text, k.key);
  }
}

/**
 * The cache simulator's identities of the upstream body's huge blocks, made by a worker: the inspector's simulator
 * (which rebuilds the request: copies of these blocks) does not hash them again (cache/sim-identity.ts).
 */
export function rememberIdentities(up: RequestBody, identities: readonly BlockIdentity[]): void {
  for (const { message, block, hash } of identities) {
    const content = up.messages[message]?.content;
    const b: unknown = Array.isArray(content) ? content[block] : undefined;
    if (typeof b === 'object' && b !== null) rememberBlockIdentity(b, hash);
  }
}

/** The pipeline, the planner and the builder: the upstream body, or the client's bytes and why. */
export function plan(ctx: StepsContext, c: Call, now: number): { up: RequestBody; prepared: PreparedCall } | Forward {
  const { st, body, callIndex } = c;
  if (!st || callIndex === undefined) throw new Error('the call was not begun');
  const coldFrom = c.headChanged ? { position: 0, why: HEAD_CHANGED } : undefined;
  const upTo = st.entry.session.messages.length;
  const prepared = st.engine.prepare({ callIndex, upTo, epochStart: 0, now, coldFrom });
  st.prepared = prepared;
  // The builder had to repair something: if the client's own request breaks a rule, the
  // client gets the API's answer to what it sent, not a request we made valid for it.
  if (prepared.repairs.length > 0) {
    const own = validateRequest(body, { model: body.model, thinking: thinkingEnabled(body) });
    if (own.length > 0) return failOpen(ctx, c, `the client's request breaks an API rule as sent: ${own[0].message}`);
  }
  const up = upstreamBody(body, prepared.body.messages);
  if ('error' in up) return failOpen(ctx, c, up.error);
  return { up: up.body, prepared };
}

/** The upstream body goes as `bytes`: the verdicts compare the next call with it. */
export function sent(ctx: StepsContext, c: Call, up: RequestBody, bytes: Buffer): Forward {
  const { st, callIndex } = c;
  if (!st || callIndex === undefined) throw new Error('the call was not begun');
  st.lastFailOpen = undefined;
  ctx.verdicts.sentAs(st.entry.id, callIndex, up, c.body.messages);
  return { body: bytes, transformed: true, sessionId: st.entry.id, callIndex };
}

/** After the call's last step: its journal records are written (one fsync), the inspector hears of a recovery. */
export function end(ctx: StepsContext, c: Call): void {
  const release = c.release;
  c.release = undefined;
  release?.();
  if (c.st) ctx.states.checkJournal(c.st);
}

/** `end` for a big call: its journal records (megabytes) are written a slice per event-loop turn. */
export async function endInSteps(ctx: StepsContext, c: Call): Promise<void> {
  const release = c.release;
  c.release = undefined;
  await release?.inSteps();
  if (c.st) ctx.states.checkJournal(c.st);
}
