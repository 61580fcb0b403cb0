/**
 * The calls of a session as the inspector charts them: per call the tokens sent, read
 * from the cache and what would have been sent untrimmed, with the input cost; the diff
 * of every call against the one before; and the price of the next request.
 *
 * Pricing the next request must not commit it to the cache simulation (the user may
 * pin and trim many times before it is sent), and the simulator cannot be copied, so
 * a fresh simulator replays the last {@link PRICING_REPLAY_CALLS} recorded requests
 * and then the candidate. Cache entries live minutes, and every later call re-writes
 * or refreshes what it uses, so older requests do not change the result in practice.
 */
import type { CallPoint, RequestDiff } from '../../protocol';
import { costOf, type Cost } from '../cache/cost';
import { CacheSimulator, type CacheUsage } from '../cache/simulator';
import type { PreparedCall } from '../engine/context-engine';
import { CostLedger } from '../engine/cost-ledger';
import type { BlockMap } from '../request/build';
import type { CacheTtl, RequestBody } from '../api/wire';
import type { Session } from '../session/session';
import { totalInput, type CallUsage } from '../session/types';
import type { TokenAccountant } from '../tokens/types';
import { diffFlat } from './diff';
import { flatTokens, flattenRequest, refOf, type FlatBlock } from './flat';

/** Recorded requests replayed to price the next one (see the module comment). */
export const PRICING_REPLAY_CALLS = 48;

export interface PricedRequest {
  usage: CacheUsage;
  cost: Cost;
  flat: FlatBlock[];
  /** Flat index of the last block read from the cache, or -1. */
  readPosition: number;
}

/**
 * The last request of an earlier epoch of the same client session (another log): the first
 * call here is compared with it.
 */
export interface Predecessor {
  readonly call: number;
  readonly flat: readonly FlatBlock[];
  /** Names of its block ids (in its own log). */
  readonly refOf: (id: string) => string;
}

interface Recorded {
  readonly call: number;
  readonly body: RequestBody;
  readonly now: number;
  readonly flat: FlatBlock[];
}

export class CallHistory {
  /** Simulated cost of every recorded request (cache reads and writes as the API would bill them). */
  readonly ledger: CostLedger;
  readonly points: CallPoint[] = [];
  /** diffs[i]: the i-th recorded call versus the one before it (see {@link diffOf} by call number). */
  readonly diffs: RequestDiff[] = [];
  /** The earlier epoch's last request, until this history records its own. */
  private predecessor?: Predecessor;
  private readonly recent: Recorded[] = [];
  private totals = { input: 0, cacheRead: 0, cost: 0 };
  private memo?: { body: RequestBody; now: number; priced: PricedRequest };
  /** Token counts per block object, valid until the next recorded call (which may recalibrate). */
  private counts = new WeakMap<object, number>();

  constructor(
    readonly session: Session,
    readonly model: string,
    readonly tokens: TokenAccountant,
    readonly ttl: CacheTtl = '5m',
  ) {
    this.ledger = new CostLedger(model, tokens, ttl);
  }

  /** Tokens of one request block (memoized per object; pricing replays count the same blocks many times). */
  readonly tokensOf = (param: object): number => {
    let n = this.counts.get(param);
    if (n === undefined) this.counts.set(param, (n = flatTokens(this.tokens, param)));
    return n;
  };

  /** Number of recorded calls. */
  get length(): number {
    return this.points.length;
  }

  /**
   * The number the next call gets: calls are numbered as the journal and the verdicts number
   * them (a proxied client session's lineage, across its epochs), one after the last recorded.
   */
  get nextCall(): number {
    const last = this.points.at(-1)?.call ?? this.predecessor?.call;
    return last === undefined ? 0 : last + 1;
  }

  /** The diff of the recorded call with this number. */
  diffOf(call: number): RequestDiff | undefined {
    for (let i = this.diffs.length - 1; i >= 0; i--) if (this.diffs[i].call === call) return this.diffs[i];
    return undefined;
  }

  /** This session continues an earlier epoch: its first call is compared with that epoch's last request. */
  continues(p: Predecessor | undefined): void {
    if (p && this.points.length === 0) this.predecessor = p;
  }

  /** The last recorded request, for the epoch after this one. */
  lastRequest(): Predecessor | undefined {
    const last = this.recent.at(-1);
    return last && { call: last.call, flat: last.flat, refOf: (id) => refOf(this.session, id) };
  }
  /** Session input cost (USD) and share of input read from the cache. */
  get sessionCost(): number {
    return this.totals.cost;
  }
  get hitRatio(): number {
    return this.totals.input ? this.totals.cacheRead / this.totals.input : 0;
  }

  /**
   * Record a request that was sent. `usage` is the API's real usage when known (live
   * sessions); otherwise the simulated usage is charted.
   */
  record(prepared: PreparedCall, now: number, usage?: CallUsage, call = this.nextCall): CallPoint {
    const entry = this.ledger.step(prepared.body, now);
    const real = usage
      ? {
          input: totalInput(usage),
          cacheRead: usage.cache_read_input_tokens ?? 0,
          cost: costOf({ ...usage, output_tokens: 0 }, this.model, this.ttl).total,
        }
      : undefined;
    const sent = real?.input ?? entry.totalInput;
    const cached = real?.cacheRead ?? entry.usage.cache_read_input_tokens;
    const cost = real?.cost ?? entry.cost.total;
    const point: CallPoint = {
      call,
      sent,
      cached,
      untrimmed: sent + Math.max(0, prepared.stats.untrimmedTokens - prepared.stats.sentTokens),
      cost,
    };
    this.points.push(point);
    this.totals = {
      input: this.totals.input + sent,
      cacheRead: this.totals.cacheRead + cached,
      cost: this.totals.cost + cost,
    };
    const flat = flattenRequest(prepared.body, prepared.blockMap);
    this.diffs.push(this.diffAgainstLast(flat, call));
    this.recent.push({ call, body: prepared.body, now, flat });
    if (this.recent.length > PRICING_REPLAY_CALLS) this.recent.shift();
    this.memo = undefined;
    this.counts = new WeakMap();
    return point;
  }

  /** Diff of a request (recorded or candidate) against the last recorded one. */
  diffAgainstLast(flat: readonly FlatBlock[], call: number): RequestDiff {
    const last = this.recent.at(-1);
    const o = { call, refOf: (id: string) => refOf(this.session, id), tokensOf: this.tokensOf };
    if (last) return diffFlat(last.flat, flat, { ...o, previous: last.call });
    const p = this.predecessor;
    if (p) return diffFlat(p.flat, flat, { ...o, previous: p.call, acrossEpochs: { refOfPrevious: p.refOf } });
    return diffFlat([], flat, o);
  }

  /** Diff of the next request (not recorded) against the last recorded one. */
  diffNext(body: RequestBody, blockMap: BlockMap): RequestDiff {
    return this.diffAgainstLast(flattenRequest(body, blockMap), this.nextCall);
  }

  /** What the next request would cost if sent at `now`, without recording it. */
  priceNext(body: RequestBody, blockMap: BlockMap, now: number): PricedRequest {
    if (this.memo && this.memo.body === body && this.memo.now === now) return this.memo.priced;
    // Rows and composition still count earlier turns' thinking, so the simulator must too
    // until they learn the model's rule (Sonnet 4.5 drops it: see cache/simulator.ts).
    const sim = new CacheSimulator({ dropsEarlierThinking: () => false });
    for (const r of this.recent) sim.step(r.body, this.tokensOf, r.now);
    const usage = sim.step(body, this.tokensOf, now);
    const cost = costOf({ ...usage, output_tokens: 0 }, this.model, this.ttl);
    const priced: PricedRequest = {
      usage,
      cost,
      flat: flattenRequest(body, blockMap),
      readPosition: sim.lastTrace?.readPosition ?? -1,
    };
    this.memo = { body, now, priced };
    return priced;
  }

  /** Time of the last recorded call (ms), if any. */
  lastCallAt(): number | undefined {
    return this.recent.at(-1)?.now;
  }
}
