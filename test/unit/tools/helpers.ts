/** Shared fixtures for the tool tests: a temp workspace and a tool context. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NodeWorkspace, type NodeWorkspaceOptions } from '../../../src/core/agent/node-workspace';
import type { ApprovalRequest, ToolContext } from '../../../src/core/agent/tools';
import type { Workspace } from '../../../src/core/agent/workspace';
import { Session } from '../../../src/core/session';

/** A fresh temp directory with the given files (path → content). */
export function makeTempDir(files: Record<string, string> = {}, prefix = 'trimline-ws-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(dir, rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, content);
  }
  return dir;
}

export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

export interface TestContext extends ToolContext {
  readonly approvals: ApprovalRequest[];
}

/** A tool context over `workspace` (or a NodeWorkspace on `root`); approve answers `allow`. */
export function makeContext(
  rootOrWorkspace: string | Workspace,
  opts: {
    allow?: boolean;
    session?: Session;
    signal?: AbortSignal;
    callIndex?: number;
    workspace?: NodeWorkspaceOptions;
  } = {},
): TestContext {
  const workspace =
    typeof rootOrWorkspace === 'string' ? new NodeWorkspace(rootOrWorkspace, opts.workspace) : rootOrWorkspace;
  const approvals: ApprovalRequest[] = [];
  return {
    workspace,
    session: opts.session ?? new Session(),
    callIndex: opts.callIndex ?? 0,
    approve: async (r) => {
      approvals.push(r);
      return opts.allow ?? true;
    },
    signal: opts.signal,
    // A stand-in estimator: about four characters per token.
    tokens: (text) => Math.ceil(text.length / 4),
    approvals,
  };
}
