/**
 * Model ids as clients write them, reduced to one canonical form.
 *
 * Clients name the same model many ways: dated (`claude-sonnet-4-5-20250929`),
 * with Claude Code's context suffix (`claude-opus-4-6[1m]`), as an alias
 * (`claude-3-7-sonnet-latest`), provider-qualified (Bedrock
 * `us.anthropic.claude-opus-4-6-v1:0`, Vertex `claude-sonnet-4-5@20250929`) or
 * in the Claude 3 word order (`claude-3-5-haiku-20241022`). All of them reduce
 * to `claude-<family>-<major>[-<minor>]` (minor omitted when 0, as the API's
 * own ids do: `claude-sonnet-5`, `claude-opus-4`). Ids without a version keep
 * their normalized spelling (`claude-mythos-preview`).
 */

/** Family and version of a model. */
export interface ModelGeneration {
  readonly family: string;
  readonly major: number;
  readonly minor: number;
}

/** Key used when the host does not say which model it talks to. */
export const DEFAULT_MODEL_KEY = 'default';

/** Claude Code appends the context size in brackets: `claude-opus-4-6[1m]`. */
const CONTEXT_SUFFIX = /\[[^\]]*\]$/;
/** Bedrock version suffix: `-v1:0`, `-v2`. */
const PROVIDER_VERSION_SUFFIX = /-v\d+(?::\d+)?$/;
/** Snapshot date (`-20250929`, Vertex `@20250929`) or the moving alias `-latest`. */
const DATE_OR_LATEST_SUFFIX = /[-@](\d{8}|latest)$/;
/** `claude-<family>-<major>[-<minor>]`, minor 1–2 digits (8 digits would be a date). */
const NEW_STYLE = /^claude-([a-z]+)-(\d+)(?:-(\d{1,2}))?(?=$|[-@:._])/;
/** `claude-<major>[-<minor>]-<family>` (Claude 3 naming). */
const OLD_STYLE = /^claude-(\d+)(?:-(\d{1,2}))?-([a-z]+)(?=$|[-@:._])/;

/**
 * The id with everything that does not change the model removed: whitespace,
 * case, a provider prefix before `claude-`, a bracketed context suffix, a
 * provider version, a snapshot date or `-latest`. Empty for an empty input.
 */
export function normalizeModelId(model: string): string {
  let id = model.trim().toLowerCase();
  const at = id.indexOf('claude-');
  if (at > 0) id = id.slice(at);
  let prev: string;
  do {
    prev = id;
    id = id.replace(CONTEXT_SUFFIX, '').replace(PROVIDER_VERSION_SUFFIX, '').replace(DATE_OR_LATEST_SUFFIX, '');
  } while (id !== prev);
  return id;
}

/** Family and version of a model id, or undefined when the id has no version (e.g. `claude-mythos-preview`). */
export function modelGeneration(model: string): ModelGeneration | undefined {
  // Asked per block and per call on hot paths (report, simulator): the regexes run once per id.
  if (generations.has(model)) return generations.get(model);
  if (generations.size >= MEMO_ENTRIES) generations.clear();
  const g = parseGeneration(model);
  generations.set(model, g);
  return g;
}

/** Distinct model ids remembered by the memos of this module and the catalog (a process sees a handful). */
export const MEMO_ENTRIES = 1_000;
const generations = new Map<string, ModelGeneration | undefined>();

function parseGeneration(model: string): ModelGeneration | undefined {
  const id = normalizeModelId(model);
  const n = NEW_STYLE.exec(id);
  if (n) return { family: n[1], major: Number(n[2]), minor: n[3] ? Number(n[3]) : 0 };
  const o = OLD_STYLE.exec(id);
  if (o) return { family: o[3], major: Number(o[1]), minor: o[2] ? Number(o[2]) : 0 };
  return undefined;
}

/** True when the generation is at least major.minor. */
export function isAtLeast(gen: ModelGeneration, major: number, minor: number): boolean {
  return gen.major > major || (gen.major === major && gen.minor >= minor);
}

/** The canonical id of a generation: `claude-<family>-<major>[-<minor>]`, minor omitted when 0. */
export function generationId(gen: ModelGeneration): string {
  return gen.minor ? `claude-${gen.family}-${gen.major}-${gen.minor}` : `claude-${gen.family}-${gen.major}`;
}

/**
 * The one canonical id of a model (catalog key, calibration key, override
 * match): {@link generationId} when the id has a version, else the normalized id.
 */
export function canonicalModelId(model: string): string {
  const g = modelGeneration(model);
  return g ? generationId(g) : normalizeModelId(model);
}

/** Canonical id, or {@link DEFAULT_MODEL_KEY} when no model is named (calibration state is kept per key). */
export function modelKey(model: string | undefined): string {
  const id = model ? canonicalModelId(model) : '';
  return id || DEFAULT_MODEL_KEY;
}
