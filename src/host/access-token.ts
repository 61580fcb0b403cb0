/**
 * The per-launch secret of a local server's inspector (as Jupyter's): other accounts on the
 * machine can reach 127.0.0.1 too, and Host/Origin checks keep out only browsers. The URL a
 * server prints carries the token as `?token=…`; the page reads it from there once and sends
 * it with its own calls, as the {@link TOKEN_HEADER} header (fetch) or the `token` query
 * parameter (EventSource, which cannot set headers). Compared in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { TOKEN_HEADER, TOKEN_PARAM } from '../protocol/access';

export { TOKEN_HEADER, TOKEN_PARAM };

/** A fresh token: 32 random bytes, URL-safe base64. */
export function newAccessToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The token a request carries (the header first, else `?token=`); undefined when none. */
export function requestToken(req: Pick<IncomingMessage, 'headers' | 'url'>): string | undefined {
  const h = req.headers[TOKEN_HEADER];
  if (typeof h === 'string') return h;
  return new URL(req.url ?? '/', 'http://x').searchParams.get(TOKEN_PARAM) ?? undefined;
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/**
 * Whether `given` is `expected`, in time that does not depend on where they differ or on
 * their lengths (their digests are compared).
 */
export function tokenMatches(expected: string, given: string | undefined): boolean {
  return given !== undefined && timingSafeEqual(digest(expected), digest(given));
}

/** `base` (`http://127.0.0.1:PORT/`) with the token: the address to print and open. */
export function urlWithToken(base: string, token: string): string {
  const u = new URL(base);
  u.searchParams.set(TOKEN_PARAM, token);
  return u.toString();
}
