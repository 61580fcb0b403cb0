/**
 * Agent configuration: model, limits, endpoint and credentials, trimming, cache
 * TTL, prices and the retry policy. `resolveAgentConfig` fills defaults and reads
 * `ANTHROPIC_API_KEY` / `ANTHROPIC_BASE_URL` (and `ANTHROPIC_AUTH_TOKEN` for
 * proxies that want a bearer token) when they are not given explicitly.
 */
import type { ClientOptions } from '@anthropic-ai/sdk';
import type { PriceOverrides } from '../models';
import type { CacheTtl } from '../api/wire';
import type { PipelineConfig } from '../trimming';

/** A current, non-deprecated model with prompt caching from 1,024 tokens (reference table). */
export const DEFAULT_AGENT_MODEL = 'claude-sonnet-4-6';
/** Room for a long answer or a large write_file; the API bills only what is produced. */
export const DEFAULT_AGENT_MAX_TOKENS = 8192;
/** A runaway loop (the model calling tools forever) stops here and hands back to the user. */
export const DEFAULT_MAX_CALLS_PER_TURN = 100;
/**
 * Sent as x-api-key when only a base URL is configured: local and self-hosted
 * compatible endpoints often need no key, and the SDK refuses to send a request
 * without some credential. An endpoint that does check keys answers 401, which
 * becomes the "API key missing or invalid" message.
 */
export const NO_KEY_PLACEHOLDER = 'no-api-key-set';

export interface RetryPolicy {
  /** Retries after the first attempt (429, 529, 5xx, connection resets, streams cut mid-message). */
  readonly maxRetries: number;
  /** First backoff; doubles per retry. */
  readonly baseDelayMs: number;
  /** Longest computed backoff. */
  readonly maxDelayMs: number;
  /** Longest wait we accept from a `retry-after` header (a longer one is capped, not obeyed). */
  readonly maxRetryAfterMs: number;
  /** Random spread of each backoff, as a share of it (0.25 = ±25%), so clients do not retry in lockstep. */
  readonly jitter: number;
}

/**
 * Six retries with 1 s doubling (1, 2, 4, 8, 16, 30 s, about a minute in all)
 * outlast a typical overload spike; retry-after above a minute is capped so a
 * turn never sits silent for long (the UI shows every wait as a `retry` event).
 */
export const DEFAULT_RETRY: RetryPolicy = {
  maxRetries: 6,
  baseDelayMs: 1_000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 60_000,
  jitter: 0.25,
};

export interface AgentConfig {
  readonly model: string;
  readonly maxTokens: number;
  readonly apiKey?: string;
  readonly authToken?: string;
  readonly baseURL?: string;
  /** Trimming strategy spec: `none`, `default` or a comma list. */
  readonly strategy: string;
  readonly pipeline: PipelineConfig;
  readonly ttl: CacheTtl;
  readonly prices?: PriceOverrides;
  readonly retry: RetryPolicy;
  readonly maxCallsPerTurn: number;
  /** Per-request timeout of the SDK (ms); undefined: the SDK's default. */
  readonly requestTimeoutMs?: number;
  /** System prompt; default: the agent's own (system-prompt.ts). */
  readonly system?: string;
  /** Model for history-compression summaries (e.g. a cheaper one); default: `model`. */
  readonly summaryModel?: string;
}

export type AgentConfigInput = Partial<Omit<AgentConfig, 'retry'>> & { readonly retry?: Partial<RetryPolicy> };

/** Environment variables the config reads. */
export interface AgentEnv {
  readonly ANTHROPIC_API_KEY?: string;
  readonly ANTHROPIC_BASE_URL?: string;
  readonly ANTHROPIC_AUTH_TOKEN?: string;
}

/** An empty variable counts as unset (a common shell mistake: `export ANTHROPIC_API_KEY=`). */
function nonEmpty(v: string | undefined): string | undefined {
  return v && v.trim() ? v.trim() : undefined;
}

export function resolveAgentConfig(input: AgentConfigInput = {}, env: AgentEnv = process.env): AgentConfig {
  return {
    model: input.model ?? DEFAULT_AGENT_MODEL,
    maxTokens: input.maxTokens ?? DEFAULT_AGENT_MAX_TOKENS,
    apiKey: nonEmpty(input.apiKey) ?? nonEmpty(env.ANTHROPIC_API_KEY),
    authToken: nonEmpty(input.authToken) ?? nonEmpty(env.ANTHROPIC_AUTH_TOKEN),
    baseURL: nonEmpty(input.baseURL) ?? nonEmpty(env.ANTHROPIC_BASE_URL),
    strategy: input.strategy ?? 'default',
    pipeline: input.pipeline ?? {},
    ttl: input.ttl ?? '5m',
    prices: input.prices,
    retry: { ...DEFAULT_RETRY, ...input.retry },
    maxCallsPerTurn: input.maxCallsPerTurn ?? DEFAULT_MAX_CALLS_PER_TURN,
    requestTimeoutMs: input.requestTimeoutMs,
    system: input.system,
    summaryModel: input.summaryModel,
  };
}

/** How to tell the user to set credentials (used in the 401 message and by the CLI). */
export const CREDENTIALS_HINT =
  'set ANTHROPIC_API_KEY to your key from console.anthropic.com (or ANTHROPIC_BASE_URL for an ' +
  'Anthropic-compatible endpoint)';

/** A one-line problem when there is no way to reach a model at all; undefined when there is. */
export function missingCredentials(config: Pick<AgentConfig, 'apiKey' | 'authToken' | 'baseURL'>): string | undefined {
  if (config.apiKey || config.authToken || config.baseURL) return undefined;
  return `no API key: ${CREDENTIALS_HINT}`;
}

/**
 * SDK client options. `maxRetries: 0`: the loop retries itself, so it can honor
 * retry-after, report every wait, and never record half a message.
 */
export function clientOptions(config: AgentConfig): ClientOptions {
  const auth: ClientOptions = config.apiKey
    ? { apiKey: config.apiKey }
    : config.authToken
      ? { authToken: config.authToken, apiKey: null }
      : { apiKey: NO_KEY_PLACEHOLDER };
  return {
    ...auth,
    ...(config.baseURL ? { baseURL: config.baseURL } : {}),
    ...(config.requestTimeoutMs !== undefined ? { timeout: config.requestTimeoutMs } : {}),
    maxRetries: 0,
  };
}
