/**
 * The agent's `Workspace` on VS Code: reads, stats and listings through
 * `vscode.workspace.fs` (open editors win over the disk: the agent sees what the user
 * sees), writes through a `WorkspaceEdit` (undoable, saved afterwards so commands
 * and searches see it), commands through the Node shell of the extension host.
 *
 * Confinement: for `file:` workspaces every path goes through the core's
 * `resolveInWorkspace` (`..`, absolute paths and symlinks that escape are refused);
 * other schemes (virtual workspaces) are confined lexically.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { resolveInWorkspace, runShell } from '../../core/agent/node-workspace';
import { walk, type WalkEntry } from '../../core/agent/walk';
import { protectedWrite, protectedWriteRefusal, type ProtectedWrite } from '../../core/agent/protected-paths';
import {
  WorkspaceError,
  type ExecOptions,
  type ExecResult,
  type FileStat,
  type ListOptions,
  type ListResult,
  type Workspace,
} from '../../core/agent/workspace';
import { changedSpan } from './text-diff';

/** What the user is asked before an edit is applied. */
export interface EditProposal {
  /** Workspace-relative path as the model wrote it. */
  readonly path: string;
  readonly uri: vscode.Uri;
  /** Current text (empty for a new file). */
  readonly before: string;
  readonly after: string;
  readonly isNew: boolean;
  /** Set for a write into `.git` or `.trimline`: asked even when edits are approved by setting. */
  readonly protected?: ProtectedWrite;
}

export interface VscodeWorkspaceOptions {
  /**
   * Asked before every write; resolves true to apply. Absent: writes are applied directly, except protected ones
   * (refused).
   */
  readonly approveEdit?: (proposal: EditProposal) => Promise<boolean>;
  /** Called after an edit was applied (for the log). */
  readonly onEdited?: (proposal: EditProposal) => void;
}

function errnoOf(e: unknown): string | undefined {
  if (e instanceof vscode.FileSystemError) return e.code;
  return typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string' ? e.code : undefined;
}

function toError(e: unknown, rel: string): Error {
  if (e instanceof WorkspaceError) return e;
  switch (errnoOf(e)) {
    case 'FileNotFound':
    case 'ENOENT':
      return new WorkspaceError('not-found', `not found: ${rel}`);
    case 'FileIsADirectory':
    case 'EISDIR':
      return new WorkspaceError('is-directory', `${rel} is a directory`);
    case 'FileNotADirectory':
    case 'ENOTDIR':
      return new WorkspaceError('not-directory', `${rel}: a parent of this path is a file, not a directory`);
    case 'NoPermissions':
    case 'EACCES':
    case 'EPERM':
      return new WorkspaceError('permission', `permission denied: ${rel}`);
    default:
      return new WorkspaceError('other', `${rel}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function entryType(t: vscode.FileType): FileStat['type'] {
  if (t & vscode.FileType.File) return 'file';
  if (t & vscode.FileType.Directory) return 'directory';
  return 'other';
}

export class VscodeWorkspace implements Workspace {
  readonly root: string;
  readonly exec?: (command: string, options: ExecOptions) => Promise<ExecResult>;

  constructor(
    readonly rootUri: vscode.Uri,
    private readonly options: VscodeWorkspaceOptions = {},
  ) {
    this.root = rootUri.scheme === 'file' ? rootUri.fsPath : rootUri.path;
    if (rootUri.scheme === 'file') this.exec = (command, opts) => runShell(command, this.root, opts);
  }

  /** Workspace Trust is read on every call: granting trust takes effect at once. */
  get trusted(): boolean {
    return vscode.workspace.isTrusted;
  }

  /** The confined URI of a model-written path. */
  async uriOf(rel: string): Promise<vscode.Uri> {
    if (this.rootUri.scheme === 'file') return vscode.Uri.file(await resolveInWorkspace(this.root, rel));
    if (typeof rel !== 'string' || rel.includes('\0'))
      throw new WorkspaceError('invalid-path', `invalid path: ${JSON.stringify(rel)}`);
    const rootPath = this.rootUri.path.replace(/\/+$/, '') || '/';
    const abs = path.posix.resolve(rootPath, rel);
    const inside = abs === rootPath || abs.startsWith(rootPath === '/' ? '/' : `${rootPath}/`);
    if (!inside)
      throw new WorkspaceError(
        'outside-workspace',
        `${rel} is outside the workspace; use a path relative to the workspace root`,
      );
    return this.rootUri.with({ path: abs });
  }

  private relOf(uri: vscode.Uri): string {
    const base = this.rootUri.scheme === 'file' ? this.root : this.rootUri.path;
    const target = this.rootUri.scheme === 'file' ? uri.fsPath : uri.path;
    const rel = (this.rootUri.scheme === 'file' ? path : path.posix).relative(base, target);
    return rel === '' ? '.' : rel.split(path.sep).join('/');
  }

  private openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
    return vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  }

  async readFile(rel: string): Promise<Uint8Array> {
    const uri = await this.uriOf(rel);
    const doc = this.openDocument(uri);
    if (doc?.isDirty) return new TextEncoder().encode(doc.getText());
    try {
      return await vscode.workspace.fs.readFile(uri);
    } catch (e) {
      throw toError(e, rel);
    }
  }

  async stat(rel: string): Promise<FileStat | undefined> {
    const uri = await this.uriOf(rel);
    try {
      const s = await vscode.workspace.fs.stat(uri);
      return { type: entryType(s.type), size: s.size, mtimeMs: s.mtime };
    } catch (e) {
      const code = errnoOf(e);
      if (code === 'FileNotFound' || code === 'ENOENT' || code === 'FileNotADirectory' || code === 'ENOTDIR')
        return undefined;
      throw toError(e, rel);
    }
  }

  async realpath(rel: string): Promise<string> {
    const uri = await this.uriOf(rel);
    return uri.scheme === 'file' ? uri.fsPath : uri.path;
  }

  async list(rel: string, options: ListOptions): Promise<ListResult> {
    const base = await this.uriOf(rel);
    const st = await this.stat(rel);
    if (!st) throw new WorkspaceError('not-found', `not found: ${rel}`);
    if (st.type !== 'directory') throw new WorkspaceError('not-directory', `${rel} is a file, not a directory`);
    // Symlinked directories are not descended: no cycles, no escapes; VS Code marks a symlink to a file as a file.
    const kind = (type: vscode.FileType): WalkEntry['kind'] =>
      type & vscode.FileType.SymbolicLink
        ? type & vscode.FileType.File
          ? 'file'
          : 'other'
        : type & vscode.FileType.Directory
          ? 'dir'
          : type & vscode.FileType.File
            ? 'file'
            : 'other';
    const { files, truncated } = await walk(
      {
        readDir: async (dir) =>
          (await vscode.workspace.fs.readDirectory(dir ? vscode.Uri.joinPath(base, dir) : base)).map(
            ([name, type]) => ({ name, kind: kind(type) }),
          ),
      },
      options,
    );
    return this.listResult(base, files, truncated);
  }

  private listResult(base: vscode.Uri, files: string[], truncated: boolean): ListResult {
    return { files: files.map((f) => this.relOf(vscode.Uri.joinPath(base, f))).sort(), truncated };
  }

  /** A write into `.git` or `.trimline`, judged on the path as written and on its confined (real) path. */
  private async protectedWriteOf(rel: string, uri: vscode.Uri): Promise<ProtectedWrite | undefined> {
    if (this.rootUri.scheme !== 'file') {
      const rootPath = this.rootUri.path.replace(/\/+$/, '') || '/';
      return protectedWrite(rel, [
        path.posix.relative(rootPath, path.posix.resolve(rootPath, rel)),
        path.posix.relative(rootPath, uri.path),
      ]);
    }
    const rootReal = await resolveInWorkspace(this.root, '.');
    return protectedWrite(rel, [
      path.relative(this.root, path.resolve(this.root, rel)),
      path.relative(rootReal, uri.fsPath),
    ]);
  }

  /**
   * Write through a WorkspaceEdit after the user approved (when asked): the change
   * lands in the editor's undo stack and is saved to disk.
   */
  async writeFile(rel: string, content: string): Promise<void> {
    const uri = await this.uriOf(rel);
    const existing = await this.stat(rel);
    if (existing && existing.type !== 'file')
      throw new WorkspaceError('is-directory', `${rel} is a ${existing.type}, not a file`);
    const before = existing ? new TextDecoder().decode(await this.readFile(rel)) : '';
    const guarded = await this.protectedWriteOf(rel, uri);
    const proposal: EditProposal = {
      path: rel,
      uri,
      before,
      after: content,
      isNew: !existing,
      ...(guarded ? { protected: guarded } : {}),
    };
    if (guarded && !this.options.approveEdit) throw new WorkspaceError('permission', protectedWriteRefusal(guarded));
    if (this.options.approveEdit && !(await this.options.approveEdit(proposal))) {
      throw new WorkspaceError(
        'permission',
        guarded
          ? protectedWriteRefusal(guarded)
          : `denied by user: the change to ${rel} was not applied. Ask the user what they want instead.`,
      );
    }
    const edit = new vscode.WorkspaceEdit();
    if (!existing) {
      edit.createFile(uri, { ignoreIfExists: false, contents: new TextEncoder().encode(content) });
      if (!(await vscode.workspace.applyEdit(edit)))
        throw new WorkspaceError('other', `${rel}: VS Code refused to create the file`);
    } else {
      const doc = await vscode.workspace.openTextDocument(uri);
      const current = doc.getText();
      const { start, endOld, endNew } = changedSpan(current, content);
      edit.replace(uri, new vscode.Range(doc.positionAt(start), doc.positionAt(endOld)), content.slice(start, endNew));
      if (!(await vscode.workspace.applyEdit(edit)))
        throw new WorkspaceError('other', `${rel}: VS Code refused the edit`);
      if (!(await doc.save()))
        throw new WorkspaceError('other', `${rel}: the edit was applied in the editor but could not be saved`);
    }
    this.options.onEdited?.(proposal);
  }
}
