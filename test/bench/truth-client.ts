/**
 * The ground truth's client: the requests Claude Code sent for a recorded session, as far as the
 * recording shows them, read by the report's own fit (report/fit.ts) so both sides start from the same
 * facts about the client:
 * - the recorded messages, the tool results the client had cleared by then (microcompact) sent as its
 *   placeholder, and an answer for a tool use the transcript records none for;
 * - a system prompt of the size the recorded usage implies (shared part, then the session's), each with
 *   a breakpoint, and the session part rewritten where the recording shows the client rewrote it;
 * - a breakpoint on the last message's last block, the recorded TTL;
 * - its messages invalidated where the recording read nothing past the system prompt although the cache
 *   rules keep them (the client changed them in a way the transcript does not hold);
 * - sent at the recorded request time.
 * The server counts each block at the size the recorded usage implies for the call (the real tokenizer's
 * counts), a block a strategy rewrote at its own estimate.
 */
import { readFileSync } from 'node:fs';
import { blockIdentityJson } from '../../src/core/api/cache-rules';
import { recordedTtl } from '../../src/core/engine/replay';
import { readTranscriptRecord } from '../../src/core/import';
import type { RecordedCall } from '../../src/core/import/recorded';
import { blockChars } from '../../src/core/report/block-chars';
import { clientRestarts } from '../../src/core/report/client-prefix';
import { fitNone, type FitResult } from '../../src/core/report/fit';
import { CLEARED_RESULT_TOKENS } from '../../src/core/report/sizing';
import { RESULT_NOT_RECORDED } from '../../src/core/request/assemble';
import type { ContentBlockParam, ImportedSession } from '../../src/core/session/types';
import { blockTokens, CHARS_PER_TOKEN } from '../../src/dev/tokens';

/** What the client sends in place of a result it cleared (Claude Code's microcompact). */
export const CLEARED_TEXT = '[Old tool result content cleared]';

const FILLER = 'The client system prompt and tool definitions the transcript does not hold. ';

/** What the recording tells of a session's client, by the report's fit. */
export interface ClientFacts {
  readonly file: string;
  readonly imp: ImportedSession;
  /** The row's main model (the report's). */
  readonly model: string;
  readonly fit: FitResult;
}

/** The facts of a file's main conversation, or undefined when the report has nothing to fit it on. */
export function clientFacts(file: string, text = readFileSync(file, 'utf8')): ClientFacts | undefined {
  const rec = readTranscriptRecord(text, file, new Set()).recorded;
  const conv = rec.conversations.find((c) => !c.sidechain) ?? rec.conversations[0];
  if (!conv?.calls.length) return undefined;
  const imp = conv.session();
  const n = new Map<string, number>();
  for (const c of conv.calls) n.set(c.model, (n.get(c.model) ?? 0) + 1);
  const model = [...n].sort((a, b) => b[1] - a[1])[0]?.[0] ?? imp.model ?? 'claude-sonnet-4-5';
  const byId = new Map<string, RecordedCall>();
  for (const c of conv.calls) byId.set(c.key.slice(0, c.key.lastIndexOf('|')), c);
  return { file, imp, model, fit: fitNone(imp, model, byId, undefined, conv.events) };
}

function systemText(tokens: number, key = ''): string {
  const chars = Math.round(tokens * CHARS_PER_TOKEN);
  const text = FILLER.repeat(Math.ceil(chars / FILLER.length)).slice(0, chars);
  // Another client version, a restart, a rewritten session part: other bytes, the same size.
  return key ? `#${key} ${text}`.slice(0, chars) : text;
}

function earlierText(part: { key: string; tokens: number }, epoch: number): string {
  const chars = Math.round(part.tokens * CHARS_PER_TOKEN);
  const text = FILLER.repeat(Math.ceil(chars / FILLER.length) + 1);
  return `earlier ${part.key}#${epoch} ${text}`.slice(0, chars);
}

/** The first call read the earlier conversation: the calls before the transcript left it warm. */
export function earlierWarmAtStart(f: ClientFacts, model: string): boolean {
  return (f.fit.prefixes.get(model) ?? f.fit.prefix).warmAtStart === true;
}

function cacheable(b: ContentBlockParam): boolean {
  return b.type !== 'thinking' && b.type !== 'redacted_thinking' && !(b.type === 'text' && !b.text.trim());
}

type ClientMessage = { role: string; content: ContentBlockParam[] };

/**
 * A tool use the transcript records no result for (an interrupted call) gets one, as the client sends it, and the
 * results open the next message: the API refuses a tool_use without its tool_result at the start of the next
 * message. The engine's builder answers and orders them the same way.
 */
function answerToolUses(messages: ClientMessage[]): void {
  for (let k = 0; k < messages.length; k++) {
    if (messages[k].role !== 'assistant') continue;
    const ids = messages[k].content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
    if (!ids.length) continue;
    const next = messages[k + 1]?.role === 'user' ? messages[k + 1] : undefined;
    const answered = new Set(next?.content.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : [])));
    const missing = ids
      .filter((id) => !answered.has(id))
      .map((id) => ({ type: 'tool_result', tool_use_id: id, content: RESULT_NOT_RECORDED }) as ContentBlockParam);
    // The results first, as the API wants them (a transcript may hold a reminder or a prompt before them).
    const results = next?.content.filter((b) => b.type === 'tool_result') ?? [];
    const rest = next?.content.filter((b) => b.type !== 'tool_result') ?? [];
    const inOrder = next?.content.every((b, j) => j < results.length === (b.type === 'tool_result'));
    if (!missing.length && inOrder) continue;
    if (next) messages[k + 1] = { role: 'user', content: [...missing, ...results, ...rest] };
    else messages.splice(k + 1, 0, { role: 'user', content: missing });
  }
}

/** Claude Code's request for recorded call `i`. */
export function clientBody(f: ClientFacts, i: number): Record<string, unknown> {
  const { imp, fit } = f;
  const call = imp.calls[i];
  const ttl = recordedTtl(call);
  const cc = ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
  const cleared = fit.contexts[i]?.cleared;
  const param = (b: ImportedSession['messages'][number]['blocks'][number]): ContentBlockParam =>
    cleared?.has(b.id) && b.param.type === 'tool_result' ? { ...b.param, content: CLEARED_TEXT } : b.param;
  // Blank text blocks are in the transcript but not in what the client sends (the API refuses them).
  const sent = (b: ContentBlockParam): boolean => !(b.type === 'text' && !b.text.trim());
  const idOf = new WeakMap<object, string>();
  const messages: ClientMessage[] = imp.messages
    .slice(call.epochStart, call.at)
    .map((m) => ({
      role: m.role,
      content: m.blocks
        .filter((b) => sent(b.param))
        .map((b) => {
          const out = param(b);
          idOf.set(out, b.id);
          return out;
        }),
    }))
    .filter((m) => m.content.length > 0);
  answerToolUses(messages);
  // The client's message breakpoint where the recorded usage puts it (fit.ts breakpointPlacement), else on the last
  // block it can cache.
  const placed = fit.placement[i];
  let mark: [number, number] | undefined;
  for (let k = messages.length - 1; placed !== undefined && !mark && k >= 0; k--) {
    const j = messages[k].content.findIndex((b) => idOf.get(b) === placed);
    if (j >= 0) mark = [k, j];
  }
  for (let k = messages.length - 1; !mark && k >= 0; k--) {
    const j = messages[k].content.map(cacheable).lastIndexOf(true);
    if (j >= 0) mark = [k, j];
  }
  if (mark) {
    const [k, at] = mark;
    messages[k] = {
      ...messages[k],
      content: messages[k].content.map((b, j) => (j === at ? { ...b, cache_control: cc } : b)) as ContentBlockParam[],
    };
  }
  const model = call.model ?? f.model;
  const p = fit.prefixes.get(model) ?? fit.prefix;
  const sysTtl = fit.timings[i]?.systemTtl ?? ttl ?? '5m';
  const scc = sysTtl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
  const version = fit.contexts[i]?.prefixKey ?? '';
  const epoch = fit.sessionEpochs[i] ?? 0;
  const restarts = clientRestarts(fit, call);
  const sessionKey = version || restarts || epoch ? `${version}#${restarts}#${epoch}` : '';
  const system = [systemText(p.shared, version), systemText(p.session, sessionKey)]
    .filter((t) => t.length > 0)
    .map((text): Record<string, unknown> => ({ type: 'text', text, cache_control: scc }));
  // A transcript that starts mid-conversation: the earlier conversation it does not hold follows the system prompt
  // (report/earlier-conversation.ts), other bytes per revision and epoch, no breakpoint of its own.
  const earlier = fit.earlier[i];
  if (earlier && earlier.tokens > 0) system.push({ type: 'text', text: earlierText(earlier, fit.epochs[i] ?? 0) });
  return { model, max_tokens: 1024, system, messages };
}

/** The shared part of the system prompt is kept warm by the client's other sessions (its first call read it). */
export function sharedWarm(f: ClientFacts, model: string): boolean {
  const p = f.fit.prefixes.get(model) ?? f.fit.prefix;
  return p.sharedWarm && p.shared > 0;
}

/**
 * The server's token count of a block: the size the recorded usage implies for a block of the transcript at call
 * `i` (the fit's sizes, as the client sent them then), else the server's own estimate (a block a strategy rewrote).
 */
export interface RecordedMeter {
  /** Sizes as of call `i` (set before each request). */
  at(i: number): void;
  readonly tokensOf: (block: object) => number;
}

export function recordedMeter(f: ClientFacts): RecordedMeter {
  const bytes = f.imp.messages.map((m) => m.blocks.map((b) => blockIdentityJson(b.param)));
  let current: unknown;
  let byBytes = new Map<string, number>();
  /** Tool uses and results by their tool id: tokens and characters as recorded. */
  let byTool = new Map<string, { tokens: number; chars: number }>();
  const toolId = (b: { type?: unknown; id?: unknown; tool_use_id?: unknown }): string | undefined =>
    b.type === 'tool_result' ? String(b.tool_use_id) : b.type === 'tool_use' ? `use:${String(b.id)}` : undefined;
  return {
    at(i) {
      const messages = f.fit.sizesAt(i);
      if (messages === current) return;
      current = messages;
      byBytes = new Map();
      byTool = new Map();
      messages.forEach((m, mi) =>
        m.blocks.forEach((b, bi) => {
          if (!bytes[mi]) return;
          byBytes.set(bytes[mi][bi], b.tokens);
          const param = f.imp.messages[mi].blocks[bi]?.param;
          const id = param && toolId(param as never);
          if (id) byTool.set(id, { tokens: b.tokens, chars: blockChars(param) });
        }),
      );
    },
    tokensOf: (block) => {
      const t = byBytes.get(blockIdentityJson(block));
      if (t !== undefined) return Math.round(t);
      const p = block as ContentBlockParam;
      // A result the client cleared: its placeholder, at the size the report gives it.
      if (p.type === 'tool_result' && p.content === CLEARED_TEXT) return CLEARED_RESULT_TOKENS;
      // A tool use or result a strategy rewrote: the recorded one's tokens per character (as the report scales it).
      const orig = byTool.get(toolId(p as never) ?? '');
      return orig ? Math.round((orig.tokens * blockChars(p)) / Math.max(1, orig.chars)) : blockTokens(block);
    },
  };
}

type WireBlock = { type: string; cache_control?: unknown };
type WireMessage = { role: string; content: string | WireBlock[] };

/**
 * The request Claude Code made when the turn before call `i` ended (fit.turnEndWrites, report/fit.ts
 * turnEndWritesOf), which the transcript does not hold: what was sent upstream for call `i` (`sent`, the proxy's
 * request) up to the block the recorded read ends on, a breakpoint there (the last block of the last response when
 * the proxy no longer sends that block as recorded). Undefined: no such request before call `i`.
 */
export function turnEndRequest(
  f: ClientFacts,
  i: number,
  sent: { model?: unknown; system?: unknown; messages?: WireMessage[] },
): { at: number; body: { model: string; system: unknown; messages: WireMessage[] } } | undefined {
  const write = f.fit.turnEndWrites[i];
  const messages = sent.messages;
  if (!write || !messages) return undefined;
  const blocks = (m: WireMessage): WireBlock[] => (Array.isArray(m.content) ? m.content : []);
  let last = messages.length - 1;
  while (
    last >= 0 &&
    (messages[last].role !== 'assistant' || !blocks(messages[last]).some((b) => cacheable(b as never)))
  )
    last--;
  if (last < 0) return undefined;
  let at: [number, number] = [
    last,
    blocks(messages[last])
      .map((b) => cacheable(b as never))
      .lastIndexOf(true),
  ];
  // The block as the client sent it for call i (a result it had cleared by then as its placeholder).
  const orig = f.imp.messages.flatMap((m) => m.blocks).find((b) => b.id === write.block);
  if (orig) {
    const cleared = f.fit.contexts[i]?.cleared?.has(orig.id) && orig.param.type === 'tool_result';
    const want = blockIdentityJson(cleared ? { ...orig.param, content: CLEARED_TEXT } : orig.param);
    for (let mi = last; mi >= 0; mi--) {
      const bi = blocks(messages[mi]).findIndex((b) => blockIdentityJson(b) === want);
      if (bi >= 0) {
        at = [mi, bi];
        break;
      }
    }
  }
  const ttl = recordedTtl(f.imp.calls[i]);
  const cc = ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
  const [mi, bi] = at;
  const upTo = messages.slice(0, mi + 1).map((m) => ({
    role: m.role,
    content: blocks(m).map(({ cache_control: _, ...b }) => b as WireBlock),
  }));
  upTo[mi].content = (upTo[mi].content as WireBlock[]).map((b, j) => (j === bi ? { ...b, cache_control: cc } : b));
  return { at: write.at, body: { model: String(sent.model), system: sent.system, messages: upTo } };
}
