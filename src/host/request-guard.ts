/**
 * What a local server (the proxy, the inspector) accepts before it reads a byte of a request,
 * and where a proxied request may go. One guard for every path of both servers.
 *
 * - The request target is origin-form only (RFC 9112 §3.2.1): one leading `/`, no backslash,
 *   no `.`/`..` segments (also percent-encoded). `//host/…` (read as protocol-relative by URL
 *   parsers), absolute-form (`http://host/…`), authority-form and `*` are refused with 400.
 * - The upstream URL is the configured upstream's origin and base path with the client's path
 *   appended as a string, so nothing the client sends can change the host it goes to.
 * - `Host` must name a loopback address with this server's port (DNS rebinding), and an
 *   `Origin`, which browsers send and API clients do not, must be this server's own address.
 *   A browser's `Sec-Fetch-Site` says the same for requests that carry no `Origin` (a cross-site
 *   `<img>` or link): only `same-origin` and `none` (typed by the user) are let through.
 */

/** A request the proxy refuses outright: its status and the message of an API-shaped error. */
export interface Refusal {
  readonly status: 400 | 403;
  readonly message: string;
}

/** The refusal of a target that is not origin-form. */
export const NOT_ORIGIN_FORM: Refusal = {
  status: 400,
  message: 'the request target must be a path that starts with a single "/" (no absolute URL, no "//host")',
};

/** What {@link refusal} looks at. */
export interface RequestHead {
  readonly url?: string;
  readonly host?: string;
  readonly origin?: string;
  readonly secFetchSite?: string;
}

/** A segment that URL parsers resolve away: `.`, `..`, `%2e`, `.%2E`, … */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/** The path of an origin-form request target (`/v1/messages?beta=true` as sent), else undefined. */
export function originFormPath(target: string | undefined): string | undefined {
  if (target === undefined || target[0] !== '/' || target[1] === '/' || target.includes('\\')) return undefined;
  const path = target.split('?')[0];
  return path.split('/').some((seg) => DOT_SEGMENT.test(seg)) ? undefined : target;
}

/**
 * The upstream URL for an origin-form target: `upstream`'s origin and base path (`https://gw/anthropic`
 * keeps `/anthropic`) followed by the target, joined as text. Undefined when the target is not
 * origin-form or the result would leave the upstream's origin or base path.
 */
export function upstreamUrl(upstream: URL, target: string): URL | undefined {
  const path = originFormPath(target);
  if (path === undefined) return undefined;
  const base = upstream.pathname.replace(/\/+$/, '');
  const url = new URL(`${upstream.origin}${base}${path}`);
  return url.origin === upstream.origin && url.pathname.startsWith(`${base}/`) ? url : undefined;
}

/** One octet of a dotted IPv4 address, 0–255 without leading zeros. */
const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const LOOPBACK_HOST = new RegExp(`^(?:localhost|127(?:\\.${OCTET}){3}|\\[::1\\])(?::(\\d{1,5}))?$`, 'i');

/** Whether a `Host` value names this machine's loopback interface (127.0.0.0/8, localhost, [::1]) on `port`. */
export function isLoopbackHost(host: string | undefined, port: number): boolean {
  const m = host === undefined ? null : LOOPBACK_HOST.exec(host);
  if (!m) return false;
  return m[1] === undefined ? port === 80 : Number(m[1]) === port;
}

/** The origins of the inspector page this server serves (the addresses it is opened at). */
export function ownOrigins(port: number): string[] {
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
}

/**
 * Why a local server on `port` refuses a request for who sent it (Host, Origin, Sec-Fetch-Site);
 * undefined when it may go on ({@link refusal} checks the target first).
 */
function siteRefusal(head: Omit<RequestHead, 'url'>, port: number): Refusal | undefined {
  if (!isLoopbackHost(head.host, port))
    return {
      status: 403,
      message: 'this server only answers to a loopback Host (127.0.0.1, localhost, [::1]) with its port',
    };
  if (head.origin !== undefined && !ownOrigins(port).includes(head.origin.toLowerCase())) {
    return {
      status: 403,
      message:
        "requests from web pages (an Origin other than the inspector's own) are refused; API clients send no Origin",
    };
  }
  if (head.secFetchSite !== undefined && head.secFetchSite !== 'same-origin' && head.secFetchSite !== 'none') {
    return { status: 403, message: 'requests from other web sites are refused' };
  }
  return undefined;
}

/**
 * Why a local server (the proxy, the inspector) on `port` refuses this request before reading it; undefined when it may
 * go on.
 */
export function refusal(head: RequestHead, port: number): Refusal | undefined {
  if (originFormPath(head.url) === undefined) return NOT_ORIGIN_FORM;
  return siteRefusal(head, port);
}

/** The body of a refusal, shaped like the API's own errors. */
export function refusalBody(r: Refusal): string {
  const type = r.status === 400 ? 'invalid_request_error' : 'permission_error';
  return JSON.stringify({ type: 'error', error: { type, message: `Trimline proxy: ${r.message}` } });
}
