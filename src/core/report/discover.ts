/**
 * Which files a report reads: Claude Code session files (including
 * `<session>/subagents/agent-*.jsonl`), Cline task folders, SWE-agent and
 * mini-swe-agent trajectories (`.traj`, `.traj.json`) and any
 * transcript file named directly; ordered so that a response copied into
 * another file (a resumed session starts with its parent's lines) is counted
 * in the file it was first written to.
 */
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { companionFiles, isWalkedName } from '../import';

/** Bytes read from the head of a file to find its first timestamp and session id. */
const HEAD_BYTES = 64 * 1024;
/** Bytes read first (enough for both in most Claude Code files). */
const HEAD_PROBE_BYTES = 4 * 1024;
/** Directories never entered (dependency trees, VCS data). */
const SKIP_DIRS: ReadonlySet<string> = new Set(['node_modules', '.git']);

export interface FoundFile {
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
}

export interface Discovery {
  readonly files: FoundFile[];
  readonly skipped: { file: string; reason: string }[];
}

/** Claude Code's projects directory: `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`. */
export function defaultProjectsDir(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.CLAUDE_CONFIG_DIR && env.CLAUDE_CONFIG_DIR.trim() ? env.CLAUDE_CONFIG_DIR : join(homedir(), '.claude');
  return join(base, 'projects');
}

/**
 * A file a directory walk reports: session JSONL and the names an importer
 * walks (`TranscriptImporter.walks`: Cline histories, SWE-agent `.traj`,
 * mini-swe-agent `.traj.json`). Other `.json` files are only read when named
 * directly (a walk would find every package.json).
 */
export function isTranscriptName(name: string): boolean {
  return isWalkedName(name);
}

function walk(dir: string, out: FoundFile[], skipped: Discovery['skipped']): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    skipped.push({ file: dir, reason: `unreadable directory (${(e as NodeJS.ErrnoException).code ?? 'error'})` });
    return;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name)) walk(p, out, skipped);
    } else if (e.isFile() && isTranscriptName(e.name)) {
      try {
        const st = statSync(p);
        out.push(foundFile(p, st));
      } catch (err) {
        skipped.push({ file: p, reason: `unreadable file (${(err as NodeJS.ErrnoException).code ?? 'error'})` });
      }
    }
  }
}

/**
 * A found file, sized and dated with the files an importer reads beside it
 * (`TranscriptImporter.companions`, e.g. a Cline task's ui_messages.json, where its usage is).
 */
function foundFile(path: string, st: { size: number; mtimeMs: number }): FoundFile {
  let { size, mtimeMs } = st;
  for (const companion of companionFiles(path)) {
    try {
      const c = statSync(companion);
      size += c.size;
      mtimeMs = Math.max(mtimeMs, c.mtimeMs);
    } catch {
      // Absent or unreadable: the file alone keys the cache (the report says why usage is missing).
    }
  }
  return { path, size, mtimeMs };
}

/** True as soon as one transcript is found under the directory `dir` (a cheap check before a report). */
export function holdsTranscript(dir: string): boolean {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return false;
  }
  if (entries.some((e) => e.isFile() && isTranscriptName(e.name))) return true;
  return entries.some((e) => e.isDirectory() && !SKIP_DIRS.has(e.name) && holdsTranscript(join(dir, e.name)));
}

/** Every transcript under the given paths (files named directly are taken whatever their name). */
export function discover(paths: readonly string[]): Discovery {
  const files: FoundFile[] = [];
  const skipped: Discovery['skipped'] = [];
  for (const p of paths) {
    let st;
    try {
      st = statSync(p);
    } catch (e) {
      skipped.push({
        file: p,
        reason: (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : 'unreadable',
      });
      continue;
    }
    if (st.isDirectory()) walk(p, files, skipped);
    else files.push(foundFile(p, st));
  }
  const seen = new Set<string>();
  const unique = files.filter((f) => (seen.has(f.path) ? false : (seen.add(f.path), true)));
  return { files: orderForCounting(unique), skipped };
}

/** First timestamp and session id in the head of a JSONL file. */
export function headOf(path: string): { timestamp?: string; sessionId?: string } {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return {};
  }
  try {
    // Most files say both in their first lines: a short read first, the whole head only when not.
    const probe = headFields(readHead(fd, HEAD_PROBE_BYTES));
    if (probe.complete || probe.bytes < HEAD_PROBE_BYTES) return probe.fields;
    return headFields(readHead(fd, HEAD_BYTES)).fields;
  } catch {
    return {};
  } finally {
    closeSync(fd);
  }
}

function readHead(fd: number, bytes: number): Buffer {
  const buf = Buffer.alloc(bytes);
  return buf.subarray(0, readSync(fd, buf, 0, bytes, 0));
}

/**
 * The first `"timestamp"` and `"sessionId"` values, line by line. A value found in
 * a shorter head is the one the longer head gives: the lines before it are the same,
 * and a match needs its closing quote, so a line cut short cannot give another one.
 */
function headFields(head: Buffer): {
  fields: { timestamp?: string; sessionId?: string };
  complete: boolean;
  bytes: number;
} {
  const out: { timestamp?: string; sessionId?: string } = {};
  for (const line of head.toString('utf8').split('\n')) {
    if (out.timestamp && out.sessionId) break;
    out.timestamp ??= /"timestamp":"([^"]+)"/.exec(line)?.[1];
    out.sessionId ??= /"sessionId":"([^"]+)"/.exec(line)?.[1];
  }
  return { fields: out, complete: out.timestamp !== undefined && out.sessionId !== undefined, bytes: head.length };
}

/**
 * Counting order: by first timestamp; on a tie the file named after its own
 * session id first (the original, not a resumed copy); then by path.
 */
export function orderForCounting(files: readonly FoundFile[]): FoundFile[] {
  const keyed = files.map((f) => {
    const h = f.path.endsWith('.jsonl') ? headOf(f.path) : {};
    const own = h.sessionId !== undefined && basename(f.path) === `${h.sessionId}.jsonl` ? 0 : 1;
    return { f, t: h.timestamp ?? '', own };
  });
  keyed.sort((a, b) =>
    a.t < b.t ? -1 : a.t > b.t ? 1 : a.own - b.own || (a.f.path < b.f.path ? -1 : a.f.path > b.f.path ? 1 : 0),
  );
  return keyed.map((k) => k.f);
}
