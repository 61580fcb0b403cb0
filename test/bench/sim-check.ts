/**
 * Cross-check of the engine's cache simulator (src/core/cache/simulator.ts)
 * against the independent one (reference-cache-sim.ts) on the same requests, and
 * the ladder from the benchmark as it was to the benchmark as it is: one
 * assumption changed per step, each step priced by both simulators, so every
 * difference between "the bench says" and "a skeptic measures" has a number.
 */
import { CacheSimulator, type CacheSimulatorOptions } from '../../src/core/cache/simulator';
import { costOf } from '../../src/core/cache/cost';
import { totalInput } from '../../src/core/session/types';
import type { RequestBody } from '../../src/core/api/wire';
import type { TokenAccountant } from '../../src/core/tokens/types';
import { priceRequests, type Priced, type SentRequest } from './engine-bench';
import { ReferenceCache, type RefRequest } from './reference-cache-sim';
import { isContentBlock, type BenchSession } from './session-setup';

/** The off-by-one the engine's simulator had: the breakpoint plus 20 earlier positions. */
const LEGACY_LOOKBACK = 21;
const FIVE_MINUTES_MS = 5 * 60_000;
/** The skeptic priced every session as Sonnet. */
const SONNET = 'claude-sonnet-4-5';

export interface Step {
  label: string;
  /** Old rule set of the engine's simulator (lookback 21, thinking billed) vs the API's. */
  lookback: number;
  dropThinking: boolean;
  requestTimes: boolean;
  clientPrefix: boolean;
  /** Follow the recording where the client changed its messages unseen (session-setup.ts). */
  clientInvalidations?: boolean;
  priceAs?: string;
}

export const LADDER: readonly Step[] = [
  {
    label: "1. frozen token meter (was: the engine's online estimator)",
    lookback: LEGACY_LOOKBACK,
    dropThinking: false,
    requestTimes: false,
    clientPrefix: false,
  },
  {
    label: '2. + request times (was: response timestamps)',
    lookback: LEGACY_LOOKBACK,
    dropThinking: false,
    requestTimes: true,
    clientPrefix: false,
  },
  {
    label: "3. + the client's unrecorded prefix",
    lookback: LEGACY_LOOKBACK,
    dropThinking: false,
    requestTimes: true,
    clientPrefix: true,
  },
  {
    label: '4. + lookback of 20 positions (was 21)',
    lookback: 20,
    dropThinking: false,
    requestTimes: true,
    clientPrefix: true,
  },
  {
    label: "5. + earlier turns' thinking dropped, thinking removed for caching (Sonnet 4.5)",
    lookback: 20,
    dropThinking: true,
    requestTimes: true,
    clientPrefix: true,
  },
  {
    label: "6. + the recording's own message invalidations (reads of the system prompt alone) = the bench now",
    lookback: 20,
    dropThinking: true,
    requestTimes: true,
    clientPrefix: true,
    clientInvalidations: true,
  },
  {
    label: "7. every session at Sonnet prices (the skeptic's pricing)",
    lookback: 20,
    dropThinking: true,
    requestTimes: true,
    clientPrefix: true,
    clientInvalidations: true,
    priceAs: SONNET,
  },
];

export interface StepResult {
  bench: Priced;
  refCost: number;
  refTokens: number;
  /** Calls where the two simulators disagree on read, write or total tokens. */
  mismatches: number;
  firstMismatch?: string;
}

function simOptions(st: Step): CacheSimulatorOptions {
  return { lookbackBlocks: st.lookback, dropsEarlierThinking: st.dropThinking ? undefined : () => false };
}

/** Price the requests under one ladder step with both simulators, call by call. */
export function checkStep(s: BenchSession, requests: readonly SentRequest[], st: Step): StepResult {
  const timeOf = (r: SentRequest): number => (st.requestTimes ? r.at : r.replayNow);
  const bench = priceRequests(s, requests, {
    sim: simOptions(st),
    priceAs: st.priceAs,
    timeOf,
    withoutClientPrefix: !st.clientPrefix,
    withoutClientInvalidations: !st.clientInvalidations,
  });
  const ref = new ReferenceCache({
    tokensOf: s.tokensOf,
    priceAs: st.priceAs,
    lookback: st.lookback,
    dropsEarlierThinking: st.dropThinking ? undefined : () => false,
  });
  let refCost = 0;
  let refTokens = 0;
  let mismatches = 0;
  let firstMismatch: string | undefined;
  requests.forEach((r, i) => {
    const at = timeOf(r);
    if (st.clientPrefix && s.sharedPrefixRequest) ref.call(s.sharedPrefixRequest as unknown as RefRequest, at);
    if (st.clientInvalidations && s.clientInvalidations.has(r.call)) ref.invalidateMessages();
    const body = (st.clientPrefix ? r.body : { ...r.body, system: undefined }) as unknown as RefRequest;
    const u = ref.call(body, at);
    refCost += u.cost;
    refTokens += u.total;
    const b = bench.perCall[i];
    const same =
      b.cache_read_input_tokens === u.read &&
      b.cache_creation_input_tokens === u.write5m + u.write1h &&
      b.input_tokens === u.uncached;
    if (!same) {
      mismatches++;
      firstMismatch ??= `call ${i}: engine sim read ${b.cache_read_input_tokens} write ${b.cache_creation_input_tokens} input ${b.input_tokens}; reference read ${u.read} write ${u.write5m + u.write1h} input ${u.uncached}`;
    }
  });
  return { bench, refCost, refTokens, mismatches, firstMismatch };
}

/** The benchmark's pricing before this change: the engine's estimator as it learned during the replay. */
export function legacyPricer(model: string): { step(body: RequestBody, tokens: TokenAccountant, at: number): number } {
  const sim = new CacheSimulator({ lookbackBlocks: LEGACY_LOOKBACK, dropsEarlierThinking: () => false });
  return {
    step(body, tokens, at) {
      const tokensOf = (block: object): number =>
        isContentBlock(block) ? tokens.block(block).tokens : tokens.text(JSON.stringify(block)).tokens;
      const u = sim.step({ ...body, system: undefined }, tokensOf, at);
      return costOf({ ...u, output_tokens: 0 }, model).total;
    },
  };
}

export interface TimingFacts {
  calls: number;
  /** Calls whose previous request was ≥ 5 minutes earlier, by request times and by response timestamps. */
  expiredByRequest: number;
  expiredByResponse: number;
  /** Calls on which the two clocks disagree about expiry. */
  flips: number;
}

export function timingFacts(s: BenchSession): TimingFacts {
  let expiredByRequest = 0;
  let expiredByResponse = 0;
  let flips = 0;
  for (let i = 1; i < s.requestTimes.length; i++) {
    const a = s.requestTimes[i] - s.requestTimes[i - 1] >= FIVE_MINUTES_MS;
    const b = s.responseTimes[i] - s.responseTimes[i - 1] >= FIVE_MINUTES_MS;
    if (a) expiredByRequest++;
    if (b) expiredByResponse++;
    if (a !== b) flips++;
  }
  return { calls: s.requestTimes.length, expiredByRequest, expiredByResponse, flips };
}

export interface Recorded {
  /** USD, input side, from the recorded usage (each call at its own model's prices). */
  cost: number;
  tokens: number;
  read: number;
}

/** What the session cost as recorded: the yardstick the simulated `none` should reproduce. */
export function recordedCost(s: BenchSession): Recorded {
  let cost = 0;
  let tokens = 0;
  let read = 0;
  for (const c of s.imp.calls) {
    if (!c.usage) continue;
    cost += costOf({ ...c.usage, output_tokens: 0 }, c.model ?? s.model).total;
    tokens += totalInput(c.usage);
    read += c.usage.cache_read_input_tokens ?? 0;
  }
  return { cost, tokens, read };
}
