/**
 * The breadth-first directory walk behind every workspace's `list` (Node: node-workspace.ts,
 * VS Code: host/vscode/workspace-adapter.ts): shallow files first, so a cut listing keeps
 * the overview; entries sorted by name; symlinked directories are not descended (no
 * cycles, no escapes); a symlink is listed when its target is a file. Each workspace
 * only says how to read one directory.
 */
import { compileGlob } from './tools/glob';
import type { ListOptions } from './workspace';

/** Entries examined by one `list` at most, so a huge tree cannot stall a tool call. */
export const MAX_WALK_ENTRIES = 200_000;

/** One directory entry: a directory (descended), a file (listed), a symlink (listed when `linkIsFile`), or other. */
export interface WalkEntry {
  readonly name: string;
  readonly kind: 'dir' | 'file' | 'link' | 'other';
}

export interface WalkSource {
  /**
   * The entries of `dir` (a path relative to the walk's base, '' for the base); throws when unreadable (the walk skips
   * it).
   */
  readDir(dir: string): Promise<WalkEntry[]>;
  /** Whether the symlink at `rel` points at a file (absent: symlinks are never listed). */
  linkIsFile?(rel: string): Promise<boolean>;
}

/** Paths relative to the walk's base, at most `options.limit` of them, matching `options.pattern`. */
export async function walk(source: WalkSource, options: ListOptions): Promise<{ files: string[]; truncated: boolean }> {
  const match = options.pattern ? compileGlob(options.pattern) : undefined;
  const ignore = new Set(options.ignore ?? []);
  const files: string[] = [];
  let queue: string[] = [''];
  let examined = 0;
  while (queue.length) {
    const next: string[] = [];
    for (const dir of queue) {
      let entries: WalkEntry[];
      try {
        entries = await source.readDir(dir);
      } catch {
        continue; // unreadable directory: skip, like `find` does after its warning
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const ent of entries) {
        if (++examined > MAX_WALK_ENTRIES) return { files, truncated: true };
        if (ignore.has(ent.name)) continue;
        const rel = dir ? `${dir}/${ent.name}` : ent.name;
        if (ent.kind === 'dir') next.push(rel);
        const isFile =
          ent.kind === 'file' ||
          (ent.kind === 'link' && source.linkIsFile !== undefined && (await source.linkIsFile(rel)));
        if (!isFile || (match && !match.test(rel))) continue;
        if (files.length >= options.limit) return { files, truncated: true };
        files.push(rel);
      }
    }
    queue = next;
  }
  return { files, truncated: false };
}
