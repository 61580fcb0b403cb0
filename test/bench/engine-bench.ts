/**
 * Cost and quality of every strategy on every shared transcript with ≥ 10 calls:
 * tokens sent, simulated cost with prompt caching as the API prices it (the
 * client's unrecorded prefix included, 5-minute TTL between request times,
 * 20-block lookback, per-model minimum, earlier turns' thinking dropped where the
 * model drops it), cache hit ratio, invalid requests, and reference retention.
 * The requests of each run are kept so other sections (cross-check, oracle) can
 * price them again.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { costOf } from '../../src/core/cache/cost';
import {
  CacheSimulator,
  type CacheSimulatorOptions,
  type CacheUsage,
  type SimRequest,
} from '../../src/core/cache/simulator';
import { replay } from '../../src/core/engine';
import { importTranscript } from '../../src/core/import';
import { RequestRefusedError } from '../../src/core/request/build';
import type { RequestBody } from '../../src/core/api/wire';
import { checkUserText } from '../../src/core/request/user-text-check';
import { userTextRequired } from '../../src/core/request/user-text-carried';
import { validateRequest } from '../../src/core/request/validate';
import type { ContentBlockParam, ImportedSession } from '../../src/core/session/types';
import type { TokenAccountant } from '../../src/core/tokens/types';
import type { PipelineConfig } from '../../src/core/trimming';
import { reportPrice } from './report-price';
import { RetentionTracker } from './retention';
import type { BenchSession } from './session-setup';

export const MIN_CALLS = 10;

export interface Contender {
  name: string;
  spec: string;
  config?: PipelineConfig;
}

export const CONTENDERS: readonly Contender[] = [
  { name: 'none', spec: 'none' },
  { name: 'default', spec: 'default' },
  { name: 'default (cache-aware off)', spec: 'default', config: { cacheAware: { enabled: false } } },
  { name: 'supersede-stale-reads', spec: 'supersede-stale-reads' },
  { name: 'summarize-tool-results', spec: 'summarize-tool-results' },
  { name: 'tool-pruning', spec: 'tool-pruning' },
  {
    name: 'atomic-window (100k)',
    spec: 'atomic-window',
    config: { strategies: { 'atomic-window': { maxTokens: 100_000 } } },
  },
  { name: 'anchor: anthropic clear_tool_uses', spec: 'anthropic-clear-tool-uses' },
  { name: 'anchor: opencode prune', spec: 'opencode-prune' },
  { name: 'anchor: openai ToolOutputTrimmer', spec: 'openai-tool-output-trimmer' },
  { name: 'anchor: strands window 40', spec: 'strands-window' },
];

export interface InvalidRequest {
  call: number;
  rule: string;
  message: string;
}

export interface Row {
  transcript: string;
  contender: string;
  calls: number;
  tokensSent: number;
  inputCost: number;
  hitRatio: number;
  invalid: number;
  invalidList: InvalidRequest[];
  needed: number;
  retained: number;
  retention: number;
  /** User text (session/user-text.ts) the requests had to carry, and what they carried verbatim. */
  userTextNeeded: number;
  userTextKept: number;
  /** Calls whose request lost some user text. */
  callsLosingUserText: number;
  /** Input cost priced with the documented rules alone (not following the recording's unexplained misses). */
  inputCostUnanchored: number;
  /**
   * Who priced inputCost: `report` (the report's figure for this file and strategy, report-price.ts) or
   * `simulator` (a file the report cannot price, e.g. one without recorded usage: the bench's own replay priced).
   */
  pricedBy: 'report' | 'simulator';
  /** The bench's own replay priced by the engine's cache simulator (the cross-check's input), USD. */
  simulatedCost: number;
  ms: number;
}

/** One replayed call: the request as the engine built it and when it was sent. */
export interface SentRequest {
  body: RequestBody;
  at: number;
  /** The replay's own clock (the recorded response time), for comparisons. */
  replayNow: number;
  /** The recorded call this request replays. */
  call: number;
}

export interface Run {
  row: Row;
  requests: SentRequest[];
}

/** The shared set the engine sections read: m-claude, or another one named by TRIMLINE_BENCH_SET (e.g. entire-dev). */
export function transcriptsDir(): string {
  return join(process.cwd(), '..', 'shared', 'data', 'transcripts', process.env.TRIMLINE_BENCH_SET ?? 'm-claude');
}

export function benchTranscripts(dir = transcriptsDir()): ImportedSession[] {
  const out: ImportedSession[] = [];
  for (const f of readdirSync(dir)
    .filter((x) => x.endsWith('.jsonl'))
    .sort()) {
    try {
      const imp = importTranscript(join(dir, f));
      if (imp.calls.length >= MIN_CALLS) out.push(imp);
    } catch {
      // Files that are not conversations (summaries only) are not benchmark inputs.
    }
  }
  return out;
}

/**
 * Thinking of the last assistant message recorded before `at` (undefined when it was interrupted: then it is not sent
 * whole).
 */
export function latestThinking(imp: ImportedSession, from: number, at: number): ContentBlockParam[] | undefined {
  for (let p = at - 1; p >= from; p--) {
    const m = imp.messages[p];
    if (m.role !== 'assistant') continue;
    if (m.meta.interrupted) return undefined;
    return m.blocks.filter((b) => b.kind === 'thinking' || b.kind === 'redacted_thinking').map((b) => b.param);
  }
  return undefined;
}

/** Replay one contender over one session; every request is validated and kept. */
export interface RunOptions {
  /** Price the requests (default true). */
  simulate?: boolean;
  /** Called with every request while the engine is at that call (its estimator as it was then). */
  onStep?: (body: RequestBody, engineTokens: TokenAccountant, replayNow: number) => void;
}

/** The contenders' specs that share `c`'s config: the report prices them in one pass. */
function sameConfig(c: Contender): string[] {
  const k = JSON.stringify(c.config ?? {});
  return CONTENDERS.filter((x) => JSON.stringify(x.config ?? {}) === k).map((x) => x.spec);
}

export function runOne(s: BenchSession, c: Contender, opts: RunOptions = {}): Run {
  const t0 = performance.now();
  const { imp } = s;
  const retention = new RetentionTracker();
  const invalidList: InvalidRequest[] = [];
  const requests: SentRequest[] = [];
  let invalid = 0;
  let userTextNeeded = 0;
  let userTextKept = 0;
  let callsLosingUserText = 0;
  try {
    for (const step of replay(imp, { strategy: c.spec, config: c.config })) {
      const body = step.prepared.body;
      requests.push({ body, at: s.requestTimes[step.call.index], replayNow: step.now, call: step.call.index });
      opts.onStep?.(body, step.engine.tokens, step.now);
      // Every rule, the user-text one included (the protected blocks the replayed session says this request must
      // carry).
      const userText = userTextRequired(step.engine.session, step.call.epochStart, step.call.at);
      const v = validateRequest(body, {
        model: body.model,
        latestAssistantThinking: latestThinking(imp, step.call.epochStart, step.call.at),
        userText,
      });
      if (v.length) {
        invalid++;
        for (const x of v) invalidList.push({ call: step.call.index, rule: x.rule, message: x.message });
      }
      retention.check(imp.messages, step.call.at, body);
      const ut = checkUserText(imp.messages, step.call.epochStart, step.call.at, body.messages);
      userTextNeeded += ut.needed;
      userTextKept += ut.kept;
      if (ut.kept < ut.needed) callsLosingUserText++;
    }
  } catch (e) {
    if (!(e instanceof RequestRefusedError)) throw e;
    // The engine refused to build a request: every call from here on is counted invalid.
    invalid += imp.calls.length - requests.length;
    for (const x of e.violations)
      invalidList.push({ call: requests.length, rule: x.rule, message: `refused: ${x.message}` });
  }
  const priced = opts.simulate === false ? undefined : priceRequests(s, requests);
  const billed = opts.simulate === false ? undefined : reportPrice(imp.file, c.spec, c.config, sameConfig(c));
  const unanchored =
    opts.simulate === false || billed ? undefined : priceRequests(s, requests, { withoutClientInvalidations: true });
  const row: Row = {
    transcript: s.name,
    contender: c.name,
    calls: imp.calls.length,
    tokensSent: priced?.tokens ?? 0,
    inputCost: billed?.inputCost ?? priced?.cost ?? 0,
    hitRatio: priced && priced.tokens ? priced.read / priced.tokens : 0,
    invalid,
    invalidList,
    needed: retention.needed,
    retained: retention.retained,
    retention: retention.ratio(),
    userTextNeeded,
    userTextKept,
    callsLosingUserText,
    inputCostUnanchored: billed?.documentedInputCost ?? unanchored?.cost ?? 0,
    pricedBy: billed ? 'report' : 'simulator',
    simulatedCost: priced?.cost ?? 0,
    ms: performance.now() - t0,
  };
  return { row, requests };
}

export interface Priced {
  cost: number;
  tokens: number;
  read: number;
  /** Tokens after the last written breakpoint (billed as plain input). */
  uncached: number;
  /** Breakpoints whose prefix was below the model's minimum (nothing written there). */
  belowMinimum: number;
  perCall: CacheUsage[];
}

export interface PriceOptions {
  sim?: CacheSimulatorOptions;
  /** Price every call as this model (default: the request's model). */
  priceAs?: string;
  /** Time of each request (default: the request times). */
  timeOf?: (r: SentRequest) => number;
  /** Drop the client prefix from the bodies (what the benchmark did before it was measured). */
  withoutClientPrefix?: boolean;
  tokensOf?: (block: object) => number;
  /**
   * Ignore the calls where the recording shows the client changed its messages unseen (what the benchmark did before).
   */
  withoutClientInvalidations?: boolean;
}

/**
 * Price a run's requests with the engine's cache simulator. Before each request the
 * client's shared prefix is used once at the same moment (its other sessions keep it
 * cached; the recordings read it even after half-hour pauses); that use is not billed here.
 */
export function priceRequests(s: BenchSession, requests: readonly SentRequest[], o: PriceOptions = {}): Priced {
  const sim = new CacheSimulator(o.sim);
  const tokensOf = o.tokensOf ?? s.tokensOf;
  let cost = 0;
  let tokens = 0;
  let read = 0;
  let uncached = 0;
  let belowMinimum = 0;
  const perCall: CacheUsage[] = [];
  for (const r of requests) {
    const at = o.timeOf ? o.timeOf(r) : r.at;
    const body: SimRequest = o.withoutClientPrefix ? { ...r.body, system: undefined } : r.body;
    if (s.sharedPrefixRequest && !o.withoutClientPrefix) sim.step(s.sharedPrefixRequest, tokensOf, at);
    if (!o.withoutClientInvalidations && s.clientInvalidations.has(r.call)) sim.invalidateMessages();
    const u = sim.step(body, tokensOf, at);
    perCall.push(u);
    cost += costOf({ ...u, output_tokens: 0 }, o.priceAs ?? r.body.model).total;
    tokens += u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
    read += u.cache_read_input_tokens;
    uncached += u.input_tokens;
    belowMinimum += sim.lastTrace?.belowMinimum.length ?? 0;
  }
  return { cost, tokens, read, uncached, belowMinimum, perCall };
}

export interface Aggregate {
  contender: string;
  costVsNone: number;
  tokensVsNone: number;
  retention: number;
  invalid: number;
  hitRatio: number;
  worstCostVsNone: number;
  worstRetention: number;
  /** Share of the user text blocks every request had to carry that it carried verbatim. */
  userText: number;
  callsLosingUserText: number;
  calls: number;
  /** Cost vs none with the documented rules alone (the recordings' unexplained misses not followed). */
  costVsNoneUnanchored: number;
}

/** Totals over all transcripts: cost and tokens relative to `none`, retention pooled. */
export function aggregate(rows: readonly Row[]): Aggregate[] {
  const none = new Map(rows.filter((r) => r.contender === 'none').map((r) => [r.transcript, r]));
  const names = [...new Set(rows.map((r) => r.contender))];
  return names.map((name) => {
    const mine = rows.filter((r) => r.contender === name);
    const cost = mine.reduce((s, r) => s + r.inputCost, 0);
    const noneCost = mine.reduce((s, r) => s + (none.get(r.transcript)?.inputCost ?? 0), 0);
    const tokens = mine.reduce((s, r) => s + r.tokensSent, 0);
    const noneTokens = mine.reduce((s, r) => s + (none.get(r.transcript)?.tokensSent ?? 0), 0);
    const needed = mine.reduce((s, r) => s + r.needed, 0);
    const retained = mine.reduce((s, r) => s + r.retained, 0);
    const reads = mine.reduce((s, r) => s + r.hitRatio * r.tokensSent, 0);
    const utNeeded = mine.reduce((s, r) => s + r.userTextNeeded, 0);
    const utKept = mine.reduce((s, r) => s + r.userTextKept, 0);
    const costU = mine.reduce((s, r) => s + r.inputCostUnanchored, 0);
    const noneCostU = mine.reduce((s, r) => s + (none.get(r.transcript)?.inputCostUnanchored ?? 0), 0);
    return {
      contender: name,
      costVsNone: noneCost ? cost / noneCost : 1,
      tokensVsNone: noneTokens ? tokens / noneTokens : 1,
      retention: needed ? retained / needed : 1,
      invalid: mine.reduce((s, r) => s + r.invalid, 0),
      hitRatio: tokens ? reads / tokens : 0,
      worstCostVsNone: Math.max(...mine.map((r) => r.inputCost / (none.get(r.transcript)?.inputCost || 1))),
      worstRetention: Math.min(...mine.map((r) => r.retention)),
      userText: utNeeded ? utKept / utNeeded : 1,
      callsLosingUserText: mine.reduce((s, r) => s + r.callsLosingUserText, 0),
      calls: mine.reduce((s, r) => s + r.calls, 0),
      costVsNoneUnanchored: noneCostU ? costU / noneCostU : 1,
    };
  });
}
