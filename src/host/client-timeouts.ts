/**
 * How long a local server (the proxy, the inspector) waits for a slow client. Node's defaults
 * hold a connection whose headers trickle in for up to 60 s plus a 30 s check interval, and a
 * stalled body for 300 s (`requestTimeout`). Here:
 *
 * - headers: `headersTimeout` {@link ClientTimeouts.headersMs}, checked every
 *   `connectionsCheckingInterval` (at most 1 s), so a connection is closed (408) within about
 *   headersMs + 1 s;
 * - a request body: the socket may be idle at most {@link ClientTimeouts.bodyStallMs} while it
 *   is being received (a body that keeps flowing may take as long as Node's `requestTimeout`);
 * - the response: none of these apply once the request is in, so a response streamed from the
 *   upstream (SSE that runs for minutes, or waits long for its first byte) is never cut.
 */
import type { IncomingMessage, ServerOptions, ServerResponse } from 'node:http';

export interface ClientTimeouts {
  /** Time for a request's headers to arrive. */
  readonly headersMs: number;
  /** Time a request body may stall (no byte received) before the connection is dropped. */
  readonly bodyStallMs: number;
}

export const CLIENT_TIMEOUTS: ClientTimeouts = { headersMs: 30_000, bodyStallMs: 60_000 };

/** Node's default `requestTimeout`: the longest a whole request may take to arrive. */
const REQUEST_MS = 300_000;

/** The `http.createServer` options that enforce `t.headersMs`. */
export function timeoutServerOptions(t: ClientTimeouts): ServerOptions {
  return {
    headersTimeout: t.headersMs,
    requestTimeout: Math.max(REQUEST_MS, t.headersMs),
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(t.headersMs / 4))),
  };
}

/** Whether a request has a body to receive (RFC 9112 §6.3: Transfer-Encoding, or a Content-Length above 0). */
function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/**
 * Drop the connection when `req`'s body stalls for `ms`: the socket's idle timeout (Node's
 * server destroys a socket whose timeout nobody handles) runs until the body has arrived.
 * Once the response has finished, the socket's timeout is Node's keep-alive one: left alone.
 */
export function dropStalledBody(req: IncomingMessage, res: ServerResponse, ms: number): void {
  if (!hasBody(req) || req.complete) return;
  const socket = req.socket;
  socket.setTimeout(ms);
  const done = (): void => {
    if (!res.writableFinished) socket.setTimeout(0);
    req.off('end', done);
    req.off('close', done);
  };
  req.once('end', done);
  req.once('close', done);
}
