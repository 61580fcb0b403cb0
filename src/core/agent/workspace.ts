/**
 * The Workspace: everything the agent's tools may touch, behind one interface.
 *
 * Implementations: `NodeWorkspace` (node-workspace.ts, Node `fs` + `child_process`,
 * used by the CLI and tests) and the VS Code adapter (src/host/vscode, with
 * `vscode.workspace.fs` and `WorkspaceEdit`).
 *
 * Paths (`rel`) are what the model wrote: relative to `root` or absolute inside
 * it, with `/` separators. Every implementation confines them to the workspace
 * (see `resolveInWorkspace` in node-workspace.ts) and throws a `WorkspaceError`
 * with a message the model can act on; the tools turn errors into is_error results.
 */

/** What kind of entry a path is. Symlinks are followed (a link to a file is a 'file'). */
export type EntryType = 'file' | 'directory' | 'other';

export interface FileStat {
  readonly type: EntryType;
  /** Size in bytes (0 for directories on some file systems). */
  readonly size: number;
  readonly mtimeMs: number;
}

export interface ListOptions {
  /**
   * Glob relative to the listed directory (`*`, `**`, `?`, `{a,b}`, `[abc]`;
   * see tools/glob.ts). Absent: every file at any depth.
   */
  readonly pattern?: string;
  /** Entry names (exact, any depth) that are neither listed nor descended into. */
  readonly ignore?: readonly string[];
  /** Stop after this many files. */
  readonly limit: number;
}

export interface ListResult {
  /** Files only, workspace-relative with `/` separators, sorted. */
  readonly files: readonly string[];
  /** True when `limit` (or the implementation's walk budget) cut the listing. */
  readonly truncated: boolean;
}

export interface ExecOptions {
  readonly timeoutMs: number;
  /** Output kept: the first half and the last half of this many bytes. */
  readonly maxOutputBytes: number;
  /** Aborting kills the process (and its process group where the OS allows). */
  readonly signal?: AbortSignal;
}

export interface ExecResult {
  /** Exit code; null when the process was killed by a signal. */
  readonly exitCode: number | null;
  /** Name of the signal that ended the process, if any. */
  readonly signal: string | null;
  /** stdout and stderr interleaved as they arrived: the head of the output (all of it when nothing was omitted). */
  readonly head: string;
  /** The tail of the output when the middle was omitted; empty otherwise. */
  readonly tail: string;
  /** Bytes dropped between head and tail (0 when the output is complete). */
  readonly omittedBytes: number;
  readonly timedOut: boolean;
  readonly aborted: boolean;
}

export interface Workspace {
  /** Absolute path of the workspace folder. */
  readonly root: string;
  /**
   * VS Code Workspace Trust. In an untrusted (restricted) workspace the agent
   * may read but not write files or run commands.
   */
  readonly trusted: boolean;
  /** File bytes (as `vscode.workspace.fs.readFile` gives them); tools decode and detect binary. */
  readFile(rel: string): Promise<Uint8Array>;
  /** Write UTF-8 text, creating parent directories. */
  writeFile(rel: string, content: string): Promise<void>;
  /** Undefined when nothing exists at the path. */
  stat(rel: string): Promise<FileStat | undefined>;
  /** Files under the directory `rel` (recursive), filtered by `pattern`. */
  list(rel: string, options: ListOptions): Promise<ListResult>;
  /** Absolute real path (symlinks resolved), after confinement. */
  realpath(rel: string): Promise<string>;
  /** Run a shell command in `root`. Absent: this host cannot run commands. */
  exec?(command: string, options: ExecOptions): Promise<ExecResult>;
}

export type WorkspaceErrorCode =
  'outside-workspace' | 'invalid-path' | 'not-found' | 'is-directory' | 'not-directory' | 'permission' | 'other';

/** An error whose message is meant for the model (and the user) as-is. */
export class WorkspaceError extends Error {
  constructor(
    readonly code: WorkspaceErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'WorkspaceError';
  }
}
