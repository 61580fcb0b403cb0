/**
 * What Claude Code records about its own requests besides the messages, read
 * off the raw JSONL lines (the importer keeps messages only):
 * - the client version on every line (`version`): Claude Code's first system
 *   block carries it (`cc_version=…`), so an upgrade mid-session is a new
 *   system prompt, cached apart;
 * - microcompact boundaries (`{"type":"system","subtype":"microcompact_boundary",
 *   "microcompactMetadata":{…,"compactedToolIds"}}`): the client cleared those
 *   tool results itself, and every request after the boundary sent a short
 *   placeholder in their place; `clearedAttachmentUUIDs` names the
 *   attachments (file contents, nested CLAUDE.md, reminders) it dropped too.
 * Read in the same pass as the recorded spend (recorded.ts), per conversation.
 */

export interface Microcompact {
  /** `message.id` of the first response after the boundary: its request is the first without the cleared results. */
  readonly firstResponseId?: string;
  /** `tool_use` ids whose results were cleared. */
  readonly toolIds: readonly string[];
  /** Uuids of the `attachment` records it cleared (`clearedAttachmentUUIDs`). */
  readonly attachmentUuids: readonly string[];
  readonly tokensSaved?: number;
}

export interface ClientEvents {
  /** Client version of each response (`message.id` → `version`). */
  readonly versionOf: ReadonlyMap<string, string>;
  readonly microcompacts: readonly Microcompact[];
}

/** Collects a conversation's events while its lines are read (recorded.ts reads every line once). */
export class ClientEventsBuilder implements ClientEvents {
  readonly versionOf = new Map<string, string>();
  readonly microcompacts: {
    firstResponseId?: string;
    toolIds: string[];
    attachmentUuids: string[];
    tokensSaved?: number;
  }[] = [];
  private open:
    { firstResponseId?: string; toolIds: string[]; attachmentUuids: string[]; tokensSaved?: number } | undefined;

  /** A `microcompact_boundary` record's metadata. */
  microcompact(meta: Record<string, unknown>): void {
    const strings = (v: unknown): string[] =>
      Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
    this.open = {
      toolIds: strings(meta.compactedToolIds),
      attachmentUuids: strings(meta.clearedAttachmentUUIDs),
      tokensSaved: typeof meta.tokensSaved === 'number' ? meta.tokensSaved : undefined,
    };
    this.microcompacts.push(this.open);
  }

  /** An assistant line: its response id and the client version that wrote it. */
  response(id: string, version: unknown): void {
    if (typeof version === 'string' && !this.versionOf.has(id)) this.versionOf.set(id, version);
    if (this.open) {
      this.open.firstResponseId = id;
      this.open = undefined;
    }
  }
}
