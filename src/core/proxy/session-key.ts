/**
 * Which conversation a proxied request belongs to, from what the client says about it
 * (reference, "What real clients send and record"):
 * - Claude Code sends `x-claude-code-session-id: <session_id>` (the most reliable key);
 * - its `metadata.user_id` is a JSON string `{"device_id", "account_uuid", "session_id"}`
 *   (since about 2.1.78), or `user_<hash>_account_<uuid>_session_<id>` (older versions);
 * - subagents have their own session id, so they become their own sessions.
 * Anything else has no key: the registry matches it by message prefix.
 */

export type HeaderValue = string | readonly string[] | undefined;
export type Headers = Readonly<Record<string, HeaderValue>>;

/** Header Claude Code puts its session id in. */
export const SESSION_HEADER = 'x-claude-code-session-id';

/** Session ids are kept to a safe alphabet (they name journal files); longer or odder ones are not keys. */
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** Older Claude Code `metadata.user_id`: `user_<hash>_account_<uuid>_session_<id>`. */
const LEGACY_USER_ID = /_session_([A-Za-z0-9][A-Za-z0-9._-]{0,127})$/;

function header(headers: Headers, name: string): string | undefined {
  const v = headers[name];
  return typeof v === 'string' ? v : v?.[0];
}

/** The `session_id` inside `metadata.user_id`, in either of Claude Code's formats. */
export function metadataSessionId(metadata: unknown): string | undefined {
  if (typeof metadata !== 'object' || metadata === null) return undefined;
  const userId = (metadata as { user_id?: unknown }).user_id;
  if (typeof userId !== 'string') return undefined;
  if (userId.startsWith('{')) {
    try {
      const v = JSON.parse(userId) as { session_id?: unknown };
      return typeof v.session_id === 'string' && SAFE_ID.test(v.session_id) ? v.session_id : undefined;
    } catch {
      return undefined;
    }
  }
  return LEGACY_USER_ID.exec(userId)?.[1];
}

/** The client's own session key for a request, or undefined when it names none. */
export function sessionKeyOf(headers: Headers, body: { readonly metadata?: unknown }): string | undefined {
  const h = header(headers, SESSION_HEADER);
  if (h !== undefined && SAFE_ID.test(h)) return h;
  return metadataSessionId(body.metadata);
}
