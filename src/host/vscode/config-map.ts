/**
 * Settings → engine configuration, as pure functions (no `vscode` import, so they
 * are testable anywhere). `trimline.strategyOptions` uses a few friendly keys that
 * map onto the options of the strategies; `strategies` passes raw per-strategy
 * options through, as `trimline --config` does.
 */
import type { PriceOverrides } from '../../core/models';
import type { CacheTtl } from '../../core/api/wire';
import type { PipelineConfig } from '../../core/trimming';

export type ApprovalMode = 'ask' | 'always' | 'never';

/**
 * Is an edit put to the user? A write into `.git` or `.trimline` always is, whatever
 * `commandApproval` says (approving commands is not approving changes to git's
 * configuration and hooks); any other edit unless approval is `always`.
 */
export function editNeedsApproval(mode: ApprovalMode, protectedWrite: boolean): boolean {
  return protectedWrite || mode !== 'always';
}

export interface StrategyOptionsSetting {
  keepRecentTurns?: number;
  summaryLength?: number;
  minResultChars?: number;
  windowBudget?: number;
  windowTrigger?: number;
  windowLowWater?: number;
  minRecentMessages?: number;
  cacheAware?: boolean;
  strategies?: Record<string, Record<string, unknown>>;
}

/** The settings the extension reads, already validated. */
export interface TrimlineSettings {
  model: string;
  baseUrl?: string;
  strategy: string;
  pipeline: PipelineConfig;
  ttl: CacheTtl;
  prices?: PriceOverrides;
  approval: ApprovalMode;
}

/** Default model of the extension (kept equal to the setting's default in package.json). */
export const DEFAULT_SETTINGS_MODEL = 'claude-sonnet-4-6';

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown, min: number, max = Number.POSITIVE_INFINITY): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max ? v : undefined;

/**
 * Map `trimline.strategyOptions` onto a PipelineConfig. Friendly keys set the
 * options of the strategies they name; `strategies` (raw) is applied last and wins.
 * Options for a strategy that is not in the pipeline are simply unused.
 */
export function pipelineConfigFrom(raw: unknown): PipelineConfig {
  const o = isObj(raw) ? raw : {};
  const strategies: Record<string, Record<string, unknown>> = {};
  const set = (strategy: string, key: string, value: unknown): void => {
    if (value === undefined) return;
    (strategies[strategy] ??= {})[key] = value;
  };
  const keep = num(o.keepRecentTurns, 0);
  set('summarize-tool-results', 'keepTurns', keep === undefined ? undefined : Math.floor(keep));
  const summary = num(o.summaryLength, 0);
  set('summarize-tool-results', 'previewChars', summary === undefined ? undefined : Math.floor(summary));
  const minChars = num(o.minResultChars, 0);
  set('summarize-tool-results', 'minChars', minChars === undefined ? undefined : Math.floor(minChars));
  const budget = num(o.windowBudget, 0);
  set('atomic-window', 'maxTokens', budget === undefined ? undefined : Math.floor(budget));
  set('atomic-window', 'trigger', num(o.windowTrigger, Number.MIN_VALUE, 1));
  set('atomic-window', 'lowWater', num(o.windowLowWater, Number.MIN_VALUE, 1));
  const recent = num(o.minRecentMessages, 0);
  set('atomic-window', 'minRecentKeep', recent === undefined ? undefined : Math.floor(recent));
  if (isObj(o.strategies)) {
    for (const [name, opts] of Object.entries(o.strategies))
      if (isObj(opts)) strategies[name] = { ...strategies[name], ...opts };
  }
  const config: PipelineConfig = {};
  if (Object.keys(strategies).length) config.strategies = strategies;
  if (typeof o.cacheAware === 'boolean') config.cacheAware = { enabled: o.cacheAware };
  return config;
}

/** `trimline.priceOverrides` → PriceOverrides (invalid entries dropped). */
export function priceOverridesFrom(raw: unknown): PriceOverrides | undefined {
  if (!isObj(raw)) return undefined;
  const out: Record<string, Record<string, number>> = {};
  for (const [model, row] of Object.entries(raw)) {
    if (!isObj(row)) continue;
    const clean: Record<string, number> = {};
    for (const [k, v] of Object.entries(row)) {
      const n = num(v, 0);
      if (n !== undefined) clean[k] = n;
    }
    if (Object.keys(clean).length) out[model] = clean;
  }
  return Object.keys(out).length ? (out as PriceOverrides) : undefined;
}

/** All settings from a getter (`vscode.WorkspaceConfiguration.get` fits). */
export function readSettings(get: (key: string) => unknown): TrimlineSettings {
  const str = (key: string): string | undefined => {
    const v = get(key);
    return typeof v === 'string' && v.trim() ? v.trim() : undefined;
  };
  const approval = get('commandApproval');
  const ttl = get('cacheTtl');
  return {
    model: str('model') ?? DEFAULT_SETTINGS_MODEL,
    baseUrl: str('baseUrl'),
    strategy: str('strategy') ?? 'default',
    pipeline: pipelineConfigFrom(get('strategyOptions')),
    ttl: ttl === '1h' ? '1h' : '5m',
    prices: priceOverridesFrom(get('priceOverrides')),
    approval: approval === 'always' || approval === 'never' ? approval : 'ask',
  };
}

/** Replace anything that looks like a credential before a line reaches the log. */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 8) out = out.split(s).join('[redacted]');
  return out
    .replace(/sk-ant-[A-Za-z0-9_-]{8,}/g, 'sk-ant-[redacted]')
    .replace(/("?(?:x-api-key|authorization)"?\s*[:=]\s*"?)(?:Bearer\s+)?[^",\s}]+/gi, '$1[redacted]');
}
