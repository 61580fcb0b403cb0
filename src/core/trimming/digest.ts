/**
 * An extractive digest of a range of messages that leaves the view: the user's prompts
 * (shortened) and the reference ids its tool results mentioned, so that a later step can
 * still name the file, hash or id it saw. No model call; deterministic; restorable (the
 * digest is the text of a summary overlay over the range).
 */
import { toolResultText } from '../session/log';
import type { Session } from '../session/session';
import { defaultRefsOf } from './refs';
import { TRIM_MARKER } from './summary-text';

export interface DigestOptions {
  /** Most reference ids listed. */
  maxRefs: number;
  /** Most user prompts quoted, and characters kept of each. */
  maxPrompts: number;
  promptChars: number;
}

export const DIGEST_DEFAULTS: DigestOptions = { maxRefs: 200, maxPrompts: 8, promptChars: 200 };

export function buildDigest(session: Session, from: number, to: number, what: string, o: DigestOptions = DIGEST_DEFAULTS): string {
  const refs = new Set<string>();
  const prompts: string[] = [];
  for (let p = from; p <= to; p++) {
    const m = session.messages[p];
    for (const b of m.blocks) {
      if (b.param.type === 'tool_result') {
        const param = b.param;
        // Extracted once per param object, shared with the tool result summaries (refs.ts).
        for (const r of defaultRefsOf(param, () => toolResultText(param))) refs.add(r);
      } else if (m.role === 'user' && b.param.type === 'text' && !b.param.text.startsWith('<') && prompts.length < o.maxPrompts) {
        const t = b.param.text.trim().replace(/\s+/g, ' ');
        if (t) prompts.push(t.length > o.promptChars ? `${t.slice(0, o.promptChars)}…` : t);
      }
    }
  }
  const list = [...refs];
  const kept = list.slice(-o.maxRefs);
  const parts = [`${TRIM_MARKER}: ${what}; the originals are restorable]`];
  if (prompts.length) parts.push(`user asked: ${prompts.map((p) => `"${p}"`).join('; ')}`);
  if (kept.length) parts.push(`refs seen: ${kept.join(' ')}${list.length > kept.length ? ` (+${list.length - kept.length} older)` : ''}`);
  return parts.join('\n');
}
