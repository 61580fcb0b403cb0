/**
 * A whole recorded session through the bill model, call by call on the
 * call's own model: a session that switched models (`/model`) or made side
 * calls on another model (Haiku, Sonnet inside an Opus session) has one cache
 * per model (the API keys the cache by model: a switch restarts it) and each
 * call is priced at its model's prices. Each model's inferred system prompt
 * is its own (sizing.ts reads it off that model's first call). The cache
 * rules stay in the shared simulator; this only routes each call to the
 * simulator of its model.
 */
import {
  BillModel,
  type BillBlock,
  type BillMessage,
  type BillRequest,
  type BillStep,
  type InferredPrefix,
  type SpanSink,
} from './bill-model';
import { recordedUsage, type RecordedUsage } from '../import/recorded';
import { callCost } from './recorded';
import { CLEARED_RESULT_TOKENS } from './sizing';

/** What a call's request was built from besides its messages. */
export interface CallContext {
  /** The model the call went to. */
  readonly model: string;
  /** The client version that built its system prompt (undefined: not recorded). */
  readonly prefixKey?: string;
  /** TTL of the system-prompt breakpoints. */
  readonly systemTtl: '5m' | '1h';
  /** Log block ids of tool results the client had cleared by then (microcompact). */
  readonly cleared?: ReadonlySet<string>;
}

export class SessionBill {
  private readonly bills = new Map<string, BillModel>();

  constructor(
    private readonly prefixes: ReadonlyMap<string, InferredPrefix>,
    private readonly fallback: InferredPrefix,
  ) {}

  step(model: string, req: BillRequest, spans?: SpanSink): BillStep {
    let bill = this.bills.get(model);
    if (!bill) this.bills.set(model, (bill = new BillModel(model, this.prefixes.get(model) ?? this.fallback)));
    return bill.step(req, spans);
  }
}

/** The placeholder block a cleared tool result is sent as (same log block, other bytes). */
export function clearedBlock(b: BillBlock): BillBlock {
  return { id: `${b.id}~cleared`, tokens: CLEARED_RESULT_TOKENS, thinking: false, logId: b.logId ?? b.id };
}

/**
 * Messages with the cleared results replaced by their placeholder; untouched
 * messages stay the same objects (the bill model memoizes per message object).
 * `memo` keeps one copy per (message, cleared set).
 */
export function withCleared(
  messages: readonly BillMessage[],
  cleared: ReadonlySet<string> | undefined,
  memo: WeakMap<BillMessage, { set: ReadonlySet<string>; m: BillMessage }>,
): readonly BillMessage[] {
  if (!cleared?.size) return messages;
  return messages.map((m) => {
    if (!m.blocks.some((b) => cleared.has(b.logId ?? b.id))) return m;
    const hit = memo.get(m);
    if (hit && hit.set === cleared) return hit.m;
    const out: BillMessage = {
      ...m,
      blocks: m.blocks.map((b) => (cleared.has(b.logId ?? b.id) ? clearedBlock(b) : b)),
    };
    memo.set(m, { set: cleared, m: out });
    return out;
  });
}

/**
 * A call priced as recorded, in every strategy alike: a side request on another
 * model that did not send the session's history (nothing of it to trim or to
 * simulate). `usage` without a TTL split counts its writes as 5-minute ones.
 */
export function recordedStep(
  model: string,
  usage:
    | RecordedUsage
    | { input_tokens: number; cache_creation_input_tokens?: number | null; cache_read_input_tokens?: number | null },
): BillStep {
  const u: RecordedUsage =
    'cache_creation' in usage && usage.cache_creation
      ? (usage as RecordedUsage)
      : recordedUsage({ ...usage, output_tokens: 0 });
  const cost = callCost(model, { ...u, output_tokens: 0 }).input;
  const writeCost = callCost(model, { ...u, input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 }).input;
  const usageOut = {
    input_tokens: u.input_tokens,
    cache_creation_input_tokens: u.cache_creation_input_tokens,
    cache_read_input_tokens: u.cache_read_input_tokens,
    cache_creation: { ...u.cache_creation },
  };
  const totalInput = u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
  return {
    usage: usageOut,
    cost,
    writeCost,
    totalInput,
    readTokens: u.cache_read_input_tokens,
    writtenUpTo: u.cache_read_input_tokens + u.cache_creation_input_tokens,
  };
}
