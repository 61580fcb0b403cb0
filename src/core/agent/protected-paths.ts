/**
 * Places inside the workspace that are not ordinary files. Writing them changes
 * what git or Trimline itself runs or trusts, so the agent may read them but a
 * write needs the user's approval (both Workspace implementations ask through
 * their host; with nobody to ask, the write is refused):
 * - `.git` (at any depth: nested repositories and submodules too, and a `.git`
 *   file): `.git/config` can set `core.fsmonitor`, `core.pager` or
 *   `core.sshCommand`, and `.git/hooks/*` run on the next commit: a command
 *   without the command approval;
 * - `.trimline`: Trimline's own journals and settings (the record of a session).
 *
 * The check is on path segments, case-insensitively, after `..` is resolved, and
 * on both the path as written and its real path (symlinks resolved), so `.GIT`,
 * `src/../.git/config` and a link to `.git` are all caught. Segments are compared
 * the way file systems that alias names do (as git's own `is_hfs_dotgit` /
 * `is_ntfs_dotgit`): code points HFS+ ignores are dropped, trailing dots and
 * spaces and an NTFS `:stream` suffix are cut, and the 8.3 short names
 * (`GIT~1`, `TRIMLI~1`) count.
 */
import path from 'node:path';

export type ProtectedArea = '.git' | '.trimline';

/** A write the user must approve. */
export interface ProtectedWrite {
  /** The path as the model wrote it. */
  readonly path: string;
  readonly area: ProtectedArea;
  /** Why the area is protected, in one clause (shown on the approval prompt and in the refusal). */
  readonly why: string;
}

const WHY: Readonly<Record<ProtectedArea, string>> = {
  '.git': "git's own configuration and hooks: a change there can make git run commands",
  '.trimline': "Trimline's own journals and settings",
};

/** Code points that HFS+ ignores in file names (git's list), so `.g\u200cit` names `.git` there. */
const IGNORED_IN_NAMES = /[\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]/g;

/** A path segment as a case-insensitive, aliasing file system would read it. */
export function canonicalSegment(segment: string): string {
  return segment
    .replace(IGNORED_IN_NAMES, '')
    .split(':')[0]
    .replace(/[. ]+$/, '')
    .toLowerCase();
}

function areaOfSegment(segment: string): ProtectedArea | undefined {
  const s = canonicalSegment(segment);
  if (s === '.git' || /^git~\d+$/.test(s)) return '.git';
  if (s === '.trimline' || /^trimli~\d+$/.test(s)) return '.trimline';
  return undefined;
}

/**
 * The protected area a workspace-relative path is in, if any. `/` and `\` both
 * separate segments; `..` is resolved first (a path that climbs out is the
 * confinement check's business, not this one's).
 */
export function protectedAreaOf(rel: string): ProtectedArea | undefined {
  const normalized = path.posix.normalize(rel.replace(/\\/g, '/'));
  for (const segment of normalized.split('/')) {
    const area = areaOfSegment(segment);
    if (area) return area;
  }
  return undefined;
}

/**
 * The protected write of `rel` (the path as the model wrote it), judged on every
 * given workspace-relative form of it (as written, and real), or undefined for
 * an ordinary file.
 */
export function protectedWrite(rel: string, forms: readonly string[]): ProtectedWrite | undefined {
  for (const form of forms) {
    const area = protectedAreaOf(form);
    if (area) return { path: rel, area, why: WHY[area] };
  }
  return undefined;
}

/** The error message for a protected write that was not approved (meant for the model and the user). */
export function protectedWriteRefusal(w: ProtectedWrite): string {
  return (
    `refused: ${w.path} is inside ${w.area} (${w.why}). Writing there needs the user's approval, which was not ` +
    'given. Do not retry or work around it; tell the user what you wanted to change and why.'
  );
}
