/**
 * Message digests: the SHA-1 of a message's content identity (cache/rules.ts: its blocks without
 * their `cache_control` markers). The proxy matches a request to what a session already holds by
 * them (proxy/digest.ts), and a cache fingerprint keeps one per message (fingerprint.ts).
 *
 * Clients move their markers from call to call (Claude Code puts one on the last block of the last
 * message), so a message is compared without them; everything else must be byte-identical. The
 * digest is of the message's canonical form, `{role, content: blocks}`: `content: "hi"` digests as
 * `[{type: 'text', text: 'hi'}]`, which is how the session (and so its journal) keeps it. A session
 * restored from its journal after a restart then matches the client's next request whatever form
 * the client sends its content in. 20 bytes per message to keep, whatever the message's size.
 */
import { createHash } from 'node:crypto';
import { normalizeContent } from '../session/log';
import type { MessageParam } from '../session/types';
import { messageIdentityJson } from '../api/cache-rules';

/** SHA-1 (base64) of the message's canonical content identity. */
export function messageDigest(m: MessageParam): string {
  const content = typeof m.content === 'string' ? normalizeContent(m.content) : m.content;
  return createHash('sha1')
    .update(messageIdentityJson({ role: m.role, content }))
    .digest('base64');
}
