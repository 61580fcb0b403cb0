/**
 * Models the test server knows, with the two properties its checks need.
 * Ids are the SDK's `Model` union (v1.12.0); context windows and the prefill
 * rule follow docs/anthropic-api.md (Claude 4.6 and later reject
 * a conversation that ends with an assistant message).
 */

export interface ModelSpec {
  readonly id: string;
  readonly displayName: string;
  /** Input tokens above which the API answers "prompt is too long". */
  readonly contextWindow: number;
  /** Whether a final assistant message (prefill) is accepted. */
  readonly prefill: boolean;
  readonly createdAt: string;
}

const M = 1_000_000;
const K200 = 200_000;

function spec(id: string, displayName: string, contextWindow: number, prefill: boolean, createdAt: string): ModelSpec {
  return { id, displayName, contextWindow, prefill, createdAt };
}

export const DEFAULT_MODELS: readonly ModelSpec[] = [
  spec('claude-opus-5-5', 'Claude Opus 5.5', M, false, '2026-09-01T00:00:00Z'),
  spec('claude-sonnet-5-5', 'Claude Sonnet 5.5', M, false, '2026-09-01T00:00:00Z'),
  spec('claude-haiku-5-5', 'Claude Haiku 5.5', K200, false, '2026-09-01T00:00:00Z'),
  spec('claude-fable-5-2', 'Claude Fable 5.2', M, false, '2026-08-01T00:00:00Z'),
  spec('claude-mythos-5-2', 'Claude Mythos 5.2', M, false, '2026-08-01T00:00:00Z'),
  spec('claude-fable-5-1', 'Claude Fable 5.1', M, false, '2026-07-01T00:00:00Z'),
  spec('claude-mythos-5-1', 'Claude Mythos 5.1', M, false, '2026-07-01T00:00:00Z'),
  spec('claude-fable-5', 'Claude Fable 5', M, false, '2026-06-01T00:00:00Z'),
  spec('claude-mythos-5', 'Claude Mythos 5', M, false, '2026-06-01T00:00:00Z'),
  spec('claude-sonnet-5', 'Claude Sonnet 5', M, false, '2026-06-01T00:00:00Z'),
  spec('claude-opus-5', 'Claude Opus 5', M, false, '2026-06-01T00:00:00Z'),
  spec('claude-mythos-preview', 'Claude Mythos Preview', M, false, '2026-04-01T00:00:00Z'),
  spec('claude-opus-4-8', 'Claude Opus 4.8', M, false, '2026-05-01T00:00:00Z'),
  spec('claude-opus-4-7', 'Claude Opus 4.7', M, false, '2026-03-01T00:00:00Z'),
  spec('claude-opus-4-6', 'Claude Opus 4.6', M, false, '2026-02-01T00:00:00Z'),
  spec('claude-sonnet-4-6', 'Claude Sonnet 4.6', M, false, '2026-02-01T00:00:00Z'),
  spec('claude-opus-4-5', 'Claude Opus 4.5', K200, true, '2025-11-01T00:00:00Z'),
  spec('claude-opus-4-5-20251101', 'Claude Opus 4.5', K200, true, '2025-11-01T00:00:00Z'),
  spec('claude-haiku-4-5', 'Claude Haiku 4.5', K200, true, '2025-10-01T00:00:00Z'),
  spec('claude-haiku-4-5-20251001', 'Claude Haiku 4.5', K200, true, '2025-10-01T00:00:00Z'),
  spec('claude-sonnet-4-5', 'Claude Sonnet 4.5', K200, true, '2025-09-29T00:00:00Z'),
  spec('claude-sonnet-4-5-20250929', 'Claude Sonnet 4.5', K200, true, '2025-09-29T00:00:00Z'),
];

export function modelTable(extra: readonly ModelSpec[] = []): ReadonlyMap<string, ModelSpec> {
  const map = new Map<string, ModelSpec>();
  for (const m of [...DEFAULT_MODELS, ...extra]) map.set(m.id, m);
  return map;
}

/** The `ModelInfo` the Models API returns. */
export function modelInfo(m: ModelSpec): Record<string, unknown> {
  return {
    type: 'model',
    id: m.id,
    display_name: m.displayName,
    created_at: m.createdAt,
    capabilities: null,
    deprecated_at: null,
    lifecycle: 'active',
    line: null,
    max_input_tokens: m.contextWindow,
    max_tokens: null,
    retires_at: null,
  };
}
