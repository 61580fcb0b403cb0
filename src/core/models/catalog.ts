/**
 * The model catalog: everything Trimline knows about a model id, in one
 * answer. Lookup: the canonical id's own row; else, for a known family at an
 * unknown version, the closest row of the family not newer than it (the
 * oldest row when all are newer); else the fallback row. The answer says
 * which (`match`) and why a value is a guess (`assumed`).
 */
import { keepsPriorThinking, prefillUnsupported, tokenizerGeneration, type TokenizerGeneration } from './behavior';
import {
  canonicalModelId,
  isAtLeast,
  MEMO_ENTRIES,
  modelGeneration,
  normalizeModelId,
  type ModelGeneration,
} from './ids';
import { FALLBACK_ROW, MODEL_TABLE, priceOf, type ModelPrice, type ModelRow } from './table';

/** How the catalog placed an id: its own row, a sibling of its family, or nothing known. */
export type ModelMatch = 'exact' | 'family' | 'unknown';

/** Everything we know about a model. */
export interface ModelInfo extends ModelRow {
  /** Canonical id of the model asked about. */
  readonly id: string;
  /** The table row used; `unknown` when the fallback facts were used. */
  readonly key: string;
  readonly match: ModelMatch;
  /** Family and version; undefined for ids without a version. */
  readonly generation?: ModelGeneration;
  /** True: must end with a user message; undefined: the id has no version to tell. */
  readonly prefillUnsupported: boolean | undefined;
  /** Thinking blocks of earlier turns are still counted (and billed). */
  readonly keepsPriorThinking: boolean;
  readonly tokenizer: TokenizerGeneration;
  /** False for the table's reference prices and for overridden prices. */
  readonly priceAssumed: boolean;
}

/** Overrides keyed by model id or id prefix (settings, e.g. `claude-sonnet`); merged over the table's price. */
export type PriceOverrides = Readonly<Record<string, Partial<ModelPrice>>>;

/** Claude Code's context-size suffix (`[1m]`, `[200k]`) selects that window. */
const CONTEXT_SUFFIX_SIZE = /\[(\d+)([km])\]\s*$/i;
const SUFFIX_UNIT: Readonly<Record<string, number>> = { k: 1_000, m: 1_000_000 };

interface TableEntry {
  readonly key: string;
  readonly gen: ModelGeneration;
}

/** Table keys with their generations, parsed once. */
const ENTRIES: readonly TableEntry[] = Object.keys(MODEL_TABLE).flatMap((key) => {
  const gen = modelGeneration(key);
  return gen ? [{ key, gen }] : [];
});

function compareGen(a: ModelGeneration, b: ModelGeneration): number {
  return a.major - b.major || a.minor - b.minor;
}

/**
 * The closest row of `gen`'s family not newer than it; the family's oldest row when all are newer; undefined for
 * unknown families.
 */
export function familyRow(gen: ModelGeneration): string | undefined {
  const family = ENTRIES.filter((e) => e.gen.family === gen.family).sort((a, b) => compareGen(a.gen, b.gen));
  if (family.length === 0) return undefined;
  const older = family.filter((e) => isAtLeast(gen, e.gen.major, e.gen.minor));
  return (older.length ? older[older.length - 1] : family[0]).key;
}

/** Longest key that is `id` itself or a prefix of it ending at a `-` boundary. */
export function longestPrefixKey(id: string, keys: Iterable<string>): string | undefined {
  let best: string | undefined;
  for (const k of keys) {
    if ((id === k || id.startsWith(`${k}-`)) && (!best || k.length > best.length)) best = k;
  }
  return best;
}

/**
 * The override for a model: keys are normalized like ids, the longest matching prefix of the canonical or the
 * normalized id wins.
 */
export function priceOverride(model: string, overrides: PriceOverrides): Partial<ModelPrice> | undefined {
  const byKey = new Map<string, Partial<ModelPrice>>();
  for (const [k, v] of Object.entries(overrides)) byKey.set(canonicalModelId(k), v);
  const key =
    longestPrefixKey(canonicalModelId(model), byKey.keys()) ?? longestPrefixKey(normalizeModelId(model), byKey.keys());
  return key === undefined ? undefined : byKey.get(key);
}

/**
 * A price with an override applied. Cache prices the override does not name
 * follow its input price through the multipliers (an overridden input of 1
 * writes at 1.25 and reads at 0.1), so a one-field override stays consistent.
 */
export function overriddenPrice(base: ModelPrice, override: Partial<ModelPrice>): ModelPrice {
  return { ...priceOf(override.input ?? base.input, override.output ?? base.output), ...override };
}

/** Context window named by a `[1m]`-style suffix, if any. */
export function suffixContextWindow(model: string): number | undefined {
  const m = CONTEXT_SUFFIX_SIZE.exec(model);
  return m ? Number(m[1]) * SUFFIX_UNIT[m[2].toLowerCase()] : undefined;
}

function placed(model: string, gen: ModelGeneration | undefined): { key: string; match: ModelMatch; row: ModelRow } {
  const id = canonicalModelId(model);
  if (MODEL_TABLE[id]) return { key: id, match: 'exact', row: MODEL_TABLE[id] };
  const sibling = gen && familyRow(gen);
  if (sibling) {
    const row = MODEL_TABLE[sibling];
    return {
      key: sibling,
      match: 'family',
      row: { ...row, assumed: `unknown version ${id}: facts of ${sibling}`, priceAssumed: true },
    };
  }
  return { key: 'unknown', match: 'unknown', row: FALLBACK_ROW };
}

/** Everything we know about a model, with price overrides applied. */
export function modelInfo(model: string, overrides?: PriceOverrides): ModelInfo {
  if (overrides) return computeInfo(model, overrides);
  // Without overrides the answer depends on the id alone: asked per call on hot paths, built once per id.
  let info = infos.get(model);
  if (!info) {
    if (infos.size >= MEMO_ENTRIES) infos.clear();
    infos.set(model, (info = computeInfo(model, undefined)));
  }
  return info;
}

const infos = new Map<string, ModelInfo>();

function computeInfo(model: string, overrides: PriceOverrides | undefined): ModelInfo {
  const gen = modelGeneration(model);
  const { key, match, row } = placed(model, gen);
  const override = overrides && priceOverride(model, overrides);
  return {
    ...row,
    id: canonicalModelId(model),
    key,
    match,
    generation: gen,
    contextWindow: suffixContextWindow(model) ?? row.contextWindow,
    price: override ? overriddenPrice(row.price, override) : row.price,
    priceAssumed: override ? false : row.priceAssumed === true,
    prefillUnsupported: prefillUnsupported(model),
    keepsPriorThinking: keepsPriorThinking(model),
    tokenizer: tokenizerGeneration(model),
  };
}

/** Minimum cacheable prefix in tokens. */
export function minCacheableTokens(model: string): number {
  return modelInfo(model).minCacheableTokens;
}

/** Context window in tokens (a `[1m]` suffix selects the 1M window). */
export function contextWindow(model: string): number {
  return modelInfo(model).contextWindow;
}

/** Table prices of a model (USD per million tokens), overrides applied. */
export function modelPrice(model: string, overrides?: PriceOverrides): ModelPrice {
  return modelInfo(model, overrides).price;
}
