/**
 * Workspace on Node's `fs` and `child_process` (CLI, standalone host, tests).
 *
 * All path confinement lives in `resolveInWorkspace`: every method resolves its
 * path through it and then works on the returned real path only, so a path the
 * model wrote is never handed to the OS as-is. (Between the check and the use a
 * concurrent process could swap a directory for a symlink; guarding against a
 * hostile local process is out of scope.)
 */
import { spawn } from 'node:child_process';
import { promises as fsp, type Dirent } from 'node:fs';
import path from 'node:path';
import { walk, type WalkSource } from './walk';
import { protectedWrite, protectedWriteRefusal, type ProtectedWrite } from './protected-paths';
import {
  WorkspaceError,
  type ExecOptions,
  type ExecResult,
  type FileStat,
  type ListOptions,
  type ListResult,
  type Workspace,
} from './workspace';

/** After SIGTERM on timeout/abort, wait this long before SIGKILL. */
const KILL_GRACE_MS = 2_000;
/**
 * After the shell exits, wait this long for its pipes to drain. Background jobs
 * (`server &`) keep the pipes open; we return instead of waiting for them.
 */
const EXIT_DRAIN_MS = 250;

/** Is `child` equal to `parent` or below it (both absolute, normalized)? */
export function isWithin(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function errnoOf(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string' ? e.code : undefined;
}

/** Translate an fs error into a WorkspaceError naming the path as the model wrote it. */
export function toWorkspaceError(e: unknown, rel: string): Error {
  if (e instanceof WorkspaceError) return e;
  switch (errnoOf(e)) {
    case 'ENOENT':
      return new WorkspaceError('not-found', `not found: ${rel}`);
    case 'EISDIR':
      return new WorkspaceError('is-directory', `${rel} is a directory`);
    case 'ENOTDIR':
      return new WorkspaceError('not-directory', `${rel}: a parent of this path is a file, not a directory`);
    case 'EACCES':
    case 'EPERM':
      return new WorkspaceError('permission', `permission denied: ${rel}`);
    default:
      return new WorkspaceError('other', `${rel}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * Real path of `abs`, which may not exist yet: the realpath of its deepest
 * existing ancestor plus the missing segments. A dangling symlink on the way
 * is rejected (writing through it would create its target, wherever it points).
 */
async function realpathAllowingMissing(abs: string, rel: string): Promise<string> {
  const missing: string[] = [];
  let cur = abs;
  for (;;) {
    try {
      const real = await fsp.realpath(cur);
      return missing.length ? path.join(real, ...missing.reverse()) : real;
    } catch (e) {
      if (errnoOf(e) !== 'ENOENT' && errnoOf(e) !== 'ENOTDIR') throw toWorkspaceError(e, rel);
    }
    const link = await fsp.lstat(cur).catch(() => undefined);
    if (link?.isSymbolicLink()) {
      throw new WorkspaceError(
        'outside-workspace',
        `${rel}: ${path.basename(cur)} is a symlink to a missing target; refusing to follow it`,
      );
    }
    const parent = path.dirname(cur);
    if (parent === cur) return abs;
    missing.push(path.basename(cur));
    cur = parent;
  }
}

/**
 * The one confinement check. Resolves `rel` (relative to `root`, or absolute)
 * to an absolute real path inside the workspace, or throws a WorkspaceError:
 * - `..` that climbs above the root;
 * - an absolute path outside the root;
 * - a symlink (anywhere on the path) whose real target is outside the root;
 *   for a path that does not exist yet, the deepest existing ancestor decides.
 */
export async function resolveInWorkspace(root: string, rel: string): Promise<string> {
  if (typeof rel !== 'string') throw new WorkspaceError('invalid-path', 'path must be a string');
  if (rel.includes('\0'))
    throw new WorkspaceError('invalid-path', `path contains a NUL character: ${JSON.stringify(rel)}`);
  const rootAbs = path.resolve(root);
  const rootReal = await fsp.realpath(rootAbs).catch((e: unknown) => {
    throw new WorkspaceError('not-found', `workspace root is not accessible: ${rootAbs} (${errnoOf(e) ?? 'error'})`);
  });
  const shown = rel === '' ? '.' : rel;
  let abs: string;
  if (path.isAbsolute(rel)) {
    abs = path.resolve(rel);
    if (!isWithin(rootAbs, abs) && !isWithin(rootReal, abs)) {
      throw new WorkspaceError(
        'outside-workspace',
        `${shown} is outside the workspace (${rootAbs}); use a path relative to the workspace root`,
      );
    }
  } else {
    abs = path.resolve(rootAbs, rel);
    if (!isWithin(rootAbs, abs)) {
      throw new WorkspaceError(
        'outside-workspace',
        `${shown} escapes the workspace root with '..'; paths must stay inside ${rootAbs}`,
      );
    }
  }
  const real = await realpathAllowingMissing(abs, shown);
  if (!isWithin(rootReal, real)) {
    throw new WorkspaceError(
      'outside-workspace',
      `${shown} resolves through a symlink to ${real}, which is outside the workspace`,
    );
  }
  return real;
}

/** `abs` (inside the real root) as a workspace-relative `/` path ('.' for the root). */
function toRelative(rootReal: string, abs: string): string {
  const rel = path.relative(rootReal, abs);
  return rel === '' ? '.' : rel.split(path.sep).join('/');
}

export interface NodeWorkspaceOptions {
  /** Workspace Trust; default true (the CLI runs where the user asked it to). */
  readonly trusted?: boolean;
  /** Offer `exec`; default true. */
  readonly allowExec?: boolean;
  /**
   * Asked before a write into `.git` or `.trimline` (protected-paths.ts); resolves
   * true to allow. Absent: such writes are refused.
   */
  readonly approveProtectedWrite?: (w: ProtectedWrite) => Promise<boolean>;
}

export class NodeWorkspace implements Workspace {
  readonly root: string;
  readonly trusted: boolean;
  readonly exec?: (command: string, options: ExecOptions) => Promise<ExecResult>;

  private readonly approveProtectedWrite?: (w: ProtectedWrite) => Promise<boolean>;

  constructor(root: string, options: NodeWorkspaceOptions = {}) {
    this.root = path.resolve(root);
    this.trusted = options.trusted ?? true;
    this.approveProtectedWrite = options.approveProtectedWrite;
    if (options.allowExec ?? true) this.exec = (command, opts) => runShell(command, this.root, opts);
  }

  private resolve(rel: string): Promise<string> {
    return resolveInWorkspace(this.root, rel);
  }

  async readFile(rel: string): Promise<Uint8Array> {
    const abs = await this.resolve(rel);
    try {
      return new Uint8Array(await fsp.readFile(abs));
    } catch (e) {
      throw toWorkspaceError(e, rel);
    }
  }

  async writeFile(rel: string, content: string): Promise<void> {
    const abs = await this.resolve(rel);
    // Judged on the path as written (`..` resolved) and on its real path (symlinks resolved).
    const lexical = path.relative(this.root, path.resolve(this.root, rel));
    const real = path.relative(await fsp.realpath(this.root), abs);
    const guarded = protectedWrite(rel, [lexical, real]);
    if (guarded && !(await this.approveProtectedWrite?.(guarded)))
      throw new WorkspaceError('permission', protectedWriteRefusal(guarded));
    try {
      await fsp.mkdir(path.dirname(abs), { recursive: true });
      await fsp.writeFile(abs, content, 'utf8');
    } catch (e) {
      throw toWorkspaceError(e, rel);
    }
  }

  async stat(rel: string): Promise<FileStat | undefined> {
    const abs = await this.resolve(rel);
    try {
      const s = await fsp.stat(abs);
      return { type: s.isFile() ? 'file' : s.isDirectory() ? 'directory' : 'other', size: s.size, mtimeMs: s.mtimeMs };
    } catch (e) {
      if (errnoOf(e) === 'ENOENT' || errnoOf(e) === 'ENOTDIR') return undefined;
      throw toWorkspaceError(e, rel);
    }
  }

  async realpath(rel: string): Promise<string> {
    return this.resolve(rel);
  }

  async list(rel: string, options: ListOptions): Promise<ListResult> {
    const base = await this.resolve(rel);
    const st = await fsp.stat(base).catch((e: unknown) => {
      throw toWorkspaceError(e, rel);
    });
    if (!st.isDirectory()) throw new WorkspaceError('not-directory', `${rel} is a file, not a directory`);
    const rootReal = await fsp.realpath(this.root);
    const files = await walk(nodeDirectory(base), options);
    return {
      files: files.files.map((f) => toRelative(rootReal, path.join(base, f))).sort(),
      truncated: files.truncated,
    };
  }
}

/** The walk's view of a directory tree on disk (see walk.ts). */
function nodeDirectory(base: string): WalkSource {
  const kind = (ent: Dirent): 'dir' | 'file' | 'link' | 'other' =>
    ent.isDirectory() ? 'dir' : ent.isSymbolicLink() ? 'link' : ent.isFile() ? 'file' : 'other';
  return {
    readDir: async (dir) =>
      (await fsp.readdir(path.join(base, dir), { withFileTypes: true })).map((ent) => ({
        name: ent.name,
        kind: kind(ent),
      })),
    linkIsFile: (rel) =>
      fsp.stat(path.join(base, rel)).then(
        (s) => s.isFile(),
        () => false,
      ),
  };
}

/** Keeps the first and the last `max/2` bytes of a stream, counting what it drops. */
class HeadTail {
  private readonly half: number;
  private readonly headChunks: Buffer[] = [];
  private headBytes = 0;
  private tailChunks: Buffer[] = [];
  private tailBytes = 0;
  private total = 0;

  constructor(maxBytes: number) {
    this.half = Math.max(1, Math.floor(maxBytes / 2));
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.half - this.headBytes;
    if (room > 0) {
      const h = chunk.subarray(0, room);
      this.headChunks.push(h);
      this.headBytes += h.length;
      chunk = chunk.subarray(h.length);
    }
    if (!chunk.length) return;
    this.tailChunks.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tailBytes - this.tailChunks[0].length >= this.half) this.tailBytes -= this.tailChunks.shift()!.length;
    if (this.tailBytes > this.half) {
      const drop = this.tailBytes - this.half;
      this.tailChunks[0] = this.tailChunks[0].subarray(drop);
      this.tailBytes -= drop;
    }
  }

  result(): { head: string; tail: string; omittedBytes: number } {
    const head = Buffer.concat(this.headChunks);
    const tail = Buffer.concat(this.tailChunks);
    const omittedBytes = this.total - head.length - tail.length;
    // Nothing omitted: head and tail join into one complete output.
    if (omittedBytes === 0) return { head: Buffer.concat([head, tail]).toString('utf8'), tail: '', omittedBytes };
    return { head: head.toString('utf8'), tail: tail.toString('utf8'), omittedBytes };
  }
}

/**
 * Run `command` with the platform shell in `cwd`. stdin is closed (a command
 * waiting for input gets EOF instead of hanging). On POSIX the shell leads its
 * own process group so a timeout kills the whole pipeline, not just `sh`.
 */
export function runShell(command: string, cwd: string, options: ExecOptions): Promise<ExecResult> {
  const posix = process.platform !== 'win32';
  const child = spawn(command, { cwd, shell: true, detached: posix, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = new HeadTail(options.maxOutputBytes);
  child.stdout.on('data', (b: Buffer) => out.push(b));
  child.stderr.on('data', (b: Buffer) => out.push(b));
  let timedOut = false;
  let aborted = false;
  const timers: NodeJS.Timeout[] = [];

  const kill = (sig: NodeJS.Signals): void => {
    try {
      if (posix && child.pid !== undefined) process.kill(-child.pid, sig);
      else child.kill(sig);
    } catch {
      // already gone
    }
  };
  const stop = (): void => {
    kill('SIGTERM');
    timers.push(setTimeout(() => kill('SIGKILL'), KILL_GRACE_MS));
  };

  return new Promise<ExecResult>((resolve) => {
    let exit: { code: number | null; signal: string | null } | undefined;
    let settled = false;
    const onAbort = (): void => {
      aborted = true;
      stop();
    };
    const finish = (spawnError?: Error): void => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      // A stopped command may have left children holding the pipes: make sure they die.
      if (timedOut || aborted) kill('SIGKILL');
      options.signal?.removeEventListener('abort', onAbort);
      child.stdout.destroy();
      child.stderr.destroy();
      if (spawnError) out.push(Buffer.from(`failed to start the shell: ${spawnError.message}\n`));
      const r = out.result();
      resolve({ exitCode: exit?.code ?? null, signal: exit?.signal ?? null, ...r, timedOut, aborted });
    };
    timers.push(
      setTimeout(() => {
        timedOut = true;
        stop();
      }, options.timeoutMs),
    );
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (e) => finish(e));
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      timers.push(setTimeout(() => finish(), EXIT_DRAIN_MS));
    });
    child.on('close', (code: number | null, signal: NodeJS.Signals | null) => {
      exit ??= { code, signal };
      finish();
    });
  });
}
