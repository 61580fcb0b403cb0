/**
 * Plain Anthropic JSON → session log: either an array of `MessageParam`, or a
 * request-like object `{system?, tools?, model?, messages}`. Blocks are kept as
 * given. An assistant element that is a saved API response (`id`, `model`,
 * `usage`) keeps those as meta, so its call carries real usage; consecutive
 * elements of one response (same `id`) are one message (json-messages.ts).
 */
import type { ImportedSession, MessageMeta, TextBlockParam, ToolDefinition } from '../session/types';
import type { TranscriptImporter, TranscriptInput } from './detect';
import { ImportError } from './errors';
import { buildJsonSession, isMessageArray, readMessages, responseIdOf, type RawMessage } from './json-messages';
import { baseName, describe, isRecord, usageOf } from './util';

export const anthropicJsonImporter: TranscriptImporter = {
  format: 'anthropic-json',
  label: 'Anthropic JSON',
  expects: '[{role, content}, …] or {system?, tools?, model?, messages}',
  detect: detectAnthropicJson,
  parse: parseAnthropicJson,
};

/** An array of message-like records (possibly empty), or an object with a `messages` array. */
function detectAnthropicJson(input: TranscriptInput): boolean {
  if (!input.json.ok) return false;
  const v = input.json.value;
  if (Array.isArray(v)) return v.length === 0 || isMessageArray(v);
  return isRecord(v) && Array.isArray(v.messages);
}

function parseAnthropicJson(input: TranscriptInput): ImportedSession {
  const v = input.json.ok ? input.json.value : undefined;
  const file = input.file;
  const top = isRecord(v) ? v : undefined;
  const list = top ? top.messages : v;
  if (!Array.isArray(list)) throw new ImportError(file, 'expected an array of messages');
  const base = baseName(file);
  return buildJsonSession({
    format: 'anthropic-json',
    file,
    raws: readMessages(list, file),
    metaOf: (raw) => responseMeta(raw, base),
    system: top ? readSystem(top.system, file) : undefined,
    tools: top ? readTools(top.tools, file) : undefined,
    model: top && typeof top.model === 'string' ? top.model : undefined,
  });
}

/** Source position plus, for a saved API response, its id, model and usage. */
function responseMeta(raw: RawMessage, base: string): MessageMeta {
  const meta: MessageMeta = { source: `${base}:messages[${raw.index}]` };
  if (raw.role !== 'assistant') return meta;
  const id = responseIdOf(raw);
  if (id !== undefined) meta.apiMessageId = id;
  if (typeof raw.rec.model === 'string') meta.model = raw.rec.model;
  const usage = usageOf(raw.rec.usage);
  if (usage) meta.usage = usage;
  return meta;
}

/** `system`: absent, a string, or an array of text blocks. */
function readSystem(v: unknown, file: string): string | TextBlockParam[] | undefined {
  if (v === undefined || v === null || typeof v === 'string') return v ?? undefined;
  if (Array.isArray(v) && v.every((b) => isRecord(b) && b.type === 'text' && typeof b.text === 'string'))
    return v as TextBlockParam[];
  throw new ImportError(file, `"system" is ${describe(v)}, expected a string or an array of text blocks`);
}

/** `tools`: absent, or an array of tool definitions (each with a string `name`). */
function readTools(v: unknown, file: string): ToolDefinition[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v))
    throw new ImportError(file, `"tools" is ${describe(v)}, expected an array of tool definitions`);
  const bad = v.findIndex((t) => !isRecord(t) || typeof t.name !== 'string');
  if (bad >= 0) throw new ImportError(file, `tools[${bad}] has no "name"`);
  return v as ToolDefinition[];
}
