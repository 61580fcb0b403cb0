/**
 * Approvals of commands and file edits. The chat shows a card; the answer comes
 * back as an `approve` request. Stop (or a new chat) denies everything pending.
 * Edits can be reviewed first in a diff editor: the proposed text is served from a
 * read-only virtual document (`trimline-proposed:`), never written before approval.
 */
import * as vscode from 'vscode';
import type { ApprovalRequest } from '../../core/agent/tools/types';
import type { McpApproval, McpApprovalRequest } from '../../core/mcp/source';
import type { ChatEvent, EditSummary, McpApprovalInfo } from '../../protocol';
import { editNeedsApproval, type ApprovalMode } from './config-map';
import { lineStats } from './text-diff';
import type { EditProposal } from './workspace-adapter';

export const PROPOSED_SCHEME = 'trimline-proposed';

interface Pending {
  resolve(approved: boolean, always: boolean): void;
  proposal?: EditProposal;
}

/** Characters of an MCP call's input shown on its approval card. */
const MCP_INPUT_PREVIEW_CHARS = 2_000;

export class Approvals implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly pending = new Map<string, Pending>();
  private readonly proposed = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private seq = 0;

  constructor(
    private readonly post: (e: ChatEvent) => void,
    private readonly mode: () => ApprovalMode,
    private readonly log: (line: string) => void,
  ) {}

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.proposed.get(uri.toString()) ?? '';
  }

  /** Approval of a command (ToolContext.approve). */
  command = async (req: ApprovalRequest): Promise<boolean> => {
    const mode = this.mode();
    if (mode === 'always') {
      this.log(`run_command approved by setting (commandApproval: always): ${req.command}`);
      return true;
    }
    if (mode === 'never') {
      this.log(`run_command refused by setting (commandApproval: never): ${req.command}`);
      return false;
    }
    return this.ask({ tool: req.tool, detail: req.command });
  };

  /**
   * Approval of an MCP tool call (McpToolSource option): like a command, it follows
   * `commandApproval` (always / never), else the chat asks: approve once, always for
   * this server (the source remembers it for the session), or deny.
   */
  mcp = async (req: McpApprovalRequest): Promise<McpApproval> => {
    const mode = this.mode();
    if (mode !== 'ask') {
      this.log(`${req.apiName} ${mode === 'always' ? 'approved' : 'refused'} by setting (commandApproval: ${mode})`);
      return mode === 'always' ? 'once' : 'deny';
    }
    const input = JSON.stringify(req.input, null, 2) ?? '{}';
    const detail = input.length > MCP_INPUT_PREVIEW_CHARS ? `${input.slice(0, MCP_INPUT_PREVIEW_CHARS)}…` : input;
    const mcp: McpApprovalInfo = { server: req.server, tool: req.tool };
    const { approved, always } = await this.askFull({ tool: req.apiName, detail, mcp });
    return !approved ? 'deny' : always ? 'server' : 'once';
  };

  /**
   * Approval of an edit (VscodeWorkspace option); a write into `.git` or `.trimline` is always asked
   * (editNeedsApproval).
   */
  edit = async (p: EditProposal): Promise<boolean> => {
    if (!editNeedsApproval(this.mode(), p.protected !== undefined)) return true;
    const { added, removed } = lineStats(p.before, p.after);
    const edit: EditSummary = { path: p.path, added, removed, isNew: p.isNew };
    const warning = p.protected ? `Inside ${p.protected.area}: ${p.protected.why}. ` : '';
    const detail = warning + (p.isNew ? `New file in the workspace.` : `Applied as an undoable edit and saved.`);
    return this.ask({ tool: p.isNew ? 'write_file' : 'edit_file', detail, edit }, p);
  };

  private async ask(
    card: { tool: string; detail: string; edit?: EditSummary },
    proposal?: EditProposal,
  ): Promise<boolean> {
    return (await this.askFull(card, proposal)).approved;
  }

  private askFull(
    card: { tool: string; detail: string; edit?: EditSummary; mcp?: McpApprovalInfo },
    proposal?: EditProposal,
  ): Promise<{ approved: boolean; always: boolean }> {
    const requestId = `ap${++this.seq}`;
    return new Promise((resolve) => {
      this.pending.set(requestId, { resolve: (approved, always) => resolve({ approved, always }), proposal });
      this.post({ kind: 'approval', requestId, ...card });
    });
  }

  /** The user's answer from the chat (`always`: every call to this MCP server, for the session). */
  answer(requestId: string, approved: boolean, always = false): void {
    const p = this.pending.get(requestId);
    if (!p) throw new Error('this approval is no longer pending');
    this.settle(requestId, p, approved, always);
    this.log(
      `${approved ? 'approved' : 'denied'}${always ? ' (always, for this server)' : ''} by user: ` +
        `${p.proposal ? p.proposal.path : 'command'}`,
    );
  }

  private settle(requestId: string, p: Pending, approved: boolean, always = false): void {
    this.pending.delete(requestId);
    if (p.proposal) {
      const uri = this.proposedUri(requestId, p.proposal).toString();
      this.proposed.delete(uri);
      void this.closeDiff(uri);
    }
    this.post({ kind: 'approval-settled', requestId, approved });
    p.resolve(approved, always);
  }

  /** Deny everything pending (Stop, new chat, disposal). */
  denyAll(): void {
    for (const [id, p] of [...this.pending]) this.settle(id, p, false);
  }

  private proposedUri(requestId: string, p: EditProposal): vscode.Uri {
    return vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/${requestId}/${p.path.replace(/^\/+/, '')}` });
  }

  /** Close the review tab of a settled edit (it would show a stale proposal). */
  private async closeDiff(proposed: string): Promise<void> {
    const tabs = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === proposed);
    if (tabs.length) await vscode.window.tabGroups.close(tabs, true);
  }

  /** Open the diff of a pending edit: current file (or empty) ↔ proposed text. */
  async showDiff(requestId: string): Promise<void> {
    const p = this.pending.get(requestId)?.proposal;
    if (!p) throw new Error('this edit is no longer pending');
    const right = this.proposedUri(requestId, p);
    this.proposed.set(right.toString(), p.after);
    this.changed.fire(right);
    let left = p.uri;
    if (p.isNew) {
      left = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/${requestId}/empty/${p.path.replace(/^\/+/, '')}` });
      this.proposed.set(left.toString(), '');
    }
    await vscode.commands.executeCommand('vscode.diff', left, right, `${p.path} ↔ proposed by Trimline`, {
      preview: true,
      preserveFocus: false,
    });
  }

  dispose(): void {
    this.denyAll();
    this.changed.dispose();
  }
}
