/**
 * supersede-stale-reads: once a later read or edit of the same file is in the view,
 * earlier read results of that file become a one-line pointer (the newer content is
 * what counts); identical repeated tool results collapse to the latest one; a client's
 * context block (Cline's `<environment_details>`, its task_progress block) restated by a
 * later one becomes a pointer too (session/client-text.ts; the newest copy stays).
 * Incremental: each new message is scanned once; lookups are by path and content hash.
 */
import { clientContextKind, supersedesContext, type ClientContextKind } from '../session/client-text';
import { toolResultText } from '../session/log';
import { applyTrim } from '../session/trim';
import type { ToolUseBlockParam } from '../session/types';
import { compactInput } from './compact-input';
import { TRIM_MARKER } from './summary-text';
import type { Strategy, StrategyContext, StrategyDoc, Trigger } from './types';
import { hashString } from '../cache/hash';

export interface SupersedeOptions {
  readTools: string[];
  editTools: string[];
  /** Input fields that hold the file path, in order of preference. */
  pathFields: string[];
  /** An edit of a file also supersedes earlier reads of it. */
  supersedeOnEdit: boolean;
  /** Collapse identical results (same tool, same text) to the latest. */
  collapseDuplicates: boolean;
  /** Results at most this long are not worth a pointer. */
  minChars: number;
  /** Tools whose every call restates the whole state (a todo list): a later call supersedes earlier ones. */
  stateTools: string[];
  trigger: Trigger;
}

export const SUPERSEDE_DEFAULTS: SupersedeOptions = {
  readTools: ['Read', 'read_file', 'view', 'NotebookRead', 'read'],
  editTools: [
    'Edit',
    'MultiEdit',
    'Write',
    'edit_file',
    'write_file',
    'str_replace_editor',
    'NotebookEdit',
    'write_to_file',
    'replace_in_file',
  ],
  pathFields: ['file_path', 'path', 'filePath', 'notebook_path', 'filename'],
  supersedeOnEdit: true,
  collapseDuplicates: true,
  minChars: 200,
  stateTools: ['TodoWrite', 'todo_write', 'update_todo_list'],
  trigger: { kind: 'always' },
};

export const SUPERSEDE_DOC: StrategyDoc = {
  name: 'supersede-stale-reads',
  summary:
    "A file's earlier read results become a pointer once a later read or edit of it is in view; " +
    'identical results collapse to the latest.',
  options: [
    {
      name: 'readTools',
      type: 'string[]',
      default: SUPERSEDE_DEFAULTS.readTools,
      description: 'tools that read a file',
    },
    {
      name: 'editTools',
      type: 'string[]',
      default: SUPERSEDE_DEFAULTS.editTools,
      description: 'tools that change a file',
    },
    {
      name: 'pathFields',
      type: 'string[]',
      default: SUPERSEDE_DEFAULTS.pathFields,
      description: 'input fields holding the path',
    },
    { name: 'supersedeOnEdit', type: 'boolean', default: true, description: 'an edit also makes earlier reads stale' },
    {
      name: 'collapseDuplicates',
      type: 'boolean',
      default: true,
      description: 'identical results collapse to the latest',
    },
    { name: 'minChars', type: 'number', default: 200, description: 'shorter results are left alone' },
    {
      name: 'stateTools',
      type: 'string[]',
      default: SUPERSEDE_DEFAULTS.stateTools,
      description: 'tools whose later call restates the whole state',
    },
  ],
};

/** A tool call whose result is to come: the path it reads or edits, and its name. */
interface PendingUse {
  readonly path?: string;
  readonly kind: 'read' | 'edit' | 'other';
  readonly name: string;
}

interface Seen {
  blockId: string;
  pos: number;
}

/** Texts up to this long are printed whole; a longer one by samples (hashing 20 MB blocks the event loop ~40 ms). */
const PRINT_WHOLE_CHARS = 64 * 1024;
const PRINT_SAMPLES = 64;
const SAMPLE_CHARS = 256;
/** Different texts kept per print (sampled prints of different texts may be equal: each match is confirmed). */
const PRINT_MATES = 8;

/** A 64-bit print of a text: of all of it, or of its length and 65 spread samples (head and tail included). */
export function textPrint(text: string): string {
  if (text.length <= PRINT_WHOLE_CHARS) return hashString(text).join(':');
  const stride = Math.floor(text.length / PRINT_SAMPLES);
  const parts: string[] = [];
  for (let i = 0; i < PRINT_SAMPLES; i++) parts.push(text.slice(i * stride, i * stride + SAMPLE_CHARS));
  parts.push(text.slice(-SAMPLE_CHARS));
  return hashString(parts.join('')).join(':');
}

export class SupersedeStaleReads implements Strategy {
  readonly name = 'supersede-stale-reads';
  readonly trigger: Trigger;
  private scanned = 0;
  private readonly reads = new Map<string, Seen[]>();
  /** Results by their print: the ones with that print (a long text's print is sampled: texts confirm the match). */
  private readonly byPrint = new Map<string, (Seen & { text: string })[]>();
  private readonly pendingUses = new Map<string, PendingUse>();
  private readonly readSet: Set<string>;
  private readonly stateSet: Set<string>;
  /** Latest call of each state tool: [tool_use block, its position]. */
  private readonly lastState = new Map<string, Seen>();
  private readonly editSet: Set<string>;
  /** The newest client context block of each kind (session/client-text.ts). */
  private readonly lastContext = new Map<ClientContextKind, Seen>();

  constructor(private readonly o: SupersedeOptions = SUPERSEDE_DEFAULTS) {
    this.trigger = o.trigger;
    this.readSet = new Set(o.readTools);
    this.editSet = new Set(o.editTools);
    this.stateSet = new Set(o.stateTools);
  }

  private pathOf(u: ToolUseBlockParam): string | undefined {
    const input = u.input as Record<string, unknown> | null;
    if (!input || typeof input !== 'object') return undefined;
    for (const f of this.o.pathFields)
      if (typeof input[f] === 'string') return (input[f] as string).replace(/\\/g, '/');
    return undefined;
  }

  run(ctx: StrategyContext): void {
    const msgs = ctx.session.messages;
    for (; this.scanned < ctx.upTo; this.scanned++) {
      if (this.scanned < ctx.epochStart) continue;
      const m = msgs[this.scanned];
      for (const b of m.blocks) {
        if (b.param.type === 'tool_use') {
          const kind = this.readSet.has(b.param.name) ? 'read' : this.editSet.has(b.param.name) ? 'edit' : 'other';
          this.pendingUses.set(b.param.id, { path: this.pathOf(b.param), kind, name: b.param.name });
          if (this.stateSet.has(b.param.name)) {
            const prev = this.lastState.get(b.param.name);
            if (prev) this.supersedeState(ctx, prev, b.param.name, this.scanned);
            this.lastState.set(b.param.name, { blockId: b.id, pos: this.scanned });
          }
        } else if (b.param.type === 'tool_result') {
          const use = this.pendingUses.get(b.param.tool_use_id);
          this.pendingUses.delete(b.param.tool_use_id);
          if (use) this.result(ctx, b.id, toolResultText(b.param), use, b.param.is_error === true);
        } else if (b.observation && b.toolName && m.role === 'user') {
          // A client's text-form tool output (Cline, Roo): its header names the tool and the path.
          const name = b.toolName;
          const kind = this.readSet.has(name) ? 'read' : this.editSet.has(name) ? 'edit' : 'other';
          this.result(
            ctx,
            b.id,
            toolResultText(b.param),
            { path: b.toolTarget?.replace(/\\/g, '/'), kind, name },
            false,
          );
        } else if (m.role === 'user' && b.param.type === 'text') {
          const kind = clientContextKind(b.param.text);
          if (kind) this.context(ctx, kind, { blockId: b.id, pos: this.scanned });
        }
      }
    }
  }

  /** A client context block: the earlier ones it restates point at it (point() leaves protected ones alone). */
  private context(ctx: StrategyContext, kind: ClientContextKind, seen: Seen): void {
    for (const [earlier, s] of [...this.lastContext]) {
      if (!supersedesContext(kind, earlier)) continue;
      const what = earlier === 'focus-chain' ? 'task_progress block' : '<environment_details>';
      this.point(ctx, s, `the client restated its ${what} later (message ${seen.pos})`);
      this.lastContext.delete(earlier);
    }
    this.lastContext.set(kind, seen);
  }

  /** One tool result (a tool_result block, or text-form output) of `use`, at the scan position. */
  private result(ctx: StrategyContext, blockId: string, text: string, use: PendingUse, isError: boolean): void {
    if (use.path && (use.kind === 'read' || (use.kind === 'edit' && this.o.supersedeOnEdit))) {
      this.supersede(ctx, use.path, use.kind, this.scanned);
    }
    if (use.path && use.kind === 'read' && !isError) {
      const list = this.reads.get(use.path) ?? [];
      list.push({ blockId, pos: this.scanned });
      this.reads.set(use.path, list);
    }
    if (this.o.collapseDuplicates && text.length > this.o.minChars) {
      // A fast print of the text (no crypto digest; a huge text's is sampled), confirmed by comparing the texts.
      const h = `${use.name}\0${text.length}:${textPrint(text)}`;
      const same = this.byPrint.get(h) ?? [];
      const i = same.findIndex((s) => s.text === text);
      if (i >= 0) {
        this.point(ctx, same[i], `identical to the later ${use.name} result in message ${this.scanned}`);
        same.splice(i, 1);
      }
      same.push({ blockId, pos: this.scanned, text });
      if (same.length > PRINT_MATES) same.shift();
      this.byPrint.set(h, same);
    }
  }

  private supersede(ctx: StrategyContext, path: string, kind: 'read' | 'edit', pos: number): void {
    const list = this.reads.get(path);
    if (!list) return;
    for (const s of list)
      this.point(
        ctx,
        s,
        `${path} was ${kind === 'read' ? 'read again' : 'edited'} later (message ${pos}); ` +
          'the newer content is what counts',
      );
    this.reads.delete(path);
  }

  /** An earlier call of a state tool: its input is compacted and its result pointed at the newer one. */
  private supersedeState(ctx: StrategyContext, prev: Seen, name: string, pos: number): void {
    const { session } = ctx;
    const use = session.block(prev.blockId)!;
    const why = `a later ${name} call (message ${pos}) restates the whole state`;
    if (
      use.param.type === 'tool_use' &&
      !ctx.isPending(use.id) &&
      !session.isPinned(use.id) &&
      !session.isUserRestored(use.id) &&
      !session.overlaysOnBlock(use.id).length
    ) {
      const compact = compactInput(use.param.input, 0);
      if (compact) this.trimTo(ctx, prev, JSON.stringify(compact), why);
    }
    const resultId = use.toolUseId ? session.toolResultBlockId(use.toolUseId) : undefined;
    const resultPos = resultId ? session.position(session.block(resultId)!.messageId) : undefined;
    if (resultId && resultPos !== undefined && resultPos < pos)
      this.point(ctx, { blockId: resultId, pos: resultPos }, why);
  }

  private point(ctx: StrategyContext, s: Seen, why: string): void {
    const { session } = ctx;
    if (ctx.isPending(s.blockId) || session.isPinned(s.blockId) || session.isUserRestored(s.blockId)) return;
    if (session.overlaysOnBlock(s.blockId).length || session.userText.reasonOf(s.blockId)) return;
    const block = session.block(s.blockId)!;
    if (toolResultText(block.param).length <= this.o.minChars) return;
    this.trimTo(ctx, s, `${TRIM_MARKER}: superseded; original restorable] ${why}.`, why);
  }

  /** Propose `text` in place of the block at `s` when it is shorter as sent (as every other strategy checks). */
  private trimTo(ctx: StrategyContext, s: Seen, text: string, why: string): void {
    const block = ctx.session.block(s.blockId)!;
    const before = ctx.tokens.block(block.param).tokens;
    // As sent: the block the trim makes (session/trim.ts; a tool_result keeps its markup, a bare text count leaves out).
    const after = ctx.tokens.block(applyTrim(block.param, text)).tokens;
    if (after >= before) return;
    ctx.propose({
      position: s.pos,
      saved: before - after,
      overlay: {
        kind: 'trim',
        blockId: s.blockId,
        text,
        author: `strategy:${this.name}`,
        reason: `stale: ${why}`,
        callIndex: ctx.callIndex,
        tokensBefore: before,
        tokensAfter: after,
      },
    });
  }
}
