/**
 * The counterfactual: the same recorded responses, with the requests a
 * strategy would have sent instead. Each request is the replay engine's
 * (src/core/engine/replay.ts); its blocks are priced on the sizes inferred
 * for `none` (an untouched block costs what it cost in the bill; a trimmed
 * one scales with its characters), with the same inferred prefix, the
 * client's breakpoint placement and the same cache rules. So a saving is the
 * strategy's doing, not a different cost model's.
 */
import { blockIdentityJson } from '../api/cache-rules';
import { hashString } from '../cache/simulator';
import { replay } from '../engine';
import type { ContentBlockParam, ImportedSession, LogBlock } from '../session/types';
import type { PipelineConfig } from '../trimming';
import type { Breakpoint } from '../api/wire';
import type { BillBlock, BillMessage, BillRequest, InferredPrefix } from './bill-model';
import { MAX_BREAKPOINTS } from '../api/cache-rules';
import { SessionBill, withCleared } from './session-bill';
import type { FitResult } from './fit';
import { blockChars, CHARS_PER_TOKEN } from './sizing';
import { clientHeadKeys, clientPrefixOf } from './client-prefix';
import { UsageSizedTokens } from './usage-tokens';

export interface StrategyCost {
  /** Input-side cost over the billed calls, USD. */
  readonly inputCost: number;
  /** Total input tokens over the billed calls (prefix included). */
  readonly tokensSent: number;
  /** Of inputCost, cache writes. */
  readonly writeCost: number;
  /** With `documented`: the same requests priced without following the recording's own invalidations. */
  readonly documentedInputCost?: number;
}

export interface PriceOptions {
  /**
   * Also price the requests with the documented cache rules alone (not following the recording's own
   * invalidations, fit.ts clientInvalidations), in the same replay.
   */
  readonly documented?: boolean;
}

interface Content {
  readonly param: ContentBlockParam;
}

/**
 * Whether a block sent has the content of its log block without serializing
 * either: the same object, or a copy that only adds or changes its breakpoint
 * mark (the request builder's copies), with the other keys in the same order
 * holding the same values. False means "compare the JSON".
 */
function sameContent(param: object, log: object): boolean {
  if (param === log) return true;
  const a = Object.keys(param).filter((k) => k !== 'cache_control');
  const b = Object.keys(log).filter((k) => k !== 'cache_control');
  if (a.length !== b.length) return false;
  const pa = param as Record<string, unknown>;
  const lb = log as Record<string, unknown>;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] || pa[a[i]] !== lb[b[i]]) return false;
  return true;
}

function sameIds(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The same bill message: role, turn marks and the very same bill blocks. */
function sameBillMessage(a: BillMessage, b: BillMessage): boolean {
  if (
    a.role !== b.role ||
    a.humanTurn !== b.humanTurn ||
    a.clientRestart !== b.clientRestart ||
    a.blocks.length !== b.blocks.length
  )
    return false;
  for (let i = 0; i < a.blocks.length; i++) if (a.blocks[i] !== b.blocks[i]) return false;
  return true;
}

/** The last message breakpoint of a plan (the tail), with its request position. */
function lastMessageBreakpoint(bps: readonly Breakpoint[]): { messageIndex: number; blockIndex: number } | undefined {
  let out: { messageIndex: number; blockIndex: number } | undefined;
  for (const b of bps) {
    if (b.messageIndex === undefined || b.blockIndex === undefined) continue;
    const sameMessage = out !== undefined && b.messageIndex === out.messageIndex;
    const later = !out || b.messageIndex > out.messageIndex || (sameMessage && b.blockIndex > out.blockIndex);
    if (later) out = { messageIndex: b.messageIndex, blockIndex: b.blockIndex };
  }
  return out;
}

/** Message breakpoints the proxy passes: the API's limit less the client's system-prompt ones (shared, session). */
function messageBudget(p: InferredPrefix | undefined): number {
  return MAX_BREAKPOINTS - (p ? (p.shared > 0 ? 1 : 0) + (p.session > 0 ? 1 : 0) : 1);
}

/**
 * The engine's message breakpoints before its tail, as the proxy sends them (upstream.ts fitBreakpoints: the latest
 * ones within the budget, the tail counted), by the bill block each sits on.
 */
function anchorIds(
  bps: readonly Breakpoint[],
  tail: { messageIndex: number; blockIndex: number } | undefined,
  sent: readonly BillMessage[],
  budget: number,
): string[] {
  if (!tail) return [];
  const ids: string[] = [];
  const inOrder = [...bps].sort(
    (a, b) => (a.messageIndex ?? -1) - (b.messageIndex ?? -1) || (a.blockIndex ?? -1) - (b.blockIndex ?? -1),
  );
  for (const b of inOrder) {
    if (b.messageIndex === undefined || b.blockIndex === undefined) continue;
    if (b.messageIndex === tail.messageIndex && b.blockIndex === tail.blockIndex) continue;
    const id = sent[b.messageIndex]?.blocks[b.blockIndex]?.id;
    if (id !== undefined) ids.push(id);
  }
  return ids.slice(Math.max(0, ids.length - (budget - 1)));
}

/** Price a strategy on a session already fitted with {@link fitNone}. */
export function priceStrategy(
  imp: ImportedSession,
  model: string,
  fit: FitResult,
  strategy: string,
  config: PipelineConfig,
  opts: PriceOptions = {},
): StrategyCost {
  // Each call's blocks at the sizes it sent (a later rewrite shrinks them from its call on: rewrites.ts).
  const sized = new Map<string, BillBlock>();
  let sizedFrom: readonly BillMessage[] | undefined;
  const sizesOf = (call: number): void => {
    const messages = fit.sizesAt(call);
    if (messages === sizedFrom) return;
    if (sizedFrom) {
      // Blocks and messages built at the earlier sizes are built again.
      memo = new WeakMap();
      messageMemo = new WeakMap();
      byFirstBlock = new WeakMap();
      prev = undefined;
    }
    sizedFrom = messages;
    for (const m of messages) for (const b of m.blocks) sized.set(b.id, b);
  };
  const logBlocks = new Map<string, LogBlock>();
  for (const m of imp.messages) for (const b of m.blocks) logBlocks.set(b.id, b);
  const origJson = new Map<string, string>();
  const restartBlocks = new Set<string>();
  for (const m of fit.messages) if (m.clientRestart) for (const b of m.blocks) restartBlocks.add(b.id);
  let memo = new WeakMap<object, BillBlock>();
  let messageMemo = new WeakMap<object, { role: string; ids: readonly string[]; message: BillMessage }>();
  let byFirstBlock = new WeakMap<BillBlock, BillMessage>();

  const billBlock = (param: Content['param'], logId: string | undefined): BillBlock => {
    const hit = memo.get(param);
    if (hit) return hit;
    const orig = logId ? sized.get(logId) : undefined;
    const log = logId ? logBlocks.get(logId) : undefined;
    if (orig && log && sameContent(param, log.param)) {
      memo.set(param, orig);
      return orig;
    }
    const json = blockIdentityJson(param);
    let out: BillBlock;
    if (orig && log) {
      // Different character counts are different bytes: the log block's JSON is needed only when they agree.
      const sameChars = blockChars(param) === blockChars(log.param);
      let o = sameChars ? origJson.get(log.id) : undefined;
      if (sameChars && o === undefined) origJson.set(log.id, (o = blockIdentityJson(log.param)));
      if (sameChars && o === json) out = orig;
      else {
        const scale = blockChars(param) / Math.max(1, blockChars(log.param));
        out = {
          id: `${log.id}~${hashString(json).join('.')}`,
          tokens: orig.tokens * scale,
          thinking: orig.thinking,
          logId,
        };
      }
    } else {
      const thinking = param.type === 'thinking' || param.type === 'redacted_thinking';
      out = { id: `new~${hashString(json).join('.')}`, tokens: blockChars(param) / CHARS_PER_TOKEN, thinking };
    }
    memo.set(param, out);
    return out;
  };

  const bill = new SessionBill(fit.prefixes, fit.prefix);
  const plain = opts.documented ? new SessionBill(fit.prefixes, fit.prefix) : undefined;
  let documentedInputCost = 0;
  const foreign = new Set(fit.foreign);
  const clearedMemo = new WeakMap<BillMessage, { set: ReadonlySet<string>; m: BillMessage }>();
  let inputCost = 0;
  let tokensSent = 0;
  let writeCost = 0;
  let prev:
    | {
        readonly sent: readonly unknown[];
        readonly rows: readonly (readonly string[])[];
        readonly billed: readonly BillMessage[];
      }
    | undefined;
  // Sizes from the fit, never a tokenizer (see usage-tokens.ts); no calibration: the sizes are the usage's.
  const estimator = new UsageSizedTokens(imp, fit.messages, imp.model ?? imp.calls.find((c) => c.model)?.model);
  // Decided as the proxy would: with the client's system prompt and tools in front of the messages.
  // Where the client sent another system prompt than before, the proxy finds the cache cold: a free moment.
  const clientPrefix = clientPrefixOf(fit.prefix);
  const heads = clientHeadKeys(fit, imp);
  const headChanged = (i: number): boolean => i > 0 && heads[i] !== heads[i - 1];
  for (const step of replay(imp, { strategy, config, estimator, calibrate: false, clientPrefix, headChanged })) {
    const i = step.call.index;
    sizesOf(i);
    const body = step.prepared.body;
    // The previous call's bill messages, as far as this request sends the same message objects with the same ids.
    const rows = step.prepared.blockMap.rows;
    let same = 0;
    if (prev)
      for (
        const n = Math.min(prev.sent.length, body.messages.length);
        same < n && prev.sent[same] === body.messages[same] && prev.rows[same] === rows[same];
      )
        same++;
    const messages: BillMessage[] = prev && same > 0 ? prev.billed.slice(0, same) : [];
    for (let mi = same; mi < body.messages.length; mi++) messages.push(billMessage(body.messages[mi], mi));
    prev = { sent: body.messages, rows, billed: messages };
    // One message of a request as the bill sees it.
    function billMessage(m: (typeof body.messages)[number], mi: number): BillMessage {
      const ids = rows[mi] ?? [];
      // An unchanged message keeps its content array from call to call: the same bill message
      // then (so the bill model's per-message memos hold and the call costs what is new).
      const hit = typeof m.content === 'string' ? undefined : messageMemo.get(m.content);
      if (hit && hit.role === m.role && sameIds(hit.ids, ids)) return hit.message;
      const blocks =
        typeof m.content === 'string'
          ? [{ type: 'text', text: m.content } as ContentBlockParam]
          : (m.content as ContentBlockParam[]);
      const built: BillMessage = {
        role: m.role === 'assistant' ? 'assistant' : 'user',
        humanTurn: m.role === 'user' && blocks.some((b) => b.type !== 'tool_result'),
        clientRestart: blocks.some((_, bi) => restartBlocks.has(ids[bi] ?? '')),
        blocks: blocks.map((b, bi) => billBlock(b, ids[bi])),
      };
      // A message the planner copied to mark a breakpoint has new arrays but the same bill blocks:
      // the bill message it had before, so the bill model still sees it unchanged.
      const seen = built.blocks.length ? byFirstBlock.get(built.blocks[0]) : undefined;
      const message = seen && sameBillMessage(seen, built) ? seen : built;
      if (message === built && built.blocks.length) byFirstBlock.set(built.blocks[0], built);
      if (typeof m.content !== 'string') messageMemo.set(m.content, { role: m.role, ids, message });
      return message;
    }
    const ctx = fit.contexts[i];
    // Results the client cleared itself (microcompact) are placeholders in every strategy's request too.
    const sent = withCleared(messages, ctx.cleared, clearedMemo);
    // The message breakpoint the proxy would send: the engine's tail (before messages it held out of the write).
    const tail = lastMessageBreakpoint(step.prepared.breakpoints);
    const breakpointAt = (tail && sent[tail.messageIndex]?.blocks[tail.blockIndex]?.id) ?? fit.placement[i];
    const anchors = anchorIds(step.prepared.breakpoints, tail, sent, messageBudget(fit.prefixes.get(ctx.model)));
    const { now, refresh, ttl } = fit.timings[i];
    const { systemTtl, prefixKey } = ctx;
    const req: BillRequest = {
      now,
      refresh,
      ttl,
      systemTtl,
      prefixKey,
      messages: sent,
      breakpointAt,
      anchors,
      epoch: fit.epochs[i],
      sessionEpoch: fit.sessionEpochs[i],
      earlier: fit.earlier[i],
      othersWarm: fit.othersWarm[i],
      turnEndWrite: fit.turnEndWrites[i],
    };
    // A side request of its own (fit.foreign) costs what it cost, whatever the strategy.
    const s = foreign.has(i) ? fit.steps[i] : bill.step(ctx.model, req);
    // The proxy learns from the usage of what it sent while it has not edited the history (proxy-engine.ts): what
    // the cache lost for no reason its requests show.
    if (!foreign.has(i) && (strategy === 'none' || !step.engine.session.overlayCount))
      step.engine.observeUsage({ ...s.usage, output_tokens: 0 }, step.call.at, step.call.epochStart, true);
    if (plain) {
      const d = foreign.has(i)
        ? s
        : plain.step(ctx.model, {
            now: req.now,
            refresh: req.refresh,
            ttl: req.ttl,
            systemTtl: req.systemTtl,
            prefixKey: req.prefixKey,
            messages: sent,
            breakpointAt: req.breakpointAt,
            earlier: req.earlier,
            othersWarm: req.othersWarm,
            turnEndWrite: req.turnEndWrite,
            anchors,
          });
      if (fit.billed[i]) documentedInputCost += d.cost;
    }
    if (!fit.billed[i]) continue;
    inputCost += s.cost;
    tokensSent += s.totalInput;
    writeCost += s.writeCost;
  }
  return { inputCost, tokensSent, writeCost, ...(plain ? { documentedInputCost } : {}) };
}
