/**
 * The report's output contract (`trimline report --json`, the report view).
 * Costs in US dollars; "input-side" = uncached input + cache writes + cache reads.
 */

/** A tool result that cost the most over the calls that re-sent it (computed in src/core/report/offenders.ts). */
export interface Offender {
  readonly file: string;
  readonly tool: string;
  /** File path, command, pattern or URL the call was about. */
  readonly target: string;
  readonly tokens: number;
  /** Calls that sent it after the first. */
  readonly timesResent: number;
  /** USD over all the calls that sent it. */
  readonly dollars: number;
}

/** How far `none` reproduces the bill of a session. */
export interface SessionFit {
  /**
   * `anchored`: `none` replayed against the recorded usage lands within ±5% of the bill
   * ({@link ANCHOR_TOLERANCE}); `loose`: replayed, but further off (the notes say what the model
   * could not follow; its savings are left out of the headline); otherwise why there is no replay.
   */
  readonly status: 'anchored' | 'loose' | 'no-usage' | 'not-replayable';
  /** Simulated `none` input-side cost / recorded input-side cost − 1. */
  readonly error: number | null;
  /**
   * Median over calls of |simulated − recorded| / recorded total input (sizes are read off the usage,
   * so near 0 unless the history did not fit).
   */
  readonly medianCallTotalError: number | null;
  /** Median over calls of |simulated − recorded| / recorded input-side cost. */
  readonly medianCallCostError: number | null;
  /**
   * Share of the recorded input-side cost that following the recording's own
   * cache invalidations adds to the fit (calls that read only the system
   * prompt where the documented rules keep the messages cached); 0 when none.
   */
  readonly unexplainedShare: number | null;
  /**
   * The fit with the documented cache rules alone (not following the recording's own invalidations); equals `error`
   * when there were none.
   */
  readonly unanchoredError: number | null;
  /** What the model could not follow (client rewrites, cache misses the transcript does not explain). */
  readonly notes: readonly string[];
}

export interface RecordedSpend {
  readonly inputCost: number;
  readonly outputCost: number;
  readonly inputTokens: number;
  readonly cacheWriteTokens: number;
  readonly cacheWrite1hTokens: number;
  readonly cacheReadTokens: number;
  readonly outputTokens: number;
  /**
   * Steps billed apart inside calls (compaction iterations, `usage.iterations`), USD; included in inputCost/outputCost,
   * not in the token counts.
   */
  readonly iterationCost: number;
}

export interface StrategyResult {
  /** Input-side cost, USD (steps billed apart inside calls, compaction iterations, carried as recorded). */
  readonly inputCost: number;
  /** Of it, cache writes. */
  readonly writeCost?: number;
  /**
   * The same priced with the documented cache rules alone (not following the misses the recording does
   * not explain); present only where the fit followed such misses.
   */
  readonly documentedInputCost?: number;
  /** Why this strategy costs more than `none`, when it does. */
  readonly dearerBecause?: string;
  /** Total input tokens sent over the calls. */
  readonly tokensSent: number;
  /** tokensSent / tokensSent of `none`. */
  readonly retention: number;
}

/**
 * Recorded usage of the calls in one 15-minute UTC slot (every time zone's offset is a multiple of 15 minutes,
 * so slots group exactly into local days, weeks and months; src/views/report-periods.ts).
 * Tokens are the top-level usage counts (ccusage's); a call is placed by its response's first line.
 */
export interface UsageSlot {
  /** Start of the slot, ISO 8601 UTC. */
  readonly start: string;
  readonly calls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheWriteTokens: number;
  readonly cacheReadTokens: number;
  readonly inputCost: number;
  readonly outputCost: number;
}

/** One cause of cache misses (the rule `report --explain` names per call) and what the misses it caused cost. */
export interface MissCause {
  readonly cause: string;
  /** Calls where it re-wrote what the previous call on the same model had cached. */
  readonly calls: number;
  /** Tokens re-written, and their cost as writes (or uncached input) over their cost as cache reads, USD. */
  readonly tokens: number;
  readonly dollars: number;
}

export interface SessionReport {
  readonly file: string;
  readonly sessionId?: string;
  /** The working directory the transcript records (Claude Code's `cwd`). */
  readonly cwd?: string;
  /** Recorded usage by time (for `--by day|week|month`). */
  readonly slots?: readonly UsageSlot[];
  /** Cache misses by cause (rows without a fit have none). */
  readonly misses?: readonly MissCause[];
  readonly sidechain: boolean;
  readonly agentId?: string;
  /** The model most calls went to. */
  readonly model: string;
  /** Other models this row's calls went to (a `/model` switch, side calls), each priced at its own prices. */
  readonly otherModels?: readonly string[];
  /** Billed calls (responses counted in this row). */
  readonly calls: number;
  readonly firstTimestamp?: string;
  readonly fit: SessionFit;
  readonly recorded: RecordedSpend;
  readonly strategies: Readonly<Record<string, StrategyResult>>;
  readonly offenders: readonly Offender[];
  /** Responses already counted in another row (copied lines of a resumed session). */
  readonly duplicates: number;
}

export interface Skipped {
  readonly file: string;
  readonly reason: string;
}

export interface ReportTotals {
  readonly sessions: number;
  readonly calls: number;
  readonly recorded: RecordedSpend;
  /** Per strategy, summed over sessions where it was priced. */
  readonly strategies: Readonly<Record<string, { inputCost: number; tokensSent: number; retention: number }>>;
  /** Recorded input-side cost of the sessions where `none` is anchored (the base the savings are measured on). */
  readonly anchoredRecordedInputCost: number;
  /** Anchored sessions, and per strategy its input-side cost summed over them (the headline saving). */
  readonly anchored: {
    readonly sessions: number;
    /** Share of the recorded input-side cost they cover. */
    readonly share: number;
    /** Simulated `none` over them. */
    readonly noneInputCost: number;
    readonly strategies: Readonly<Record<string, { inputCost: number; documentedInputCost: number }>>;
  };
  /** Sessions replayed whose fit is loose (beyond ±5%), and their recorded input-side cost. */
  readonly loose: { readonly sessions: number; readonly recordedInputCost: number };
  readonly offenders: readonly Offender[];
  readonly badLines: number;
}

/** Totals of one day, week (starting Monday) or month in a time zone. */
export interface PeriodTotals {
  /** `YYYY-MM-DD` (day; the Monday of a week) or `YYYY-MM` (month). */
  readonly period: string;
  /** Sessions with a call in the period. */
  readonly sessions: number;
  readonly calls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheCreationTokens: number;
  readonly cacheReadTokens: number;
  readonly totalTokens: number;
  /** Recorded cost (input side + output), USD. */
  readonly totalCost: number;
  readonly inputCost: number;
  /**
   * Per strategy, its input-side cost: each session's simulated cost spread over the periods of its calls in
   * proportion to their recorded input-side cost (a strategy is priced per session, not per call).
   */
  readonly strategies: Readonly<Record<string, number>>;
}

export interface PeriodReport {
  readonly by: 'day' | 'week' | 'month';
  /** IANA time zone the periods are in. */
  readonly timezone: string;
  readonly rows: readonly PeriodTotals[];
}

export interface Report {
  readonly sessions: SessionReport[];
  /** Present when `--by` asked for it. */
  readonly periods?: PeriodReport;
  readonly totals: ReportTotals;
  readonly skipped: Skipped[];
  readonly strategies: readonly string[];
  /** The paths the report looked in (said when nothing was found). */
  readonly searched?: readonly string[];
  /** Said in every output: what the counterfactual is. */
  readonly note: string;
}

/** `none` within this share of the bill: the session is anchored, and its savings count in the headline. */
export const ANCHOR_TOLERANCE = 0.05;

/** The honest counterfactual, in one sentence every output repeats. */
export const COUNTERFACTUAL_NOTE =
  'Counterfactual: the same recorded responses, replayed with the requests each strategy would have sent; ' +
  'every strategy is priced on the same inferred system/tools prefix and cache rules as `none`, which is checked ' +
  'against the recorded bill (fit).';
