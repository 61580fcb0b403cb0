/**
 * Claude Code ≥ 2.1 `attachment` records (`{"type":"attachment","uuid",
 * "parentUuid","attachment":{"type":"file"|"nested_memory"|…}}`): file
 * contents of @-mentions, nested CLAUDE.md, todo and plan reminders, hook
 * output… The client sends most of them as `<system-reminder>` text in the
 * user message they sit in; the transcript holds no rendering of that text.
 *
 * The report sizes every block off the recorded usage (report/sizing.ts), so
 * an attachment left out is absorbed, exactly, by the user blocks sent with it
 * in the same call: `none` stays exact while the attachment stays. It stops
 * being exact when a microcompact clears attachments
 * (`microcompactMetadata.clearedAttachmentUUIDs`): every later request is
 * smaller by their size, and the absorbed tokens cannot be told apart from
 * the block that holds them (measured on the self-made fixture: −8.2% with
 * a 5.9k-token "rewrite" instead of an exact fit). So only attachments a
 * microcompact later cleared are imported, each as one user text block
 * (their string fields in a `<system-reminder>`; the size still comes from
 * the usage), so the clearing can be followed like a cleared tool result.
 * Every other attachment stays absorbed, as before.
 */
import type { ContentBlockParam } from '../session/types';
import type { ConvLine } from './claude-code-group';
import { isRecord, type JsonRecord } from './util';

/** Attachment records and the uuids microcompacts cleared, read while the lines are read. */
export class AttachmentLines {
  private readonly records: { line: number; rec: JsonRecord }[] = [];
  private readonly cleared = new Set<string>();
  /** Each imported attachment's block → the attachment's uuid. */
  readonly uuidOf = new Map<ContentBlockParam, string>();

  /** Note an attachment record or a microcompact boundary's cleared attachments. */
  read(rec: JsonRecord, line: number): void {
    if (rec.type === 'attachment' && typeof rec.uuid === 'string' && isRecord(rec.attachment))
      this.records.push({ line, rec });
    if (rec.type === 'system' && rec.subtype === 'microcompact_boundary' && isRecord(rec.microcompactMetadata)) {
      const ids = rec.microcompactMetadata.clearedAttachmentUUIDs;
      if (Array.isArray(ids)) for (const id of ids) if (typeof id === 'string') this.cleared.add(id);
    }
  }

  /** `conv` with the cleared attachments as user lines, in file order. */
  merge(conv: readonly ConvLine[]): ConvLine[] {
    const add: ConvLine[] = [];
    for (const { line, rec } of this.records) {
      if (!this.cleared.has(rec.uuid as string)) continue;
      const block: ContentBlockParam = {
        type: 'text',
        text: `<system-reminder>\n${stringsOf(rec.attachment).join('\n')}\n</system-reminder>`,
      };
      this.uuidOf.set(block, rec.uuid as string);
      add.push({ line, role: 'user', rec, message: { role: 'user', content: [block] }, blocks: [block] });
    }
    if (!add.length) return [...conv];
    return [...conv, ...add].sort((a, b) => a.line - b.line);
  }
}

/** The string leaves of a JSON value except `type` tags, depth first. */
function stringsOf(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) stringsOf(x, out);
  else if (isRecord(v)) for (const [k, x] of Object.entries(v)) if (k !== 'type') stringsOf(x, out);
  return out;
}
