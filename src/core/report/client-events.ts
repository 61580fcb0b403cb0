/**
 * What Claude Code records about its own requests besides the messages, read
 * off the raw JSONL lines (the importer keeps messages only):
 * - the client version on every line (`version`): Claude Code's first system
 *   block carries it (`cc_version=…`), so an upgrade mid-session is a new
 *   system prompt, cached apart;
 * - microcompact boundaries (`{"type":"system","subtype":"microcompact_boundary",
 *   "microcompactMetadata":{…,"compactedToolIds"}}`): the client cleared those
 *   tool results itself, and every request after the boundary sent a short
 *   placeholder in their place.
 * Pure: text in, events out; lines that do not parse are skipped (recorded.ts counts them).
 */

export interface Microcompact {
  /** `message.id` of the first response after the boundary: its request is the first without the cleared results. */
  readonly firstResponseId?: string;
  /** `tool_use` ids whose results were cleared. */
  readonly toolIds: readonly string[];
  readonly tokensSaved?: number;
}

export interface ClientEvents {
  /** Client version of each response (`message.id` → `version`). */
  readonly versionOf: ReadonlyMap<string, string>;
  readonly microcompacts: readonly Microcompact[];
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Versions and microcompact boundaries of one Claude Code JSONL text (subagent lines left out unless `sidechain`). */
export function readClientEvents(text: string, sidechain = false): ClientEvents {
  const versionOf = new Map<string, string>();
  const microcompacts: { firstResponseId?: string; toolIds: string[]; tokensSaved?: number }[] = [];
  let open: { firstResponseId?: string; toolIds: string[]; tokensSaved?: number } | undefined;
  for (const raw of text.split('\n')) {
    // Cheap filter first: only assistant lines and microcompact boundaries matter.
    if (!raw.includes('"assistant"') && !raw.includes('microcompact_boundary')) continue;
    let rec: unknown;
    try {
      rec = JSON.parse(raw);
    } catch {
      continue;
    }
    if (!isObj(rec) || (rec.isSidechain === true) !== sidechain) continue;
    if (rec.type === 'system' && rec.subtype === 'microcompact_boundary') {
      const meta = isObj(rec.microcompactMetadata) ? rec.microcompactMetadata : {};
      const ids = Array.isArray(meta.compactedToolIds) ? meta.compactedToolIds.filter((x): x is string => typeof x === 'string') : [];
      open = { toolIds: ids, tokensSaved: typeof meta.tokensSaved === 'number' ? meta.tokensSaved : undefined };
      microcompacts.push(open);
      continue;
    }
    if (rec.type !== 'assistant' || !isObj(rec.message) || typeof rec.message.id !== 'string') continue;
    const id = rec.message.id;
    if (typeof rec.version === 'string' && !versionOf.has(id)) versionOf.set(id, rec.version);
    if (open) {
      open.firstResponseId = id;
      open = undefined;
    }
  }
  return { versionOf, microcompacts };
}
