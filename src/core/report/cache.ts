/**
 * Per-file cache of report results, keyed by path, size and mtime (plus the
 * strategies, their options and the cache format), so a second run only
 * reads the files that changed. A cached file is reused only when none of the
 * responses it counted were counted by an earlier file in this run (file
 * order can change as files are added); otherwise it is read again.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Skipped, SessionReport } from '../../protocol/report-types';

/**
 * Bumped whenever the report's numbers or shapes change: older entries are ignored (2: client invalidations followed,
 * usage-based sizes, Cline usage; 3: per-call model, TTL per breakpoint, client version, microcompact, iterations,
 * loose status; 4: the fit notes price client-caused misses; 5: partial compactions send their kept messages after the
 * summary, microcompact-cleared attachments followed; 6: OpenAI-style chat transcripts imported, whole-JSON files have
 * no corrupt lines; 7: "summarize from here" compactions send their kept messages before the summary, and kept copies
 * share the cache identity and size of the blocks they copy; 8: a client rewrite shrinks only the calls from it on, the
 * TTL counts from the end of the response; 9: rows carry cwd, usage per 15-minute slot and misses by cause; 10: the
 * prefix part a transcript does not hold after the system prompt, the shared prefix cold where the recording says so,
 * inline subagents without agentId a row each).
 */
export const REPORT_CACHE_VERSION = 10;

export interface CachedFile {
  readonly size: number;
  readonly mtimeMs: number;
  /** Strategies and options the rows were priced with. */
  readonly setup: string;
  readonly rows: SessionReport[];
  readonly skipped: Skipped[];
  readonly badLines: number;
  /** Responses this file counted (message id | request id). */
  readonly keys: string[];
}

interface CacheFileShape {
  version: number;
  entries: Record<string, CachedFile>;
}

/** Where the cache lives by default: `$XDG_CACHE_HOME/trimline/report-cache.json`, else `~/.cache/…`. */
export function defaultCacheFile(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME && env.XDG_CACHE_HOME.trim() ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  return join(base, 'trimline', 'report-cache.json');
}

/** A set of counted responses that also records what each file added. */
export class CountedKeys extends Set<string> {
  added: string[] = [];
  override add(key: string): this {
    if (!this.has(key)) this.added.push(key);
    return super.add(key);
  }
}

export class ReportCache {
  private entries: Record<string, CachedFile> = {};
  private dirty = false;
  hits = 0;

  constructor(readonly file: string) {
    try {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as CacheFileShape;
      if (parsed.version === REPORT_CACHE_VERSION && parsed.entries && typeof parsed.entries === 'object')
        this.entries = parsed.entries;
    } catch {
      // No cache yet, or unreadable: start empty.
    }
  }

  /** The cached result for a file, when it is unchanged, priced the same way, and its responses are still its own. */
  get(
    path: string,
    size: number,
    mtimeMs: number,
    setup: string,
    counted: ReadonlySet<string>,
  ): CachedFile | undefined {
    const e = this.entries[path];
    if (!e || e.size !== size || e.mtimeMs !== mtimeMs || e.setup !== setup) return undefined;
    if (e.keys.some((k) => counted.has(k))) return undefined;
    this.hits++;
    return e;
  }

  /** Whether an entry for the file as it is now exists (it may still be refused by {@link get} for its responses). */
  peek(path: string, size: number, mtimeMs: number, setup: string): boolean {
    const e = this.entries[path];
    return e !== undefined && e.size === size && e.mtimeMs === mtimeMs && e.setup === setup;
  }

  set(path: string, entry: CachedFile): void {
    this.entries[path] = entry;
    this.dirty = true;
  }

  /** Write the cache (atomically: a temp file renamed over the old one). */
  save(): void {
    if (!this.dirty) return;
    mkdirSync(dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(
      tmp,
      JSON.stringify({ version: REPORT_CACHE_VERSION, entries: this.entries } satisfies CacheFileShape),
    );
    renameSync(tmp, this.file);
    this.dirty = false;
  }
}
