/**
 * Strategy specs → pipelines. A spec is `none`, `default`, or a comma list of
 * strategy names; options come from a config object (the CLI's --config file,
 * the extension's settings).
 */
import { ANCHOR_DOCS, AnthropicClearToolUses, OpencodePrune, OpenAIToolOutputTrimmer, strandsWindow } from './anchors';
import { AtomicWindow, WINDOW_DEFAULTS, WINDOW_DOC, type WindowOptions } from './atomic-window';
import { CACHE_AWARE_DEFAULTS, type CacheAwareOptions } from './cache-aware';
import { Pipeline } from './pipeline';
import {
  SUMMARIZE_DEFAULTS,
  SUMMARIZE_DOC,
  SummarizeToolResults,
  type SummarizeOptions,
} from './summarize-tool-results';
import { SUPERSEDE_DEFAULTS, SUPERSEDE_DOC, SupersedeStaleReads, type SupersedeOptions } from './supersede-stale-reads';
import { TOOL_PRUNING_DEFAULTS, TOOL_PRUNING_DOC, ToolPruning, type ToolPruningOptions } from './tool-pruning';
import type { Strategy, StrategyDoc, Trigger } from './types';
import { createCompressionStrategy } from './compression/strategy';
import { COMPRESSION_DOCS } from './compression/options';

export interface PipelineConfig {
  /** Per-strategy options, by strategy name. `trigger` may be a number (fraction of the window) or "always". */
  strategies?: Record<string, Record<string, unknown>>;
  cacheAware?: Partial<CacheAwareOptions>;
}

type Factory = (opts: Record<string, unknown>) => Strategy;

function merged<T extends object>(defaults: T, opts: Record<string, unknown>, name: string): T {
  const out: Record<string, unknown> = { ...(defaults as Record<string, unknown>) };
  for (const [k, v] of Object.entries(opts)) {
    if (k === 'trigger') {
      out.trigger = parseTrigger(v, name);
      continue;
    }
    if (!(k in defaults))
      throw new Error(
        `${name}: unknown option "${k}" (known: ${
          Object.keys(defaults)
            .filter((x) => x !== 'trigger')
            .join(', ') || 'none'
        })`,
      );
    const want = Array.isArray((defaults as Record<string, unknown>)[k])
      ? 'array'
      : typeof (defaults as Record<string, unknown>)[k];
    const got = Array.isArray(v) ? 'array' : typeof v;
    if (want !== got) throw new Error(`${name}: option "${k}" must be a ${want}, got ${got}`);
    out[k] = v;
  }
  return out as T;
}

function parseTrigger(v: unknown, name: string): Trigger {
  if (v === 'always' || v === undefined) return { kind: 'always' };
  if (typeof v === 'number' && v > 0 && v <= 1) return { kind: 'above', fraction: v };
  throw new Error(`${name}: trigger must be "always" or a fraction of the context window in (0, 1]`);
}

const FACTORIES: Record<string, Factory> = {
  'summarize-tool-results': (o) =>
    new SummarizeToolResults(merged<SummarizeOptions>(SUMMARIZE_DEFAULTS, o, 'summarize-tool-results')),
  'supersede-stale-reads': (o) =>
    new SupersedeStaleReads(merged<SupersedeOptions>(SUPERSEDE_DEFAULTS, o, 'supersede-stale-reads')),
  'tool-pruning': (o) => new ToolPruning(merged<ToolPruningOptions>(TOOL_PRUNING_DEFAULTS, o, 'tool-pruning')),
  'atomic-window': (o) => new AtomicWindow(merged<WindowOptions>(WINDOW_DEFAULTS, o, 'atomic-window')),
  // LLM history compression (compression/strategy.ts): a summarizer is attached at runtime (attachSummarizer).
  'whole-history': (o) => createCompressionStrategy('whole-history', o),
  'last-n-messages': (o) => createCompressionStrategy('last-n-messages', o),
  chunked: (o) => createCompressionStrategy('chunked', o),
  'retrieve-facts': (o) => createCompressionStrategy('retrieve-facts', o),
};

/** Other products' defaults, for comparison; they edit on every call, ignoring the cache. */
const ANCHORS: Record<string, () => Strategy> = {
  'anthropic-clear-tool-uses': () => new AnthropicClearToolUses(),
  'opencode-prune': () => new OpencodePrune(),
  'openai-tool-output-trimmer': () => new OpenAIToolOutputTrimmer(),
  'strands-window': strandsWindow,
};

export const STRATEGY_DOCS: readonly StrategyDoc[] = [
  SUPERSEDE_DOC,
  SUMMARIZE_DOC,
  TOOL_PRUNING_DOC,
  WINDOW_DOC,
  ...COMPRESSION_DOCS,
];
export { ANCHOR_DOCS };

/**
 * The recommended pipeline (README, Benchmarks). It never changes the user's own words
 * (session/user-text.ts): only what tools produced, old tool inputs, thinking of closed
 * rounds and duplicates.
 * 1. stale reads first (superseded files, restated todo lists, exact duplicates);
 * 2. prior user turns reduced to prompt + final answer (their tool results and steps go;
 *    the user's words in between stay);
 * 3. tool results, long inputs and thinking older than the last 2 rounds summarized;
 * 4. a safety-net window at 75% of the model's context window (whole tool rounds removed).
 * All of it applied cache-aware: a trim inside the cached prefix waits for a free moment
 * (cache cold anyway) or for a batch whose saving over the expected warm calls pays for
 * the rewrite (cache/break-even.ts).
 */
export const DEFAULT_SPEC = ['supersede-stale-reads', 'tool-pruning', 'summarize-tool-results', 'atomic-window'];
/**
 * Options of `default` that differ from each strategy's own defaults. The parameters left
 * (keepRecentTurns, the prior weight of the expected warm calls, tool-pruning's digest) are
 * chosen leave-one-session-out (`npm run bench`, section "Default parameters").
 */
export const DEFAULT_OPTIONS: Record<string, Record<string, unknown>> = {
  'tool-pruning': { digest: true, digestRefs: 80, dropEarlierThinking: true },
  'summarize-tool-results': { keepTurns: 1 },
};

export function strategyNames(): string[] {
  return [...Object.keys(FACTORIES), ...Object.keys(ANCHORS)];
}

/** Parse a spec (`none`, `default`, `a,b,c`) into a pipeline. Throws one clear line on an unknown name. */
export function createPipeline(spec: string, config: PipelineConfig = {}): Pipeline {
  const names =
    spec === 'none'
      ? []
      : spec === 'default'
        ? DEFAULT_SPEC
        : spec
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean);
  const strategies = names.map((n) => {
    if (ANCHORS[n]) return ANCHORS[n]();
    const f = FACTORIES[n];
    if (!f) throw new Error(`unknown strategy "${n}" (known: none, default, ${strategyNames().join(', ')})`);
    const base = spec === 'default' ? (DEFAULT_OPTIONS[n] ?? {}) : {};
    return f({ ...base, ...(config.strategies?.[n] ?? {}) });
  });
  const onlyAnchors = names.length > 0 && names.every((n) => n in ANCHORS);
  // `none` sends what the client sent, at the client's TTL: it chooses no TTL of its own.
  return new Pipeline(strategies, {
    ...CACHE_AWARE_DEFAULTS,
    enabled: !onlyAnchors,
    adaptiveTtl: names.length > 0 && !onlyAnchors,
    ...config.cacheAware,
  });
}
