/**
 * Importers: recorded agent transcripts → the immutable session log.
 *
 * Formats are detected, not declared (see detect.ts for the importer list and
 * `registerImporter`, the extension point for e.g. the trimline journal).
 * Message ids are `m0, m1, …` in file order so overlays saved for an imported
 * transcript stay valid on the next import. Problems inside a transcript are
 * `issues`; only a file that is unusable as a whole throws `ImportError`.
 */
import { readFileSync } from 'node:fs';
import { Session } from '../session/session';
import type { ImportedSession } from '../session/types';
import { anthropicJsonImporter } from './anthropic-json';
import { claudeCodeImporter } from './claude-code';
import { clineUsageImporter } from './cline-usage';
import { detectAndParse, registerImporter } from './detect';
import { openAiChatImporter } from './openai-chat';
import { openHandsImporter } from './openhands';
import { ImportError, oneLine } from './errors';

export { ImportError } from './errors';
export {
  companionFiles,
  isWalkedName,
  readTranscriptRecord,
  registerImporter,
  registeredImporters,
  type TranscriptImporter,
  type TranscriptInput,
  type TranscriptRecord,
} from './detect';
export type {
  RecordedCall,
  RecordedConversation,
  RecordedSession,
  RecordedTranscript,
  RecordedUsage,
} from './recorded';
export { recordedUsage } from './recorded';
export { checkHistory } from './history-check';
export { CLAUDE_CODE_STRIPPED_BLOCK_FIELDS, SYNTHETIC_MODEL } from './claude-code';
export { CLINE_FILE_NAME, CLINE_STRIPPED_BLOCK_FIELDS } from './cline';

// Built-in formats, in detection order: JSONL first (a one-line JSONL file is
// also a JSON document), then Cline (a message array with Cline's marks), then
// OpenHands events (no role at all), then OpenAI-style chat (only with a sign Anthropic JSON cannot have: system/tool
// roles, tool_calls, null content), before the permissive plain Anthropic JSON.
registerImporter(claudeCodeImporter);
registerImporter(clineUsageImporter);
registerImporter(openHandsImporter);
registerImporter(openAiChatImporter);
registerImporter(anthropicJsonImporter);

/** Parse transcript text; `file` names it in errors and `meta.source`. Throws `ImportError`. */
export function parseTranscript(text: string, file: string): ImportedSession {
  return detectAndParse(text, file);
}

/** Read a transcript file and parse it. Unreadable files also throw `ImportError` (one line, no stack). */
export function importTranscript(file: string): ImportedSession {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'is a directory'
          : oneLine(e instanceof Error ? e.message : String(e));
    throw new ImportError(file, `cannot read the file: ${reason}`);
  }
  return parseTranscript(text, file);
}

/**
 * A live `Session` holding the imported log: system, tools and model, every
 * message appended in order (ids and seq kept), and every call recorded.
 */
export function sessionFromImport(imp: ImportedSession): Session {
  const session = new Session({ system: imp.system, tools: imp.tools, model: imp.model });
  for (const m of imp.messages) session.appendMessage(m);
  for (const c of imp.calls) {
    const { index: _index, ...call } = c;
    session.recordCall(call);
  }
  return session;
}
