/**
 * OpenHands event streams → OpenAI chat messages → session log (the chat
 * conversion of openai-chat.ts does the rest).
 *
 * An OpenHands trajectory is a JSON array of events `{id, source, action |
 * observation, …}`. The model's messages are rebuilt from them:
 * - a `system` action is the system prompt (older streams have none: the
 *   session then has no system prompt);
 * - a `message` action is user text (source `user`) or assistant text (source
 *   `agent`);
 * - an action with `tool_call_metadata` carries the whole model response in
 *   `model_response.choices[0].message` (text and `tool_calls`): one assistant
 *   message per response id (a response with several calls has one action
 *   per call);
 * - an observation with `tool_call_metadata` is the tool result of its
 *   `tool_call_id`: its `content`, or its `message` when the content is empty.
 *   OpenHands decorates some results further before sending them (exit codes,
 *   working directory), so result tokens are close, not exact.
 * State changes and empty observations are left out silently; other events
 * with no place in the messages are left out and reported. OpenHands records
 * LiteLLM usage, but without the system prompt and tools the bill cannot be
 * matched, so calls carry no usage (estimates are used), like other
 * OpenAI-style transcripts.
 */
import type { ImportedSession, ImportIssue } from '../session/types';
import type { TranscriptImporter, TranscriptInput } from './detect';
import { ImportError } from './errors';
import { chatSession } from './openai-chat';
import { isRecord, type JsonRecord } from './util';

export const openHandsImporter: TranscriptImporter = {
  format: 'openhands',
  label: 'OpenHands',
  expects: 'an array of events {id, source, action|observation}',
  detect: (input) => input.json.ok && eventsOf(input.json.value) !== undefined,
  parse: parseOpenHands,
};

/** Events that change no message: agent state changes and empty observations. */
const SILENT_ACTIONS: ReadonlySet<string> = new Set(['change_agent_state', 'null']);
const SILENT_OBSERVATIONS: ReadonlySet<string> = new Set(['agent_state_changed', 'null']);

/**
 * The events: a bare array, or `{events: [...]}`; every element `{id: number, source: string, action | observation}`.
 */
function eventsOf(v: unknown): JsonRecord[] | undefined {
  const events = isRecord(v) && Array.isArray(v.events) ? v.events : v;
  if (!Array.isArray(events) || !events.length) return undefined;
  const ok = events.every(
    (e) =>
      isRecord(e) && typeof e.id === 'number' && typeof e.source === 'string' && ('action' in e || 'observation' in e),
  );
  return ok ? (events as JsonRecord[]) : undefined;
}

function parseOpenHands(input: TranscriptInput): ImportedSession {
  const events = input.json.ok ? eventsOf(input.json.value) : undefined;
  if (!events) throw new ImportError(input.file, 'expected an array of OpenHands events');
  const issues: ImportIssue[] = [];
  const list: JsonRecord[] = [];
  const origin: number[] = [];
  const models: string[] = [];
  let lastResponse: string | undefined;
  const push = (index: number, msg: JsonRecord): void => {
    list.push(msg);
    origin.push(index);
  };
  events.forEach((e, index) => {
    const meta = isRecord(e.tool_call_metadata) ? e.tool_call_metadata : undefined;
    const args = isRecord(e.args) ? e.args : {};
    const kind =
      typeof e.action === 'string'
        ? e.action
        : typeof e.observation === 'string'
          ? e.observation
          : String(e.action ?? e.observation);
    if ('action' in e && meta) {
      const response = assistantOf(meta, args);
      if (response.id !== undefined && response.id === lastResponse) return;
      lastResponse = response.id;
      if (response.model) models.push(response.model);
      if (response.problem) issues.push({ message: `events[${index}]: ${response.problem}` });
      push(index, response.message);
    } else if ('observation' in e && meta) {
      const content =
        typeof e.content === 'string' && e.content.length ? e.content : typeof e.message === 'string' ? e.message : '';
      push(index, { role: 'tool', tool_call_id: meta.tool_call_id, content });
    } else if (e.action === 'system' && typeof args.content === 'string') {
      push(index, { role: 'system', content: args.content });
    } else if (e.action === 'message' && (e.source === 'user' || e.source === 'agent')) {
      const text = typeof args.content === 'string' ? args.content : typeof e.message === 'string' ? e.message : '';
      push(index, { role: e.source === 'user' ? 'user' : 'assistant', content: withImages(text, args.image_urls) });
    } else if (!('action' in e ? SILENT_ACTIONS : SILENT_OBSERVATIONS).has(kind)) {
      issues.push({
        message:
          `events[${index}]: ${'action' in e ? 'action' : 'observation'} ${JSON.stringify(kind)} from ` +
          `${String(e.source)} has no place in the model's messages: left out`,
      });
    }
  });
  if (!list.length)
    throw new ImportError(
      input.file,
      'an OpenHands event stream with no messages (no user or agent message, no tool call)',
    );
  return chatSession({
    format: 'openhands',
    file: input.file,
    list,
    label: (i) => `events[${origin[i]}]`,
    model: models[models.length - 1],
    issues,
  });
}

/** The assistant message of an action's model response; without one, rebuilt from the action (reported). */
function assistantOf(
  meta: JsonRecord,
  args: JsonRecord,
): { id?: string; model?: string; message: JsonRecord; problem?: string } {
  const response = isRecord(meta.model_response) ? meta.model_response : undefined;
  const choice: unknown = response && Array.isArray(response.choices) ? response.choices[0] : undefined;
  const message = isRecord(choice) && isRecord(choice.message) ? choice.message : undefined;
  const id = typeof response?.id === 'string' ? response.id : undefined;
  const model = typeof response?.model === 'string' ? response.model : undefined;
  if (message)
    return {
      id,
      model,
      message: { role: 'assistant', content: message.content ?? null, tool_calls: message.tool_calls },
    };
  const { thought, ...rest } = args;
  const call = {
    id: meta.tool_call_id,
    type: 'function',
    function: { name: meta.function_name, arguments: JSON.stringify(rest) },
  };
  return {
    id,
    model,
    message: { role: 'assistant', content: typeof thought === 'string' ? thought : null, tool_calls: [call] },
    problem: 'no model response recorded with the tool call: rebuilt from the action (its thought and arguments)',
  };
}

/** Text plus `image_urls` as OpenAI content parts (the text alone when there are none). */
function withImages(text: string, urls: unknown): string | JsonRecord[] {
  const images = Array.isArray(urls) ? urls.filter((u): u is string => typeof u === 'string') : [];
  if (!images.length) return text;
  return [{ type: 'text', text }, ...images.map((url) => ({ type: 'image_url', image_url: { url } }))];
}
