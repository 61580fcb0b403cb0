/**
 * What the cost benchmarks need to know about one recorded session before any
 * strategy runs, measured from the session's own recorded usage:
 *
 * - A token meter: an estimator calibrated on every usage delta of the session
 *   (in-sample: this measures cost, it predicts nothing), then frozen, so every
 *   strategy's requests are counted with the same ruler. The engine keeps its own
 *   online estimator for its decisions.
 * - The client's unrecorded prefix. Claude Code sends ~28k characters of system
 *   prompt, 14 tool definitions and system reminders that the JSONL transcript does
 *   not hold (reference, "What real clients send and record"). Its size is the
 *   first call's recorded input minus the meter's count of the recorded messages;
 *   the part of it already read from the cache at the first call is shared with the
 *   client's other sessions (it stays cached across long pauses in the recordings),
 *   the rest is this session's (written at its first call). Both go into the replayed
 *   session as system blocks, so the engine places its system breakpoint as it would
 *   behind the proxy, and every strategy pays for them alike.
 * - Request times: a call is sent when its last message (the prompt or the tool
 *   results) is recorded; the recorded call timestamp is the response's, later by the
 *   model's latency. Cache TTLs count between requests.
 */
import { ttlMsOf } from '../../src/core/api/cache-rules';
import { recordedTtl } from '../../src/core/engine/replay';
import { clientInvalidations } from '../../src/core/report/fit';
import type { ContentBlockParam, ImportedSession, MessageParam, TextBlockParam } from '../../src/core/session/types';
import { totalInput } from '../../src/core/session/types';
import { TokenEstimator } from '../../src/core/tokens';
import { deltaSamples } from './tokens';

/** Used when a call has no usable timestamp: the replay's own convention (previous + 1 s). */
const MISSING_TIMESTAMP_STEP_MS = 1000;
/**
 * Characters of each placeholder system block. The engine only needs to see a prefix above
 * every model's minimum (4,096 tokens) to place its system breakpoint; the meter counts the
 * blocks at their measured size. 24k characters is ~6k cl100k tokens.
 */
const PLACEHOLDER_CHARS = 24_000;

export interface ClientPrefix {
  /** Tokens already cached by the client's other sessions at the first call (its recorded cache read). */
  readonly sharedTokens: number;
  /** The rest of the unrecorded prefix: this session's own system text and reminders. */
  readonly sessionTokens: number;
}

export interface BenchSession {
  readonly name: string;
  readonly model: string;
  /** The transcript, with the client prefix as its system prompt unless the setup left it out. */
  readonly imp: ImportedSession;
  readonly clientPrefix: ClientPrefix;
  /** Request time (ms) of each call. */
  readonly requestTimes: readonly number[];
  /** The recorded response timestamps, for comparison (ms). */
  readonly responseTimes: readonly number[];
  /** Tokens of one block as billed, by the frozen meter (placeholders at their measured size). */
  readonly tokensOf: (block: object) => number;
  /**
   * Calls where the recording read nothing past the client's system prompt although the
   * cache rules keep the messages cached: the client changed its messages in a way the
   * transcript does not hold (src/core/report/fit.ts). Every strategy meets the same change.
   */
  readonly clientInvalidations: ReadonlySet<number>;
  /** A request that only touches the shared prefix: another session of the client using it at the same time. */
  readonly sharedPrefixRequest?: { model: string; system: TextBlockParam[]; messages: MessageParam[] };
}

/**
 * Block types the estimator counts as content blocks (anything else, e.g. a tool definition, is counted as JSON text).
 */
const CONTENT_BLOCK_TYPES = new Set([
  'text',
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
  'image',
  'document',
]);

export function isContentBlock(block: object): block is ContentBlockParam {
  const t = (block as { type?: unknown }).type;
  return typeof t === 'string' && CONTENT_BLOCK_TYPES.has(t);
}

function placeholder(kind: string, tokens: number): TextBlockParam {
  const head = `[${kind} of the recording client, not in the transcript: ${tokens} tokens] `;
  return {
    type: 'text',
    text: head + 'lorem ipsum dolor sit amet '.repeat(Math.ceil((PLACEHOLDER_CHARS - head.length) / 27)),
  };
}

function parseTime(s: string | undefined): number {
  const t = s ? Date.parse(s) : NaN;
  return Number.isFinite(t) ? t : NaN;
}

/** Request time of each call: its last message's timestamp, else its own, never before the previous call. */
function requestTimes(imp: ImportedSession): { request: number[]; response: number[] } {
  const request: number[] = [];
  const response: number[] = [];
  let prevReq = 0;
  let prevResp = 0;
  for (const c of imp.calls) {
    const own = parseTime(c.timestamp);
    const sent = parseTime(imp.messages[c.at - 1]?.meta.timestamp);
    const resp = Number.isFinite(own) ? own : prevResp + MISSING_TIMESTAMP_STEP_MS;
    const req = Number.isFinite(sent) ? sent : resp;
    prevResp = Math.max(prevResp, resp);
    prevReq = Math.max(prevReq, Math.min(req, prevResp));
    response.push(prevResp);
    request.push(prevReq);
  }
  return { request, response };
}

function meterFor(imp: ImportedSession): TokenEstimator {
  const meter = new TokenEstimator().forModel(imp.model);
  for (const s of deltaSamples({ file: imp.file, messages: imp.messages, calls: imp.calls })) {
    meter.observe({
      model: s.model,
      addedBlocks: s.added,
      addedMessages: s.addedMessages,
      removedBlocks: s.removed,
      trueDelta: s.trueDelta,
    });
  }
  return meter;
}

export interface SetupOptions {
  /** Put the client's unrecorded prefix into the session (default true). */
  withClientPrefix?: boolean;
}

export function setupSession(raw: ImportedSession, opts: SetupOptions = {}): BenchSession {
  const model = raw.model ?? raw.calls.find((c) => c.model)?.model ?? 'claude-sonnet-4-5';
  const meter = meterFor(raw);
  const first = raw.calls[0];
  const recorded = raw.messages
    .slice(first.epochStart, first.at)
    .map((m) => ({ role: m.role, content: m.blocks.map((b) => b.param) }));
  const hidden = first.usage ? Math.max(0, totalInput(first.usage) - meter.messages(recorded).tokens) : 0;
  const shared = Math.min(hidden, first.usage?.cache_read_input_tokens ?? 0);
  const clientPrefix: ClientPrefix = { sharedTokens: shared, sessionTokens: hidden - shared };
  const known = new Map<string, number>();
  const system: TextBlockParam[] = [];
  const sharedBlock = shared > 0 ? placeholder('shared system prompt and tools', shared) : undefined;
  if (sharedBlock) system.push(sharedBlock);
  if (clientPrefix.sessionTokens > 0)
    system.push(placeholder('session system prompt and reminders', clientPrefix.sessionTokens));
  if (sharedBlock) known.set(sharedBlock.text, shared);
  if (system.length && clientPrefix.sessionTokens > 0)
    known.set(system[system.length - 1].text, clientPrefix.sessionTokens);

  const memo = new WeakMap<object, number>();
  const tokensOf = (block: object): number => {
    let n = memo.get(block);
    if (n !== undefined) return n;
    const fixed = isContentBlock(block) && block.type === 'text' ? known.get(block.text) : undefined;
    if (fixed !== undefined) n = fixed;
    else n = isContentBlock(block) ? meter.block(block).tokens : meter.text(JSON.stringify(block)).tokens;
    memo.set(block, n);
    return n;
  };
  const withPrefix = opts.withClientPrefix !== false && system.length > 0;
  const times = requestTimes(raw);
  // A read of the system prompt alone after a pause past the recording's TTL is the TTL's doing, not a
  // client change: following it would charge a strategy that writes with a longer TTL for a miss it does not have.
  const pastTtl = (i: number): boolean =>
    i > 0 && times.request[i] - times.request[i - 1] >= ttlMsOf(recordedTtl(raw.calls[i - 1]) ?? '5m');
  return {
    name: raw.file.split('/').pop()!.slice(0, 8),
    model,
    imp: withPrefix ? { ...raw, system } : raw,
    clientPrefix,
    requestTimes: times.request,
    responseTimes: times.response,
    tokensOf,
    clientInvalidations: new Set(clientInvalidations(raw.calls, hidden, pastTtl)),
    sharedPrefixRequest:
      withPrefix && sharedBlock
        ? { model, system: [{ ...sharedBlock, cache_control: { type: 'ephemeral' } }], messages: [] }
        : undefined,
  };
}
