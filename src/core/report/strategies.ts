/**
 * The counterfactual: the same recorded responses, with the requests a
 * strategy would have sent instead. Each request is the replay engine's
 * (src/core/engine/replay.ts); its blocks are priced on the sizes inferred
 * for `none` (an untouched block costs what it cost in the bill; a trimmed
 * one scales with its characters), with the same inferred prefix, the
 * client's breakpoint placement and the same cache rules. So a saving is the
 * strategy's doing, not a different cost model's.
 */
import { hashString } from '../cache/simulator';
import { replay } from '../engine';
import type { ContentBlockParam, ImportedSession, LogBlock } from '../session/types';
import type { PipelineConfig } from '../trimming';
import { BillModel, type BillBlock, type BillMessage, type BillRequest } from './bill-model';
import type { FitResult } from './fit';
import { blockChars, CHARS_PER_TOKEN } from './sizing';
import { UsageSizedTokens } from './usage-tokens';

export interface StrategyCost {
  /** Input-side cost over the billed calls, USD. */
  readonly inputCost: number;
  /** Total input tokens over the billed calls (prefix included). */
  readonly tokensSent: number;
}

interface Content {
  readonly param: ContentBlockParam;
}

/** A block's content without its breakpoint mark. */
function contentJson(b: object): string {
  if (!('cache_control' in b)) return JSON.stringify(b);
  const { cache_control: _mark, ...rest } = b as Record<string, unknown>;
  return JSON.stringify(rest);
}

/** Price a strategy on a session already fitted with {@link fitNone}. */
export function priceStrategy(imp: ImportedSession, model: string, fit: FitResult, strategy: string, config: PipelineConfig): StrategyCost {
  const sized = new Map<string, BillBlock>();
  for (const m of fit.messages) for (const b of m.blocks) sized.set(b.id, b);
  const logBlocks = new Map<string, LogBlock>();
  for (const m of imp.messages) for (const b of m.blocks) logBlocks.set(b.id, b);
  const origJson = new Map<string, string>();
  const restartBlocks = new Set<string>();
  for (const m of fit.messages) if (m.clientRestart) for (const b of m.blocks) restartBlocks.add(b.id);
  const memo = new WeakMap<object, BillBlock>();

  const billBlock = (param: Content['param'], logId: string | undefined): BillBlock => {
    const hit = memo.get(param);
    if (hit) return hit;
    const orig = logId ? sized.get(logId) : undefined;
    const log = logId ? logBlocks.get(logId) : undefined;
    const json = contentJson(param);
    let out: BillBlock;
    if (orig && log) {
      let o = origJson.get(log.id);
      if (o === undefined) origJson.set(log.id, (o = contentJson(log.param)));
      if (o === json) out = orig;
      else {
        const scale = blockChars(param) / Math.max(1, blockChars(log.param));
        out = { id: `${log.id}~${hashString(json).join('.')}`, tokens: orig.tokens * scale, thinking: orig.thinking, logId };
      }
    } else {
      const thinking = param.type === 'thinking' || param.type === 'redacted_thinking';
      out = { id: `new~${hashString(json).join('.')}`, tokens: blockChars(param) / CHARS_PER_TOKEN, thinking };
    }
    memo.set(param, out);
    return out;
  };

  const bill = new BillModel(model, fit.prefix);
  let inputCost = 0;
  let tokensSent = 0;
  // Sizes from the fit, never a tokenizer (see usage-tokens.ts); no calibration: the sizes are the usage's.
  const estimator = new UsageSizedTokens(imp, fit.messages, imp.model ?? imp.calls.find((c) => c.model)?.model);
  for (const step of replay(imp, { strategy, config, estimator, calibrate: false })) {
    const i = step.call.index;
    const body = step.prepared.body;
    const messages: BillMessage[] = body.messages.map((m, mi) => {
      const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content } as ContentBlockParam] : (m.content as ContentBlockParam[]);
      return {
        role: m.role === 'assistant' ? 'assistant' : 'user',
        humanTurn: m.role === 'user' && blocks.some((b) => b.type !== 'tool_result'),
        clientRestart: blocks.some((_, bi) => restartBlocks.has(step.prepared.blockMap.idAt(mi, bi) ?? '')),
        blocks: blocks.map((b, bi) => billBlock(b, step.prepared.blockMap.idAt(mi, bi))),
      };
    });
    const req: BillRequest = { now: fit.timings[i].now, ttl: fit.timings[i].ttl, messages, breakpointAt: fit.placement[i] };
    const s = bill.step(req);
    if (!fit.billed[i]) continue;
    inputCost += s.cost;
    tokensSent += s.totalInput;
  }
  return { inputCost, tokensSent };
}
