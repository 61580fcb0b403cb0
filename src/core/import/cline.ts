/**
 * Cline `api_conversation_history.json` → session log.
 *
 * The file is a JSON array of Anthropic `MessageParam`s with a few Cline
 * extras. Classic Cline calls tools in XML inside assistant text and answers in
 * the next user message with text blocks: `[read_file for 'src/a.ts'] Result:`,
 * then the output, then `<environment_details>`. Newer versions use native
 * `tool_use` / `tool_result` blocks. Both are kept as they are; a user message
 * that answers the previous assistant's `tool_use` blocks with text instead of
 * `tool_result` blocks gets `meta.unansweredToolUses` (the request builder
 * decides how to send it). Cline's response `id` on an assistant message
 * (newer versions) is kept as its API message id, so a response split over
 * consecutive records is one message (json-messages.ts). One call per response;
 * Cline records no API usage here.
 */
import type { ContentBlockParam, ImportedSession, ImportIssue, LogMessage, MessageMeta } from '../session/types';
import type { TranscriptImporter, TranscriptInput } from './detect';
import { buildJsonSession, isMessageArray, readMessages, responseIdOf, type RawMessage } from './json-messages';
import { baseName, isoTimestamp, isRecord, withoutFields, type JsonRecord } from './util';

/** The file name Cline (and its forks) give the API history of a task. */
export const CLINE_FILE_NAME = 'api_conversation_history.json';

/** Message-level fields Cline stores next to role/content (`ClineStorageMessage`): a sure sign of the format. */
const CLINE_MESSAGE_FIELDS = ['ts', 'modelInfo', 'metrics'] as const;

/** Text Cline itself writes into user messages: a tool result header, the task wrapper, the environment details. */
const CLINE_TEXT_MARKERS: readonly RegExp[] = [
  /^\[[\w-]+(?: for '[^\n]*')?\] Result:/,
  /^<task>/,
  /<environment_details>/,
];

/**
 * Block fields Cline adds that the Anthropic API does not accept, removed the
 * way Cline's own `cleanContentBlock` does before sending: `call_id` (response
 * id), `reasoning_details` (OpenRouter/Cline providers), `summary` (OpenAI
 * reasoning summaries). `signature` is also removed from non-thinking blocks
 * (a Gemini thought signature), see `stripClineFields`.
 */
export const CLINE_STRIPPED_BLOCK_FIELDS: readonly string[] = ['call_id', 'reasoning_details', 'summary'];

export const clineImporter: TranscriptImporter = {
  format: 'cline',
  label: 'Cline',
  expects: `${CLINE_FILE_NAME} or a message array with Cline's "[tool] Result:" texts`,
  detect: detectCline,
  parse: parseCline,
};

/** A message array that is named like Cline's file, carries Cline's message fields, or Cline's own user texts. */
function detectCline(input: TranscriptInput): boolean {
  if (!input.json.ok || !isMessageArray(input.json.value)) return false;
  if (baseName(input.file) === CLINE_FILE_NAME) return true;
  return input.json.value.some(
    (m) => CLINE_MESSAGE_FIELDS.some((f) => f in m) || (m.role === 'user' && hasClineText(m.content)),
  );
}

function hasClineText(content: unknown): boolean {
  const texts =
    typeof content === 'string' ? [content] : Array.isArray(content) ? content.filter(isRecord).map((b) => b.text) : [];
  return texts.some((t) => typeof t === 'string' && CLINE_TEXT_MARKERS.some((re) => re.test(t)));
}

function parseCline(input: TranscriptInput): ImportedSession {
  const list = input.json.ok && Array.isArray(input.json.value) ? input.json.value : [];
  const base = baseName(input.file);
  const issues: ImportIssue[] = [];
  const raws = readMessages(list, input.file).map((raw) => cleanRaw(raw, issues));
  return buildJsonSession({
    format: 'cline',
    file: input.file,
    raws,
    issues,
    metaOf: (raw, prev) => clineMeta(raw, prev, base),
  });
}

/** Remove Cline-only block fields; drop thinking blocks without a signature (Cline never sends those back). */
function cleanRaw(raw: RawMessage, issues: ImportIssue[]): RawMessage {
  const blocks: ContentBlockParam[] = [];
  raw.blocks.forEach((b, i) => {
    if (b.type === 'thinking' && !(b as unknown as JsonRecord).signature) {
      issues.push({
        message:
          `messages[${raw.index}].content[${i}]: thinking block without signature left out (Cline drops it before ` +
          'sending)',
      });
      return;
    }
    blocks.push(stripClineFields(b));
  });
  return { ...raw, blocks };
}

/** A block without Cline's extra fields (the same object when it has none). */
export function stripClineFields(b: ContentBlockParam): ContentBlockParam {
  const stripped = withoutFields(b, CLINE_STRIPPED_BLOCK_FIELDS);
  return b.type === 'thinking' || b.type === 'redacted_thinking' ? stripped : withoutFields(stripped, ['signature']);
}

/** Source, Cline's `ts` and `modelInfo.modelId`; the unanswered-tool_use flag for text-form results. */
function clineMeta(raw: RawMessage, prev: LogMessage | undefined, base: string): MessageMeta {
  const meta: MessageMeta = { source: `${base}:messages[${raw.index}]` };
  const ts = isoTimestamp(raw.rec.ts);
  if (ts) meta.timestamp = ts;
  const info = raw.rec.modelInfo;
  if (raw.role === 'assistant' && isRecord(info) && typeof info.modelId === 'string') meta.model = info.modelId;
  const id = responseIdOf(raw);
  if (id !== undefined) meta.apiMessageId = id;
  if (raw.role === 'user' && answersWithText(raw.blocks, prev)) meta.unansweredToolUses = true;
  return meta;
}

/**
 * The previous assistant message has tool_use blocks that these blocks do not answer with tool_result, but text is
 * present.
 */
function answersWithText(blocks: readonly ContentBlockParam[], prev: LogMessage | undefined): boolean {
  if (prev?.role !== 'assistant') return false;
  const ids = prev.blocks.filter((b) => b.kind === 'tool_use').map((b) => b.toolUseId);
  if (!ids.length) return false;
  const answered = new Set(blocks.map((b) => (b.type === 'tool_result' ? b.tool_use_id : undefined)));
  return ids.some((id) => !answered.has(id)) && blocks.some((b) => b.type === 'text');
}
