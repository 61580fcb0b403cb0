/**
 * The test server's own request checker: the rules the Messages API enforces,
 * with the API's own 400 wording (quoted from error bodies in public issue
 * threads; sources listed in src/dev/README.md). Written independently of the
 * engine's validator (src/core/request) on purpose: if both shared code, a bug
 * in one would hide in the other.
 *
 * Like the API, it reports the first problem it finds. Consecutive messages of
 * one role are merged into one turn before tool pairing is checked (the API
 * does this); the merge is reported as a warning. `role: "system"` messages
 * (SDK v1.12 `SystemMessageParam`) are accepted and ignored for pairing.
 */
import type { ModelSpec } from './models';
import { requestTokens } from './tokens';
import type { MessagesBody, WireBlock, WireMessage } from './types';

/** The API accepts at most this many blocks with cache_control (automatic caching counts). */
export const MAX_CACHE_BREAKPOINTS = 4;
/** Custom tool names must match this (the API's pattern). */
const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,128}$/;

export interface Rejection {
  readonly status: number;
  readonly type: string;
  readonly message: string;
}

export type CheckResult =
  | { readonly ok: true; readonly body: MessagesBody; readonly promptTokens: number; readonly warnings: string[] }
  | { readonly ok: false; readonly rejection: Rejection; readonly warnings: string[] };

export interface CheckOptions {
  readonly endpoint: 'messages' | 'count_tokens';
  readonly models: ReadonlyMap<string, ModelSpec>;
  /** Overrides every model's context window (tests that want "prompt is too long" cheaply). */
  readonly contextWindow?: number;
  /** true: valid, false: tampered, undefined: not one of ours (accepted, as foreign signatures cannot be checked). */
  readonly verifySignature: (thinking: string, signature: string) => boolean | undefined;
}

class Reject extends Error {
  constructor(readonly rejection: Rejection) {
    super(rejection.message);
  }
}

function bad(message: string): never {
  throw new Reject({ status: 400, type: 'invalid_request_error', message });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const TOOL_PAIR_HINT = 'Each `tool_use` block must have a corresponding `tool_result` block in the next message.';
const RESULT_PAIR_HINT = 'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.';

export function checkRequest(raw: unknown, opts: CheckOptions): CheckResult {
  const warnings: string[] = [];
  try {
    const body = checkShape(raw, opts);
    checkTools(body);
    checkSystem(body);
    checkMessages(body.messages, warnings);
    checkPairing(body.messages);
    checkCacheControl(body);
    checkThinkingRules(body);
    checkEnding(body, opts.models.get(body.model));
    checkSignatures(body.messages, opts);
    const promptTokens = requestTokens(body);
    const limit = opts.contextWindow ?? opts.models.get(body.model)?.contextWindow ?? Infinity;
    if (promptTokens > limit) bad(`prompt is too long: ${promptTokens} tokens > ${limit} maximum`);
    return { ok: true, body, promptTokens, warnings };
  } catch (e) {
    if (e instanceof Reject) return { ok: false, rejection: e.rejection, warnings };
    throw e;
  }
}

function checkShape(raw: unknown, opts: CheckOptions): MessagesBody {
  if (!isObject(raw)) bad('Input should be a valid dictionary');
  if (raw.model === undefined) bad('model: Field required');
  if (typeof raw.model !== 'string') bad('model: Input should be a valid string');
  if (opts.endpoint === 'messages') {
    if (raw.max_tokens === undefined) bad('max_tokens: Field required');
    if (typeof raw.max_tokens !== 'number' || !Number.isInteger(raw.max_tokens))
      bad('max_tokens: Input should be a valid integer');
    if (raw.max_tokens < 1) bad('max_tokens: Input should be greater than or equal to 1');
  }
  if (raw.messages === undefined) bad('messages: Field required');
  if (!Array.isArray(raw.messages)) bad('messages: Input should be a valid list');
  if (!opts.models.has(raw.model)) {
    throw new Reject({ status: 404, type: 'not_found_error', message: `model: ${raw.model}` });
  }
  raw.messages.forEach((m: unknown, i: number) => {
    if (!isObject(m)) bad(`messages.${i}: Input should be a valid dictionary`);
    if (m.role !== 'user' && m.role !== 'assistant' && m.role !== 'system') {
      bad(`messages.${i}.role: Input should be 'user', 'assistant' or 'system'`);
    }
    if (typeof m.content !== 'string' && !Array.isArray(m.content))
      bad(`messages.${i}.content: Input should be a valid string or list`);
    if (Array.isArray(m.content)) {
      m.content.forEach((b: unknown, j: number) => {
        if (!isObject(b) || typeof b.type !== 'string')
          bad(`messages.${i}.content.${j}: Input tag not found; expected a \`type\` field`);
      });
    }
  });
  return raw as unknown as MessagesBody;
}

function checkTools(body: MessagesBody): void {
  if (body.tools === undefined) return;
  if (!Array.isArray(body.tools)) bad('tools: Input should be a valid list');
  const names = new Set<string>();
  body.tools.forEach((tool: unknown, i: number) => {
    if (!isObject(tool)) bad(`tools.${i}: Input should be a valid dictionary`);
    const custom = tool.type === undefined || tool.type === null || tool.type === 'custom';
    if (typeof tool.name !== 'string') bad(`tools.${i}.custom.name: Field required`);
    if (custom && !TOOL_NAME_PATTERN.test(tool.name)) {
      bad(`tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
    }
    if (custom && !isObject(tool.input_schema)) bad(`tools.${i}.custom.input_schema: Field required`);
    if (names.has(tool.name)) bad('tools: Tool names must be unique.');
    names.add(tool.name);
  });
}

function checkSystem(body: MessagesBody): void {
  const sys = body.system;
  if (sys === undefined || typeof sys === 'string') return;
  if (!Array.isArray(sys)) bad('system: Input should be a valid string or list');
  sys.forEach((b: unknown, i: number) => {
    if (!isObject(b) || b.type !== 'text' || typeof b.text !== 'string')
      bad(`system.${i}: Input should be a valid text block`);
    if (b.text === '') bad('system: text content blocks must be non-empty');
  });
}

function blocksOf(m: WireMessage): readonly WireBlock[] {
  return typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
}

function checkMessages(messages: readonly WireMessage[], warnings: string[]): void {
  const last = messages.length - 1;
  const seenToolUse = new Set<string>();
  messages.forEach((m, i) => {
    const empty = typeof m.content === 'string' ? m.content === '' : m.content.length === 0;
    if (empty && !(i === last && m.role === 'assistant')) {
      bad(`messages.${i}: all messages must have non-empty content except for the optional final assistant message`);
    }
    if (typeof m.content === 'string' && m.content !== '' && m.content.trim() === '') {
      bad('messages: text content blocks must contain non-whitespace text');
    }
    if (typeof m.content !== 'string') {
      m.content.forEach((b, j) => {
        if (b.type === 'text') {
          if (typeof b.text !== 'string') bad(`messages.${i}.content.${j}.text.text: Field required`);
          if (b.text === '') bad('messages: text content blocks must be non-empty');
          if (b.text.trim() === '') bad('messages: text content blocks must contain non-whitespace text');
        }
        if (b.type === 'tool_use') {
          const id = String(b.id);
          if (seenToolUse.has(id)) bad(`messages.${i}.content.${j}: \`tool_use\` ids must be unique`);
          seenToolUse.add(id);
        }
      });
    }
    const prev = messages[i - 1];
    if (prev && prev.role === m.role && m.role !== 'system') {
      warnings.push(`messages.${i}: consecutive "${m.role}" messages are merged into one turn by the API`);
    }
  });
  const first = messages.find((m) => m.role !== 'system');
  if (first && first.role !== 'user') bad('messages: first message must use the "user" role');
}

interface TurnBlock {
  readonly block: WireBlock;
  readonly messageIndex: number;
  readonly blockIndex: number;
}
interface Turn {
  readonly role: string;
  readonly firstMessage: number;
  readonly blocks: TurnBlock[];
}

/** Consecutive same-role messages as one turn, the way the API reads them (system messages skipped). */
function turnsOf(messages: readonly WireMessage[]): Turn[] {
  const turns: Turn[] = [];
  messages.forEach((m, messageIndex) => {
    if (m.role === 'system') return;
    let turn = turns[turns.length - 1];
    if (!turn || turn.role !== m.role) {
      turn = { role: m.role, firstMessage: messageIndex, blocks: [] };
      turns.push(turn);
    }
    blocksOf(m).forEach((block, blockIndex) => turn.blocks.push({ block, messageIndex, blockIndex }));
  });
  return turns;
}

function checkPairing(messages: readonly WireMessage[]): void {
  const turns = turnsOf(messages);
  turns.forEach((turn, t) => {
    if (turn.role === 'user') {
      const prev = turns[t - 1];
      const allowed = new Set(
        prev ? prev.blocks.filter((b) => b.block.type === 'tool_use').map((b) => String(b.block.id)) : [],
      );
      for (const { block, messageIndex, blockIndex } of turn.blocks) {
        if (block.type !== 'tool_result') continue;
        const id = String(block.tool_use_id);
        if (!allowed.has(id)) {
          bad(
            `messages.${messageIndex}.content.${blockIndex}: unexpected \`tool_use_id\` found in \`tool_result\` ` +
              `blocks: ${id}. ${RESULT_PAIR_HINT}`,
          );
        }
      }
      return;
    }
    const uses = turn.blocks.filter((b) => b.block.type === 'tool_use');
    if (uses.length === 0) return;
    const next = turns[t + 1];
    const answered = new Set(
      next ? next.blocks.filter((b) => b.block.type === 'tool_result').map((b) => String(b.block.tool_use_id)) : [],
    );
    if (next) {
      // Unexpected ids are reported before missing ones (checked on the user turn itself).
      for (const { block, messageIndex, blockIndex } of next.blocks) {
        if (block.type !== 'tool_result') continue;
        const id = String(block.tool_use_id);
        if (!uses.some((u) => String(u.block.id) === id)) {
          bad(
            `messages.${messageIndex}.content.${blockIndex}: unexpected \`tool_use_id\` found in \`tool_result\` ` +
              `blocks: ${id}. ${RESULT_PAIR_HINT}`,
          );
        }
      }
    }
    const missing = uses.filter((u) => !answered.has(String(u.block.id)));
    if (missing.length > 0) {
      const ids = missing.map((u) => String(u.block.id)).join(', ');
      bad(
        `messages.${missing[0].messageIndex}: \`tool_use\` ids were found without \`tool_result\` blocks ` +
          `immediately after: ${ids}. ${TOOL_PAIR_HINT}`,
      );
    }
    if (next) {
      const firstOther = next.blocks.findIndex((b) => b.block.type !== 'tool_result');
      const lastResult = next.blocks.map((b) => b.block.type).lastIndexOf('tool_result');
      if (firstOther !== -1 && firstOther < lastResult) {
        bad(
          `messages.${next.firstMessage}: Did not find ${uses.length} \`tool_result\` block(s) at the beginning ` +
            'of this message. ' +
            'Messages following `tool_use` blocks must begin with a matching number of `tool_result` blocks.',
        );
      }
    }
  });
}

function hasCc(v: unknown): boolean {
  return isObject(v) && v.cache_control !== undefined && v.cache_control !== null;
}

function checkCacheControl(body: MessagesBody): void {
  let found = 0;
  let lastBlock: unknown;
  for (const tool of body.tools ?? []) {
    if (hasCc(tool)) found++;
    lastBlock = tool;
  }
  if (Array.isArray(body.system)) {
    for (const b of body.system) {
      if (hasCc(b)) found++;
      lastBlock = b;
    }
  }
  for (const m of body.messages) {
    if (typeof m.content === 'string') {
      lastBlock = m.content;
      continue;
    }
    for (const b of m.content) {
      if (hasCc(b)) found++;
      if (b.type === 'tool_result' && Array.isArray(b.content))
        for (const inner of b.content) if (hasCc(inner)) found++;
      if (b.type !== 'thinking' && b.type !== 'redacted_thinking') lastBlock = b;
    }
  }
  // Automatic caching adds a breakpoint on the last cacheable block unless it already has one.
  if (body.cache_control != null && !hasCc(lastBlock)) found++;
  if (found > MAX_CACHE_BREAKPOINTS)
    bad(`A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${found}.`);
}

function checkEnding(body: MessagesBody, model: ModelSpec | undefined): void {
  const last = body.messages[body.messages.length - 1];
  if (!last || last.role !== 'assistant') return;
  if (model && !model.prefill) {
    bad('This model does not support assistant message prefill. The conversation must end with a user message.');
  }
  const blocks = blocksOf(last);
  const tail = blocks[blocks.length - 1];
  if (tail && tail.type === 'text' && typeof tail.text === 'string' && /\s$/.test(tail.text)) {
    bad('messages: final assistant content cannot end with trailing whitespace');
  }
}

const THINKING_TYPES: ReadonlySet<string> = new Set(['thinking', 'redacted_thinking']);

/**
 * The thinking rules, in the API's words where public error bodies quote them: a final assistant
 * message does not end with thinking (an earlier thinking-only response is accepted, as a real
 * Claude Code session shows); with thinking off, a final assistant message holds none; with
 * thinking on, no prefill, and the assistant turn before the last tool results starts with thinking.
 */
function checkThinkingRules(body: MessagesBody): void {
  const on = body.thinking?.type === 'enabled' || body.thinking?.type === 'adaptive';
  const turns = turnsOf(body.messages);
  const last = turns[turns.length - 1];
  if (!last) return;
  if (last.role === 'assistant') {
    const tail = last.blocks[last.blocks.length - 1];
    if (tail && THINKING_TYPES.has(tail.block.type))
      bad(`messages.${tail.messageIndex}: The final block in an assistant message cannot be \`thinking\`.`);
    if (on)
      bad(
        `messages.${body.messages.length - 1}: When \`thinking\` is enabled, the conversation must end with a ` +
          `\`user\` message.`,
      );
    if (last.blocks.some((b) => THINKING_TYPES.has(b.block.type))) {
      bad(
        `messages.${last.firstMessage}.content.0: When thinking is disabled, an \`assistant\` message in the ` +
          `final position cannot contain \`thinking\`. To use thinking blocks, enable \`thinking\` in your request.`,
      );
    }
    return;
  }
  const head = turns[turns.length - 2];
  if (!on || !head || !last.blocks.some((b) => b.block.type === 'tool_result')) return;
  const first = head.blocks[0]?.block.type ?? 'nothing';
  if (THINKING_TYPES.has(first)) return;
  bad(
    `messages.${head.firstMessage}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found ` +
      `\`${first}\`. ` +
      'When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the ' +
      'lastmost set of `tool_use` and `tool_result` blocks). ' +
      'We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`.',
  );
}

function checkSignatures(messages: readonly WireMessage[], opts: CheckOptions): void {
  messages.forEach((m, i) => {
    if (m.role !== 'assistant' || typeof m.content === 'string') return;
    m.content.forEach((b, j) => {
      if (b.type !== 'thinking') return;
      if (typeof b.signature !== 'string' || typeof b.thinking !== 'string') {
        bad(`messages.${i}.content.${j}.thinking.signature: Field required`);
      }
      if (opts.verifySignature(b.thinking, b.signature) === false) {
        bad(`messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`);
      }
    });
  });
}
