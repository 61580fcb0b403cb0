/**
 * Recovery from 400 "prompt is too long": run the most aggressive configured
 * trimming once more, with a hard window sized from the maximum the API reported,
 * then build the request again. The overlays it adds are ordinary strategy
 * overlays (journaled, shown in the inspector, restorable).
 */
import type { ContextEngine } from '../engine/context-engine';
import type { Session } from '../session/session';
import { createPipeline, DEFAULT_OPTIONS, DEFAULT_SPEC, type PipelineConfig } from '../trimming';

/**
 * Share of the reported maximum the emergency window targets: the estimator
 * is calibrated but still only an estimate (cl100k undercounts Claude by about a
 * third before calibration), so leave a wide margin rather than fail twice.
 */
export const EMERGENCY_WINDOW_SHARE = 0.6;
/** Smallest emergency budget, as a share of the maximum, when system and tools already take most of it. */
export const MIN_EMERGENCY_SHARE = 0.1;
const EMERGENCY_STRATEGY = 'atomic-window';

/** Strategy names of a spec, with the emergency window added (`default` expands to its list). */
export function emergencySpec(spec: string): string {
  const names =
    spec === 'none'
      ? []
      : spec === 'default'
        ? [...DEFAULT_SPEC]
        : spec
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean);
  if (!names.includes(EMERGENCY_STRATEGY)) names.push(EMERGENCY_STRATEGY);
  return names.join(',');
}

/** Estimated tokens of what every request carries besides the messages (system prompt and tool definitions). */
function fixedOverhead(session: Session, engine: ContextEngine): number {
  const system =
    typeof session.system === 'string' ? session.system : (session.system ?? []).map((b) => b.text).join('\n');
  const tools = session.tools ? JSON.stringify(session.tools) : '';
  return engine.tokens.text(system).tokens + engine.tokens.text(tools).tokens;
}

/** Token budget for the messages after an overflow of `maximum`. */
export function emergencyBudget(maximum: number, overhead: number): number {
  return Math.max(Math.floor(maximum * EMERGENCY_WINDOW_SHARE) - overhead, Math.floor(maximum * MIN_EMERGENCY_SHARE));
}

/** Per-strategy options as the configured pipeline has them (`default` brings its own defaults). */
function strategyOptions(spec: string, pipeline: PipelineConfig): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = spec === 'default' ? structuredClone(DEFAULT_OPTIONS) : {};
  for (const [name, opts] of Object.entries(pipeline.strategies ?? {})) out[name] = { ...out[name], ...opts };
  return out;
}

export interface EmergencyInput {
  readonly session: Session;
  readonly engine: ContextEngine;
  readonly strategy: string;
  readonly pipeline: PipelineConfig;
  readonly callIndex: number;
  readonly epochStart: number;
  readonly upTo: number;
  readonly maximum: number;
}

/** Apply the emergency trim to the session; returns the budget used and how many overlays it added. */
export function applyEmergencyTrim(input: EmergencyInput): { budget: number; overlaysAdded: number } {
  const { session, engine } = input;
  const budget = emergencyBudget(input.maximum, fixedOverhead(session, engine));
  const strategies = strategyOptions(input.strategy, input.pipeline);
  const config: PipelineConfig = {
    ...input.pipeline,
    strategies: {
      ...strategies,
      [EMERGENCY_STRATEGY]: { ...strategies[EMERGENCY_STRATEGY], maxTokens: budget, trigger: 'always' },
    },
    // Nothing is cached worth keeping when the request did not even fit: apply everything now.
    cacheAware: { ...input.pipeline.cacheAware, enabled: false },
  };
  const before = session.overlayCount;
  createPipeline(emergencySpec(input.strategy), config).run({
    session,
    index: engine.index,
    tokens: engine.tokens,
    decisions: engine.decisions,
    callIndex: input.callIndex,
    epochStart: input.epochStart,
    upTo: input.upTo,
    contextWindow: input.maximum,
    now: Date.now(),
    cache: { cachedUpTo: 0 },
  });
  return { budget, overlaysAdded: session.overlayCount - before };
}
