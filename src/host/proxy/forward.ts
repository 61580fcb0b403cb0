/**
 * Pass-through to the upstream API that never breaks the client: method, path, query,
 * headers (auth, anthropic-version, anthropic-beta…) and the upstream's status, headers and
 * body reach the other side unchanged; only hop-by-hop headers are dropped (RFC 9110 §7.6.1)
 * and `host` names the upstream. Response bytes are written as they arrive (SSE is never
 * buffered); a client that goes away aborts the upstream request. Nothing here logs headers.
 */
import http, {
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import https from 'node:https';
import { NOT_ORIGIN_FORM, refusalBody, upstreamUrl } from '../request-guard';

/** Connection-level headers a proxy must not forward (RFC 9110 §7.6.1). */
const HOP_BY_HOP: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

export function forwardHeaders(
  h: IncomingHttpHeaders,
  target: URL,
  body: Buffer | undefined,
  identity: boolean,
): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined || HOP_BY_HOP.has(k) || k === 'host') continue;
    out[k] = v;
  }
  out.host = target.host;
  if (body !== undefined) {
    out['content-length'] = String(body.length);
    delete out['transfer-encoding'];
  }
  // The proxy reads the responses it records (usage from the stream): ask for them uncompressed.
  if (identity) out['accept-encoding'] = 'identity';
  return out;
}

export function responseHeaders(h: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v;
  return out;
}

export interface ForwardOptions {
  readonly upstream: URL;
  /** The request body when the proxy read (and maybe replaced) it; else the client's stream is piped. */
  readonly body?: Buffer;
  /** Without `body`: what was already read from the client's stream, sent before the rest of it. */
  readonly head?: readonly Buffer[];
  /** Ask upstream for an uncompressed response (the proxy parses it). */
  readonly identity?: boolean;
  /** Every response chunk, as relayed (usage recording). */
  readonly onChunk?: (chunk: Buffer) => void;
  /** The response ended (fully relayed) with this status. */
  readonly onEnd?: (status: number) => void;
}

/** The error body the client sees when the upstream cannot be reached (shaped like the API's errors). */
function gatewayError(message: string): string {
  return JSON.stringify({ type: 'error', error: { type: 'api_error', message: `Trimline proxy: ${message}` } });
}

/** Relay an upstream response to the client as it arrives. */
export function relayResponse(
  ur: IncomingMessage,
  res: ServerResponse,
  o: Pick<ForwardOptions, 'onChunk' | 'onEnd'>,
): void {
  res.writeHead(ur.statusCode ?? 502, ur.statusMessage, responseHeaders(ur.headers));
  res.flushHeaders();
  ur.on('data', (chunk: Buffer) => {
    res.write(chunk);
    o.onChunk?.(chunk);
  });
  ur.on('end', () => {
    res.end();
    o.onEnd?.(ur.statusCode ?? 502);
  });
  ur.on('error', () => res.destroy());
}

/** Relay one request upstream and its response back. */
export function forward(req: IncomingMessage, res: ServerResponse, o: ForwardOptions): void {
  const target = upstreamUrl(o.upstream, req.url ?? '');
  if (target === undefined) {
    // The server refuses such targets before it gets here; nothing may go to a host the client chose.
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(refusalBody(NOT_ORIGIN_FORM));
    return;
  }
  const mod = target.protocol === 'https:' ? https : http;
  const up = mod.request(
    target,
    { method: req.method, headers: forwardHeaders(req.headers, target, o.body, o.identity ?? false) },
    (ur) => relayResponse(ur, res, o),
  );
  up.on('error', (e) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.writeHead(502, { 'content-type': 'application/json', 'x-should-retry': 'true' });
    res.end(gatewayError(`upstream ${target.origin} unreachable (${e.message})`));
  });
  // The client went away before the response finished: stop the upstream request too.
  res.on('close', () => {
    if (!res.writableFinished) up.destroy();
  });
  res.socket?.setNoDelay(true);
  if (o.body !== undefined) up.end(o.body);
  else {
    for (const c of o.head ?? []) up.write(c);
    req.pipe(up);
  }
}
