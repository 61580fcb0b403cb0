/**
 * OpenAI-style chat transcripts → session log: a bare array of chat messages,
 * SWE-agent trajectories (`{history: [...]}`, `.traj`) and mini-swe-agent
 * trajectories (`{messages: [...]}` or a bare array).
 *
 * - Leading `system` / `developer` messages are the system prompt; a later one
 *   is kept as user text (reported).
 * - An assistant message is one model call: its signed thinking (LiteLLM's
 *   `thinking_blocks`, as SWE-agent keeps them for Claude), its text, then one `tool_use` per
 *   `tool_calls[]` entry (input = the parsed `function.arguments`; broken JSON
 *   is kept as `{raw}`, reported). Call ids are made unique (reused ids get a
 *   suffix, reported), since the API rejects repeated tool_use ids.
 * - `tool` (and legacy `function`) messages become `tool_result` blocks of the
 *   user message right after; consecutive tool and user messages are one user
 *   message (results first), as the Messages API needs. A result names its call
 *   by `tool_call_id` or SWE-agent's `tool_call_ids`; an id the preceding
 *   assistant message did not call is paired with that message's first
 *   unanswered call (reported); with no call to answer it is kept as user text
 *   (reported).
 * - In thought-action trajectories (SWE-agent without function calling, mini-swe-agent) a
 *   user message that answers the preceding assistant action is marked as an observation
 *   (`meta.observation`, see observations.ts): environment output, trimmed like a tool result.
 * No usage is recorded in these formats: calls carry none, so token estimates
 * are used. The model comes from the file when it names one.
 * OpenHands event streams are rebuilt into such messages by openhands.ts.
 */
import type {
  ImportedSession,
  ImportIssue,
  MessageMeta,
  Role,
  ToolResultBlockParam,
  TranscriptFormat,
} from '../session/types';
import type { TranscriptImporter, TranscriptInput } from './detect';
import { ImportError } from './errors';
import { buildJsonSession, type RawMessage } from './json-messages';
import { observationIndexes } from './observations';
import {
  blocksText,
  contentBlocks,
  isValidToolId,
  thinkingBlocks,
  toolInput,
  toolResultContent,
  ToolIds,
} from './openai-content';
import { baseName, describe, isRecord, type JsonRecord } from './util';

/** Roles of OpenAI chat messages. */
const CHAT_ROLES: ReadonlySet<string> = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);

/** Block types only Anthropic content has: an array holding one is Anthropic JSON (or Cline), not OpenAI chat. */
const ANTHROPIC_BLOCK_TYPES: ReadonlySet<string> = new Set([
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
  'image',
  'document',
  'server_tool_use',
]);

export const openAiChatImporter: TranscriptImporter = {
  format: 'openai-chat',
  label: 'OpenAI chat',
  expects: 'messages with system/tool roles or tool_calls, as an array, {history} or {messages}',
  detect: (input) => input.json.ok && chatListOf(input.json.value) !== undefined,
  parse: parseOpenAiChat,
  // SWE-agent and mini-swe-agent trajectories.
  walks: (name) => name.endsWith('.traj') || name.endsWith('.traj.json'),
};

/** Where the chat messages are: the array itself, or its `history` / `messages` key. */
interface ChatList {
  readonly key: 'history' | 'messages' | undefined;
  readonly list: readonly JsonRecord[];
  readonly top?: JsonRecord;
}

function chatListOf(v: unknown): ChatList | undefined {
  if (Array.isArray(v)) return isChatArray(v) ? { key: undefined, list: v } : undefined;
  if (!isRecord(v)) return undefined;
  for (const key of ['history', 'messages'] as const) {
    const list = v[key];
    if (Array.isArray(list) && isChatArray(list)) return { key, list, top: v };
  }
  return undefined;
}

/**
 * Every element has an OpenAI role, and something only OpenAI chat has shows:
 * a system/developer/tool/function role, `tool_calls`/`function_call`, or null
 * content. No Anthropic-only block may appear (that is Anthropic JSON or Cline).
 */
function isChatArray(v: readonly unknown[]): v is JsonRecord[] {
  if (!v.length) return false;
  let openAiOnly = false;
  for (const m of v) {
    if (!isRecord(m) || typeof m.role !== 'string' || !CHAT_ROLES.has(m.role)) return false;
    if (
      Array.isArray(m.content) &&
      m.content.some((b) => isRecord(b) && typeof b.type === 'string' && ANTHROPIC_BLOCK_TYPES.has(b.type))
    )
      return false;
    if (
      (m.role !== 'user' && m.role !== 'assistant') ||
      'tool_calls' in m ||
      'function_call' in m ||
      m.content === null
    )
      openAiOnly = true;
  }
  return openAiOnly;
}

function parseOpenAiChat(input: TranscriptInput): ImportedSession {
  const v = input.json.ok ? input.json.value : undefined;
  const file = input.file;
  const chat = chatListOf(v);
  if (!chat) throw new ImportError(file, 'expected OpenAI chat messages');
  return chatSession({
    format: 'openai-chat',
    file,
    list: chat.list,
    label: (i) => `${chat.key ?? ''}[${i}]`,
    model: chat.top ? modelOf(chat.top) : undefined,
    observations: observationIndexes(chat.list, chat.key, chat.top),
  });
}

/** What `chatSession` builds a session from: OpenAI chat messages, and how to name one in issues and `meta.source`. */
export interface ChatSessionParts {
  readonly format: TranscriptFormat;
  readonly file: string;
  readonly list: readonly JsonRecord[];
  /** `history[3]`, `[3]`, …: where element `i` of `list` is in the file. */
  readonly label: (index: number) => string;
  readonly model?: string;
  /** Issues found before the conversion (e.g. while deriving the messages from events). */
  readonly issues?: readonly ImportIssue[];
  /** Indexes into `list` of the observations of a thought-action loop (observations.ts). */
  readonly observations?: ReadonlySet<number>;
}

/** OpenAI chat messages → the imported session (see the module doc), history checked. */
export function chatSession(parts: ChatSessionParts): ImportedSession {
  const converted = convert(parts.list, parts.label, parts.observations ?? new Set());
  const base = baseName(parts.file);
  return buildJsonSession({
    format: parts.format,
    file: parts.file,
    raws: converted.raws,
    issues: [...(parts.issues ?? []), ...converted.issues],
    metaOf: (raw): MessageMeta => {
      const meta: MessageMeta = { source: `${base}:${parts.label(raw.index)}` };
      if (converted.observed.get(raw) === true) meta.observation = true;
      return meta;
    },
    system: converted.system.length ? converted.system.join('\n\n') : undefined,
    model: parts.model,
  });
}

/** A tool call of the latest assistant message: its id in the file, its (unique) tool_use id, answered yet. */
interface PendingCall {
  readonly orig: string;
  readonly id: string;
  answered: boolean;
}

interface Converted {
  raws: RawMessage[];
  issues: ImportIssue[];
  system: string[];
  /** User messages built only from observation records (true), or from at least one other record (false). */
  observed: Map<RawMessage, boolean>;
}

/** Walk the chat messages once, building Anthropic-shaped messages (see the module doc). */
function convert(
  list: readonly JsonRecord[],
  label: (index: number) => string,
  observations: ReadonlySet<number>,
): Converted {
  const out: Converted = { raws: [], issues: [], system: [], observed: new Map() };
  const ids = new ToolIds();
  let pending: PendingCall[] = [];
  let conversationStarted = false;
  const report = (index: number, message: string): void => {
    out.issues.push({ message: `${label(index)}: ${message}` });
  };
  /**
   * The user message being built (tool results and user text merge into it), created on
   * demand; called once per record that adds to it. It is an observation only when every
   * record in it is one.
   */
  const userMessage = (index: number): RawMessage => {
    const last = out.raws[out.raws.length - 1];
    const raw: RawMessage = last?.role === 'user' ? last : { index, role: 'user', blocks: [], rec: list[index] };
    if (raw !== last) out.raws.push(raw);
    out.observed.set(raw, (out.observed.get(raw) ?? true) && observations.has(index));
    return raw;
  };

  list.forEach((rec, index) => {
    const problems: string[] = [];
    const role = typeof rec.role === 'string' ? rec.role : '';
    if ((role === 'system' || role === 'developer') && !conversationStarted) {
      const text = contentBlocks(rec.content, problems)
        .map((b) => (b.type === 'text' ? b.text : ''))
        .join('\n');
      if (text) out.system.push(text);
    } else if (role === 'system' || role === 'developer') {
      report(index, `${role} message after the conversation started: kept as user text`);
      userMessage(index).blocks.push(...contentBlocks(rec.content, problems));
    } else if (role === 'user') {
      conversationStarted = true;
      userMessage(index).blocks.push(...contentBlocks(rec.content, problems));
    } else if (role === 'assistant') {
      conversationStarted = true;
      pending = [];
      const blocks = [...thinkingBlocks(rec.thinking_blocks, problems), ...contentBlocks(rec.content, problems)];
      for (const call of callsOf(rec, index, problems)) {
        const id = ids.take(call.orig);
        if (id !== call.orig) problems.push(`${call.where}: ${idProblem(call)}: recorded as ${id}`);
        blocks.push({ type: 'tool_use', id, name: call.name, input: call.input });
        pending.push({ orig: call.orig, id, answered: false });
      }
      out.raws.push({ index, role: 'assistant' satisfies Role, blocks, rec });
    } else if (role === 'tool' || role === 'function') {
      conversationStarted = true;
      addToolResults(rec, role, pending, userMessage(index), problems);
    } else {
      problems.push(`role ${JSON.stringify(rec.role) ?? 'missing'} is not an OpenAI chat role: left out`);
    }
    for (const p of problems) report(index, p);
  });
  return out;
}

/** One `tool_calls[]` entry (or a legacy `function_call`) ready to become a tool_use. */
interface ParsedCall {
  readonly where: string;
  readonly orig: string;
  readonly generated: boolean;
  readonly name: string;
  readonly input: Record<string, unknown>;
}

function callsOf(rec: JsonRecord, index: number, problems: string[]): ParsedCall[] {
  const raw: unknown[] = Array.isArray(rec.tool_calls) ? rec.tool_calls : [];
  if (rec.tool_calls !== undefined && rec.tool_calls !== null && !Array.isArray(rec.tool_calls)) {
    problems.push(`tool_calls is ${describe(rec.tool_calls)}, expected an array: left out`);
  }
  const entries = raw.map((c, j) => ({ c, where: `tool_calls[${j}]`, fallbackId: `call_${index}_${j}` }));
  if (isRecord(rec.function_call))
    entries.push({ c: { function: rec.function_call }, where: 'function_call', fallbackId: `call_${index}_fn` });
  const calls: ParsedCall[] = [];
  for (const { c, where, fallbackId } of entries) {
    const fn = isRecord(c) ? c.function : undefined;
    if (!isRecord(c) || !isRecord(fn) || typeof fn.name !== 'string' || !fn.name) {
      problems.push(`${where} has no function name: left out`);
      continue;
    }
    const argProblems: string[] = [];
    const input = toolInput(fn.arguments, argProblems);
    problems.push(...argProblems.map((p) => `${where} (${fn.name}): ${p}`));
    const hasId = typeof c.id === 'string' && c.id.length > 0;
    calls.push({ where, orig: hasId ? (c.id as string) : fallbackId, generated: !hasId, name: fn.name, input });
  }
  return calls;
}

function idProblem(call: ParsedCall): string {
  if (call.generated) return 'no call id';
  return isValidToolId(call.orig)
    ? `call id ${call.orig} already used by an earlier call`
    : `call id ${call.orig} is not a valid tool_use id`;
}

/**
 * The call ids a tool message answers: SWE-agent's `tool_call_ids`, or `tool_call_id`; none for a legacy `function`
 * message.
 */
function answeredIds(rec: JsonRecord): string[] {
  if (Array.isArray(rec.tool_call_ids)) return rec.tool_call_ids.filter((id): id is string => typeof id === 'string');
  return typeof rec.tool_call_id === 'string' ? [rec.tool_call_id] : [];
}

/**
 * The tool_result block(s) of one tool message into `user` (before any user
 * text already there): paired with the latest assistant message's calls.
 */
function addToolResults(
  rec: JsonRecord,
  role: string,
  pending: PendingCall[],
  user: RawMessage,
  problems: string[],
): void {
  const content = toolResultContent(rec.content, problems);
  const wanted = answeredIds(rec);
  if (!wanted.length && role === 'tool') problems.push('tool message without tool_call_id');
  const results: ToolResultBlockParam[] = [];
  (wanted.length ? wanted : [undefined]).forEach((orig, k) => {
    let call = pending.find((p) => !p.answered && p.orig === orig);
    if (!call) {
      call = pending.find((p) => !p.answered);
      if (call && orig !== undefined) {
        problems.push(
          `answers tool call ${orig}, which the preceding assistant message did not make (or was answered ` +
            `already): paired with its unanswered call ${call.orig}`,
        );
      }
    }
    if (!call) {
      problems.push(
        `${role} message${orig ? ` for ${orig}` : ''} has no preceding tool call to answer: kept as user text`,
      );
      if (k === 0)
        user.blocks.push({ type: 'text', text: `[tool result${orig ? ` ${orig}` : ''}]\n${blocksText(content)}` });
      return;
    }
    call.answered = true;
    if (k > 0) problems.push(`one result for several calls: ${call.orig} gets an empty tool_result`);
    const block: ToolResultBlockParam = { type: 'tool_result', tool_use_id: call.id };
    if (k === 0 && content !== undefined) block.content = content as ToolResultBlockParam['content'];
    results.push(block);
  });
  if (!results.length) return;
  const firstOther = user.blocks.findIndex((b) => b.type !== 'tool_result');
  if (firstOther >= 0)
    problems.push('tool result after user text in the same turn: placed before the text (tool results come first)');
  user.blocks.splice(firstOther >= 0 ? firstOther : user.blocks.length, 0, ...results);
}

/**
 * The model a trajectory names: SWE-agent `replay_config.agent.model.name`
 * (the config may be stored as a JSON string), mini-swe-agent
 * `info.config.model.model_name`, or a request body's `model`.
 */
function modelOf(top: JsonRecord): string | undefined {
  let replay: unknown = top.replay_config;
  if (typeof replay === 'string') {
    try {
      replay = JSON.parse(replay) as unknown;
    } catch {
      replay = undefined;
    }
  }
  const candidates = [
    pick(replay, ['agent', 'model', 'name']),
    pick(top, ['info', 'config', 'model', 'model_name']),
    top.model,
  ];
  return candidates.find((c): c is string => typeof c === 'string' && c.length > 0);
}

function pick(v: unknown, path: readonly string[]): unknown {
  let cur = v;
  for (const k of path) cur = isRecord(cur) ? cur[k] : undefined;
  return cur;
}
