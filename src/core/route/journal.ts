/**
 * The undo record of routing: for each file a route changes, its exact content before (or that
 * it did not exist) and after. The host writes the record to disk BEFORE it changes any file, so
 * *Stop Routing* can restore after a crash or with VS Code closed in between:
 * - a file still holding what the route wrote gets its original bytes back (or is deleted when
 *   the route created it);
 * - a file still holding its original bytes is left alone (the crash came before its write);
 * - a file changed since by someone else gets only the route's own keys set back to their
 *   original values (JSON), so the other change stays; a YAML file changed since is left as it
 *   is and reported.
 */
import type { JSONPath } from 'jsonc-parser/lib/esm/main.js';
import type { AgentId, RouteScope } from './agents';
import { getJsonRaw, getJsonValue, parseJsonc, setJsonRaw } from './json-text';

export const ROUTE_JOURNAL_VERSION = 1;

export interface KeyChange {
  readonly path: JSONPath;
  /** The value before; absent: the key did not exist. */
  readonly before?: unknown;
  /** Its source text before (layout and comments inside it), put back as it was. */
  readonly raw?: string;
}

export interface FileChange {
  readonly agent: AgentId;
  readonly file: string;
  /** Exact content before; null: the file did not exist. */
  readonly before: string | null;
  readonly after: string;
  /** JSON files: the keys the route set (what a restore of a file changed since puts back). */
  readonly keys?: readonly KeyChange[];
}

export interface RouteRecord {
  readonly version: number;
  readonly url: string;
  readonly scope: RouteScope;
  /** ms since the epoch. */
  readonly at: number;
  readonly changes: readonly FileChange[];
}

/** The key changes of a JSON edit: `paths` read in `before`. */
export function keyChanges(before: string | null, paths: readonly JSONPath[]): KeyChange[] {
  return paths.map((path) => {
    const v = before === null ? undefined : getJsonValue(before, path);
    return v === undefined ? { path } : { path, before: v, raw: getJsonRaw(before!, path) };
  });
}

export type RestoreAction =
  | { readonly kind: 'write'; readonly text: string; readonly how: 'original' | 'keys' }
  | { readonly kind: 'delete' }
  | { readonly kind: 'keep'; readonly why: 'unchanged' | 'missing' }
  | { readonly kind: 'conflict'; readonly why: string };

/** What restoring one change does to the file whose content is now `current` (null: absent). */
export function restoreAction(change: FileChange, current: string | null): RestoreAction {
  if (current === change.after) {
    return change.before === null ? { kind: 'delete' } : { kind: 'write', text: change.before, how: 'original' };
  }
  if (current === change.before) return { kind: 'keep', why: 'unchanged' };
  if (current === null) return { kind: 'keep', why: 'missing' };
  if (!change.keys || parseJsonc(current) === undefined) {
    return { kind: 'conflict', why: `${change.file} changed since it was routed; left as it is` };
  }
  let text = current;
  for (const k of change.keys) text = setJsonRaw(text, k.path, 'before' in k ? k.before : undefined, k.raw);
  return { kind: 'write', text, how: 'keys' };
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isChange(v: unknown): v is FileChange {
  if (!isObj(v) || typeof v.agent !== 'string' || typeof v.file !== 'string') return false;
  if (typeof v.after !== 'string') return false;
  if (v.before !== null && typeof v.before !== 'string') return false;
  return v.keys === undefined || (Array.isArray(v.keys) && v.keys.every((k) => isObj(k) && Array.isArray(k.path)));
}

/** Reads a journal file's text; undefined when it is not a route record. */
export function parseRouteRecord(text: string): RouteRecord | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    if (!isObj(v) || v.version !== ROUTE_JOURNAL_VERSION || typeof v.url !== 'string') return undefined;
    if (typeof v.at !== 'number' || (v.scope !== 'user' && v.scope !== 'workspace')) return undefined;
    if (!Array.isArray(v.changes) || !v.changes.every(isChange)) return undefined;
    return v as unknown as RouteRecord;
  } catch {
    return undefined;
  }
}

/** Merges a new route into an existing record: a file routed twice keeps its first original. */
export function mergeRecords(old: RouteRecord | undefined, next: RouteRecord): RouteRecord {
  const changes = old ? [...old.changes] : [];
  for (const c of next.changes) {
    const i = changes.findIndex((o) => o.file === c.file);
    if (i < 0) changes.push(c);
    else {
      const first = changes[i];
      changes[i] = { ...c, agent: first.agent, before: first.before, keys: mergeKeys(first.keys, c.keys) };
    }
  }
  return { ...next, changes };
}

type Keys = readonly KeyChange[] | undefined;

function mergeKeys(old: Keys, next: Keys): KeyChange[] | undefined {
  if (!old || !next) return old ? [...old] : next ? [...next] : undefined;
  const out = [...old];
  for (const k of next) if (!out.some((o) => JSON.stringify(o.path) === JSON.stringify(k.path))) out.push(k);
  return out;
}

/**
 * Roo and Kilo import their auto-import file on every start, replacing the profile of the same
 * name: a key the user entered in it would be lost at the next start. Once the agent has
 * imported it, the route's auto-import key goes back to its original value (`current`: the
 * settings file now) and the record follows, so *Stop Routing* still restores byte for byte.
 * Returns undefined when there is nothing to settle (the key is not the route's any more).
 */
export function settleImport(
  record: RouteRecord,
  file: string,
  key: string,
  current: string,
): { record: RouteRecord; text: string } | undefined {
  const i = record.changes.findIndex((c) => c.file === file);
  const change = record.changes[i];
  const k = change?.keys?.find((x) => x.path.length === 1 && x.path[0] === key);
  if (!change || !k || getJsonValue(current, [key]) !== getJsonValue(change.after, [key])) return undefined;
  const text = setJsonRaw(current, [key], 'before' in k ? k.before : undefined, k.raw);
  const changes = [...record.changes];
  const keys = change.keys!.filter((x) => x !== k);
  // The file as the route leaves it now (unless someone else changed it since): restoring still gives `before` back.
  changes[i] = { ...change, after: current === change.after ? text : change.after, keys };
  return { record: { ...record, changes }, text };
}
