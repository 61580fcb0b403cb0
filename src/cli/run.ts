/**
 * `trimline run "<prompt>"`: the agent, headless. Streams the conversation to
 * stdout (assistant text as it arrives, one line per tool call and per result),
 * journals the session, prints tokens and cost at the end.
 *
 * Exit codes: 0 the turn ended normally, 1 the API failed (after retries) or the
 * turn could not complete, 2 a usage error, 130 cancelled with Ctrl-C.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import {
  AgentLoop,
  missingCredentials,
  NodeWorkspace,
  openAgentSession,
  resolveAgentConfig,
  SessionNotFoundError,
  type AgentSessionHandle,
  type ApprovalRequest,
  type LedgerTotals,
  type ProtectedWrite,
  type TurnResult,
} from '../core/agent';
import { terminalSafe, terminalSafeLine } from '../protocol/safe-text';
import { createPipeline } from '../core/trimming';
import { loadConfig, UsageError } from './common';
import { startMcp } from './mcp';
import { parseCommand } from './args';
import { RUN_COMMAND } from './commands';

/** Where journals go by default, relative to the workspace. */
export const DEFAULT_SESSIONS_SUBDIR = path.join('.trimline', 'sessions');
const EXIT_OK = 0;
const EXIT_API_FAILURE = 1;
const EXIT_CANCELLED = 130;
/** Characters of a tool input or result shown on its one summary line. */
const SUMMARY_CHARS = 120;

/** One line, at most SUMMARY_CHARS. */
function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > SUMMARY_CHARS ? `${line.slice(0, SUMMARY_CHARS - 1)}…` : line;
}

/** The interesting part of a tool input: its path, command, query or target id. */
export function summarizeInput(name: string, input: unknown): string {
  const o = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  const pick = (k: string): string => (typeof o[k] === 'string' ? (o[k] as string) : '');
  switch (name) {
    case 'run_command':
      return `$ ${pick('command')}`;
    case 'search':
      return `${JSON.stringify(pick('query'))}${pick('path') ? ` in ${pick('path')}` : ''}`;
    case 'list_files':
      return `${pick('path') || '.'}${pick('pattern') ? ` ${pick('pattern')}` : ''}`;
    case 'trim_tool_result':
      return pick('tool_use_id');
    default:
      return pick('path') || JSON.stringify(input);
  }
}

/**
 * Writes the conversation as it happens: text streamed, one line per tool call and per result.
 * Everything it prints (model text, tool names, paths, commands, results) goes through the
 * terminal sanitizer (protocol/safe-text.ts): a file or a model cannot drive the terminal.
 */
export class RunPrinter {
  private atLineStart = true;
  private streamedThisCall = false;
  /** A streamed CR held back: the next chunk may start with the LF of a CRLF pair. */
  private heldCR = false;

  constructor(
    private readonly out: Writable,
    private readonly err: Writable,
  ) {}

  /** Finish a streamed line so the next output starts on its own line. */
  breakLine(): void {
    if (this.heldCR) this.out.write(terminalSafe('\r'));
    this.heldCR = false;
    if (!this.atLineStart) this.out.write('\n');
    this.atLineStart = true;
  }

  line(text: string): void {
    this.breakLine();
    this.out.write(`${terminalSafe(text)}\n`);
  }

  /** Diagnostics (session, retries, errors) go to stderr. */
  note(text: string): void {
    this.breakLine();
    this.err.write(`[trimline] ${terminalSafe(text)}\n`);
  }

  private text(t: string): void {
    if (this.heldCR) t = `\r${t}`;
    this.heldCR = t.endsWith('\r');
    if (this.heldCR) t = t.slice(0, -1);
    if (!t) return;
    this.out.write(terminalSafe(t));
    this.atLineStart = t.endsWith('\n');
    this.streamedThisCall = true;
  }

  attach(loop: AgentLoop): void {
    loop.on('call-start', () => (this.streamedThisCall = false));
    loop.on('text-delta', (e) => this.text(e.text));
    loop.on('tool-start', (e) => this.line(`→ ${e.name} ${oneLine(summarizeInput(e.name, e.input))}`));
    loop.on('tool-result', (e) =>
      this.line(`  ${e.result.is_error ? '✗' : '✓'} ${oneLine(e.result.content) || '(no output)'}`),
    );
    loop.on('retry', (e) => {
      const discarded = this.streamedThisCall ? ' (the partial response above is discarded)' : '';
      this.note(`retry ${e.attempt}/${e.maxRetries} in ${(e.delayMs / 1000).toFixed(1)}s: ${e.reason}${discarded}`);
    });
    loop.on('context-recovery', (e) =>
      this.note(
        `prompt too long (${e.tokens} tokens > ${e.maximum} maximum): trimmed the history to ~${e.budget} tokens ` +
          `(${e.overlaysAdded} overlays), trying once more`,
      ),
    );
    loop.on('error', (e) => this.note(`error: ${e.error.message}`));
    loop.on('turn-end', (e) => {
      if (e.reason === 'cancelled') this.note('cancelled; the session is saved and valid');
      else if (e.reason === 'max_tokens') this.note('the response reached max_tokens');
    });
  }
}

interface RunArgs {
  readonly prompt?: string;
  readonly workspace: string;
  readonly sessionsDir: string;
  readonly sessionId?: string;
  readonly mustExist: boolean;
  readonly strategy: string;
  readonly model?: string;
  readonly maxTokens?: number;
  readonly approveCommands: boolean;
  readonly configFile?: string;
  /** MCP config files (`--mcp-config`, repeatable). */
  readonly mcpConfigs: readonly string[];
  readonly approveMcp: boolean;
}

function parseRunArgs(argv: string[]): RunArgs {
  const { values, positionals } = parseCommand(RUN_COMMAND, argv);
  if (values.session && values.resume)
    throw new UsageError(
      'run: --session and --resume are exclusive (--session names a new or existing session, --resume needs an ' +
        'existing one)',
    );
  const prompt = positionals.join(' ').trim() || undefined;
  if (!prompt && !values.resume && !values.session)
    throw new UsageError('run: missing "<prompt>"; see `trimline run --help`');
  const workspace = path.resolve(values.workspace ?? '.');
  if (!fs.existsSync(workspace) || !fs.statSync(workspace).isDirectory())
    throw new UsageError(`run: workspace ${workspace} is not a directory`);
  let maxTokens: number | undefined;
  if (values['max-tokens'] !== undefined) {
    maxTokens = Number(values['max-tokens']);
    if (!Number.isInteger(maxTokens) || maxTokens < 1)
      throw new UsageError('run: --max-tokens must be a positive integer');
  }
  return {
    prompt,
    workspace,
    sessionsDir: path.resolve(values['sessions-dir'] ?? path.join(workspace, DEFAULT_SESSIONS_SUBDIR)),
    sessionId: values.resume ?? values.session,
    mustExist: values.resume !== undefined,
    strategy: values.strategy ?? 'default',
    model: values.model,
    maxTokens,
    approveCommands: !!values['approve-commands'],
    configFile: values.config,
    mcpConfigs: (values['mcp-config'] ?? []).map((f) => path.resolve(f)),
    approveMcp: !!values['approve-mcp'],
  };
}

/** Ask a yes/no question on the terminal (stderr); the question is sanitized here. */
function askYesNo(printer: RunPrinter, question: string): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    printer.breakLine();
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    rl.question(`${terminalSafe(question)}\n[y/N] `, (answer) => {
      rl.close();
      resolve(/^y(es)?$/i.test(answer.trim()));
    });
  });
}

/** Approval of run_command: automatic with --approve-commands, asked on a TTY, else denied. */
function approver(auto: boolean, printer: RunPrinter): (r: ApprovalRequest) => Promise<boolean> {
  if (auto) return async () => true;
  if (!process.stdin.isTTY) {
    return async (r) => {
      printer.note(`run_command denied (no terminal to ask; pass --approve-commands to allow): ${r.command}`);
      return false;
    };
  }
  return (r) => askYesNo(printer, `Run this command in ${terminalSafeLine(r.cwd)}?\n  $ ${r.command}`);
}

/**
 * Approval of a write into `.git` or `.trimline` (core/agent/protected-paths.ts): always
 * asked on a TTY, as the editor asks; no flag approves it. Without a terminal it is refused.
 */
function protectedWriteApprover(printer: RunPrinter): (w: ProtectedWrite) => Promise<boolean> {
  if (!process.stdin.isTTY) {
    return async (w) => {
      printer.note(
        `write to ${w.path} refused: it is inside ${w.area} (${w.why}); such writes need approval and there is ` +
          'no terminal to ask',
      );
      return false;
    };
  }
  return (w) =>
    askYesNo(printer, `Allow the agent to write ${terminalSafeLine(w.path)}?\n  It is inside ${w.area}: ${w.why}.`);
}

function openSession(a: RunArgs, model: string): AgentSessionHandle {
  try {
    return openAgentSession({ dir: a.sessionsDir, sessionId: a.sessionId, mustExist: a.mustExist, model });
  } catch (e) {
    if (e instanceof SessionNotFoundError)
      throw new UsageError(`run: ${e.message}; list the directory or start a new session without --resume`);
    if (e instanceof Error && /invalid session id/.test(e.message)) throw new UsageError(`run: ${e.message}`);
    throw e;
  }
}

/** `tokens: …, cost …` for the end of a run. */
export function costLine(run: LedgerTotals, session: LedgerTotals): string {
  const approx = run.exactPrices && session.exactPrices ? '' : ' (approximate prices)';
  return (
    `tokens: input ${run.inputTokens}, cache write ${run.cacheWriteTokens}, cache read ${run.cacheReadTokens}, ` +
    `output ${run.outputTokens} ` +
    `(${run.calls} calls) · cost $${run.cost.toFixed(6)} this run, $${session.cost.toFixed(6)} for the session ` +
    `(${session.calls} calls)${approx}`
  );
}

function exitCode(r: TurnResult): number {
  if (r.reason === 'error') return EXIT_API_FAILURE;
  if (r.reason === 'cancelled') return EXIT_CANCELLED;
  return EXIT_OK;
}

/** Entry of `trimline run`; returns the exit code. */
export async function runAgentCli(argv: string[]): Promise<number> {
  const a = parseRunArgs(argv);
  const pipeline = loadConfig(a.configFile);
  const config = resolveAgentConfig({ model: a.model, maxTokens: a.maxTokens, strategy: a.strategy, pipeline });
  const missing = missingCredentials(config);
  if (missing) throw new UsageError(`run: ${missing}`);
  try {
    createPipeline(config.strategy, config.pipeline);
  } catch (e) {
    throw new UsageError(`run: ${(e as Error).message}`);
  }
  const printer = new RunPrinter(process.stdout, process.stderr);
  const mcp = await startMcp(a.mcpConfigs, a.workspace, a.approveMcp, (t) => printer.note(t));
  let handle: AgentSessionHandle;
  try {
    handle = openSession(a, config.model);
  } catch (e) {
    await mcp?.close();
    throw e;
  }
  const loop = new AgentLoop({
    externalTools: mcp,
    session: handle.session,
    workspace: new NodeWorkspace(a.workspace, { approveProtectedWrite: protectedWriteApprover(printer) }),
    config,
    journal: handle.journal,
    calibration: handle.calibration,
    decisions: handle.decisions,
    compressions: handle.compressions,
    approve: approver(a.approveCommands, printer),
  });
  printer.attach(loop);
  const state = handle.resumed ? `resumed, ${handle.session.messages.length} messages` : 'new';
  printer.note(
    `session ${handle.sessionId} (${state}) · model ${config.model} · strategy ${config.strategy} · journal ` +
      `${handle.file}`,
  );
  for (const issue of handle.issues)
    printer.note(`journal: ${issue.line ? `line ${issue.line}: ` : ''}${issue.message}`);
  let interrupts = 0;
  const onSigint = (): void => {
    interrupts++;
    if (interrupts > 1) process.exit(EXIT_CANCELLED);
    printer.note('cancelling… (Ctrl-C again to quit at once)');
    loop.cancel();
  };
  process.on('SIGINT', onSigint);
  try {
    const result = await loop.run(a.prompt);
    printer.breakLine();
    if (result.reason === 'idle')
      printer.note('nothing to continue: the last turn is complete (give a prompt to go on)');
    if (result.reason === 'call-limit')
      printer.note(`stopped after ${result.calls} model calls in one turn (limit ${config.maxCallsPerTurn})`);
    printer.line(costLine(loop.ledger.run, loop.ledger.session));
    const dir =
      a.sessionsDir === path.join(a.workspace, DEFAULT_SESSIONS_SUBDIR) ? '' : ` --sessions-dir ${a.sessionsDir}`;
    printer.note(
      `resume with: trimline run --resume ${handle.sessionId} --workspace ${a.workspace}${dir} ["<prompt>"]`,
    );
    return exitCode(result);
  } finally {
    process.off('SIGINT', onSigint);
    loop.close();
    await mcp?.close();
  }
}
