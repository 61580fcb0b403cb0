/**
 * The standalone inspector server: the same inspector webview as in VS Code, served on
 * 127.0.0.1 for a backend (a replayed transcript). node:http only.
 *
 *   GET  /                 the document (fresh nonce per response, CSP header)
 *   GET  /assets/…         the webview bundle and CSS (a fixed list)
 *   POST /api/request      one WebviewMessage (validated with parseWebviewMessage);
 *                          answers a JSON array of HostMessages: [response] for a
 *                          request; for `ready`, [] when `?client=` names an open
 *                          event stream (the whole snapshot goes on that stream),
 *                          else [snapshot] (or [empty] while there is no session)
 *   GET  /api/events       server-sent events (`?client=` names the stream): after
 *                          every change a snapshot delta against what that stream
 *                          was last sent (whole the first time and after `ready`)
 *
 * Only 127.0.0.1 is bound, and every request must name this server in `Host` (and in
 * `Origin` when sent), so other sites and DNS rebinding cannot drive it. The page and
 * `/api/*` also need the per-launch token (access-token.ts) that `pageUrl` carries, so
 * other accounts on the machine cannot read or steer it either: 403 without it. Slow
 * clients are dropped (client-timeouts.ts).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { diffSnapshots, InspectorActionError, inspectorCsp, inspectorHtml, SnapshotStream } from '../../core/inspect';
import {
  parseWebviewMessage,
  type HostMessage,
  type InspectorAction,
  type InspectorSnapshot,
  type SnapshotDelta,
  type WebviewRequest,
} from '../../protocol';
import { newAccessToken, requestToken, tokenMatches, urlWithToken } from '../access-token';
import { CLIENT_TIMEOUTS, dropStalledBody, timeoutServerOptions, type ClientTimeouts } from '../client-timeouts';
import { refusal } from '../request-guard';

export const LOOPBACK = '127.0.0.1';
/** Largest request body accepted (a trim summary is at most 200k characters). */
export const MAX_REQUEST_BYTES = 1024 * 1024;
/** SSE comment sent this often so proxies and browsers keep the stream open. */
const KEEPALIVE_MS = 15_000;

/** What the server serves: snapshots and request handling (see ReplayInspector). */
export interface InspectorBackend {
  /** The current snapshot; undefined while there is no session (the page shows its empty state). */
  snapshot(): InspectorSnapshot | undefined;
  handle(req: WebviewRequest): unknown;
  /**
   * What the empty state offers (`runAction` requests then reach `handle`). The CLI's
   * backends have no chat and no file dialog, so they offer none.
   */
  readonly emptyActions?: readonly InspectorAction[];
}

export interface InspectorServerOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Package root holding dist/webview/ and media/ (default: found from this file). */
  root?: string;
  /** Whether a request changes the snapshot (default: every request except originals/diff). */
  mutates?: (req: WebviewRequest) => boolean;
  /**
   * Requests for paths the inspector does not serve go here instead of a 404 (the proxy's
   * pass-through). The inspector's own paths keep their Host/Origin check.
   */
  fallback?: (req: IncomingMessage, res: ServerResponse) => void;
  /** The access token (default: a fresh random one). */
  token?: string;
  /** How long slow clients are waited for (default {@link CLIENT_TIMEOUTS}). */
  timeouts?: ClientTimeouts;
}

export interface InspectorServer {
  /** `http://127.0.0.1:PORT/`: the base of every path. */
  readonly url: string;
  /** The address to print and open: `url` with `?token=…`. */
  readonly pageUrl: string;
  /** The per-launch secret the page and `/api/*` need. */
  readonly token: string;
  readonly port: number;
  /** Push the current snapshot to every open event stream (as a delta where the stream has one to build on). */
  broadcast(): void;
  close(): Promise<void>;
}

/** Static files by URL path: [file relative to the root, content type]. */
const ASSETS: Readonly<Record<string, readonly [string, string]>> = {
  '/assets/inspector.js': ['dist/webview/inspector.js', 'text/javascript; charset=utf-8'],
  '/assets/inspector.js.map': ['dist/webview/inspector.js.map', 'application/json; charset=utf-8'],
  '/assets/inspector.css': ['dist/webview/inspector.css', 'text/css; charset=utf-8'],
};

/** Longest `?client=` id accepted (the page sends 32 hex digits). */
const MAX_CLIENT_ID = 64;

/** One open event stream: its page's id and what it was last sent. */
interface Client {
  readonly res: ServerResponse;
  readonly id?: string;
  readonly stream: SnapshotStream;
}

function clientOf(url: string | undefined): string | undefined {
  const id = new URL(url ?? '/', 'http://x').searchParams.get('client');
  return id && id.length <= MAX_CLIENT_ID && /^[\w-]+$/.test(id) ? id : undefined;
}

/** Whether the inspector itself answers `path` (every `/api/` path is its own). */
function isInspectorPath(path: string): boolean {
  return path === '/' || path === '/index.html' || path.startsWith('/api/') || Object.hasOwn(ASSETS, path);
}

const NO_TOKEN =
  'forbidden: this inspector needs its access token; open the address Trimline printed (it ends in ?token=…)';

/** The package root: the nearest ancestor of this file with package.json and media/inspector.css. */
export function findRoot(from: string = __dirname): string {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'media', 'inspector.css')) && existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return process.cwd();
  }
}

const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string | Buffer,
  extra: Record<string, string> = {},
): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': type, ...extra });
  res.end(body);
}

class TooLarge extends Error {}

/** The request body as text; past {@link MAX_REQUEST_BYTES} the rest is drained unread and TooLarge thrown. */
function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((ok, fail) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_REQUEST_BYTES) chunks.push(c);
    });
    req.on('end', () =>
      size > MAX_REQUEST_BYTES ? fail(new TooLarge('request too large')) : ok(Buffer.concat(chunks).toString('utf8')),
    );
    req.on('error', fail);
  });
}

export async function startInspectorServer(
  backend: InspectorBackend,
  opts: InspectorServerOptions = {},
): Promise<InspectorServer> {
  const root = opts.root ?? findRoot();
  const mutates =
    opts.mutates ??
    ((r: WebviewRequest) =>
      r.op !== 'originals' && r.op !== 'diff' && r.op !== 'price' && r.op !== 'sessions' && r.op !== 'head');
  const clients = new Set<Client>();
  let port = 0;

  const event = (res: ServerResponse, msg: HostMessage): void => {
    res.write(`data: ${JSON.stringify(msg)}\n\n`);
  };
  /** The snapshot, or the empty state with the backend's actions. */
  const current = (): HostMessage => {
    const snapshot = backend.snapshot();
    return snapshot ? { type: 'snapshot', snapshot } : { type: 'empty', actions: [...(backend.emptyActions ?? [])] };
  };
  /** Empty-state actions are taken only while the empty state is what the page shows. */
  const offered = (action: InspectorAction): boolean =>
    !backend.snapshot() && (backend.emptyActions ?? []).includes(action);
  /**
   * Every stream gets what brings it from its last snapshot to the current one: the
   * delta is computed once per distinct last snapshot (usually one for all pages).
   */
  const broadcast = (): void => {
    if (!clients.size) return;
    const snapshot = backend.snapshot();
    if (!snapshot) {
      const msg = current();
      for (const c of clients) {
        c.stream.reset();
        event(c.res, msg);
      }
      return;
    }
    const deltas = new Map<InspectorSnapshot, SnapshotDelta | undefined>();
    const diff = (
      base: InspectorSnapshot,
      next: InspectorSnapshot,
      baseRevision: number,
      revision: number,
    ): SnapshotDelta | undefined => {
      if (!deltas.has(base)) deltas.set(base, diffSnapshots(base, next, 0, 1));
      const d = deltas.get(base);
      return d && { ...d, base: baseRevision, revision };
    };
    // A stream that has this very snapshot already gets nothing (a push after a read-only request).
    for (const c of clients) if (c.stream.current !== snapshot) event(c.res, c.stream.next(snapshot, diff));
  };
  /** `ready` from the page of an open stream: the whole snapshot goes on that stream, after anything sent before. */
  const resync = (id: string | undefined): boolean => {
    const c = id === undefined ? undefined : [...clients].find((x) => x.id === id);
    if (!c) return false;
    c.stream.reset();
    const snapshot = backend.snapshot();
    event(c.res, snapshot ? c.stream.next(snapshot) : current());
    return true;
  };

  const page = (res: ServerResponse): void => {
    const nonce = randomBytes(18).toString('base64');
    const o = {
      cspSource: "'self'",
      nonce,
      connectSrc: "'self'",
      scriptUri: '/assets/inspector.js',
      styleUri: '/assets/inspector.css',
    };
    send(res, 200, 'text/html; charset=utf-8', inspectorHtml(o), {
      'Content-Security-Policy': `${inspectorCsp(o)}; frame-ancestors 'none'`,
      'X-Frame-Options': 'DENY',
    });
  };

  const api = async (req: IncomingMessage, res: ServerResponse, client: string | undefined): Promise<void> => {
    if (!/^application\/json\b/.test(req.headers['content-type'] ?? ''))
      return send(res, 415, 'text/plain', 'expected application/json');
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readBody(req));
    } catch (e) {
      return e instanceof TooLarge
        ? send(res, 413, 'text/plain', 'request too large')
        : send(res, 400, 'text/plain', 'invalid JSON');
    }
    const msg = parseWebviewMessage(parsed);
    if (!msg) return send(res, 400, 'text/plain', 'not a valid webview message');
    let reply: HostMessage;
    if (msg.type === 'ready') {
      if (resync(client)) return send(res, 200, 'application/json; charset=utf-8', '[]');
      reply = current();
    } else if (msg.request.op === 'runAction' && !offered(msg.request.action)) {
      reply = {
        type: 'response',
        id: msg.id,
        ok: false,
        error: `"${msg.request.action}" is not offered by this inspector`,
      };
    } else {
      try {
        const result = backend.handle(msg.request);
        reply = { type: 'response', id: msg.id, ok: true, result };
        if (mutates(msg.request)) broadcast();
      } catch (e) {
        const error = e instanceof InspectorActionError || e instanceof Error ? e.message : String(e);
        reply = { type: 'response', id: msg.id, ok: false, error };
      }
    }
    send(res, 200, 'application/json; charset=utf-8', JSON.stringify([reply]));
  };

  const events = (res: ServerResponse, id: string | undefined): void => {
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'Content-Type': 'text/event-stream; charset=utf-8',
      Connection: 'keep-alive',
    });
    res.write(': connected\n\n');
    // A page that reconnects with the same id replaces its old stream.
    for (const c of clients) if (id !== undefined && c.id === id) clients.delete(c);
    const client: Client = { res, id, stream: new SnapshotStream() };
    clients.add(client);
    const ping = setInterval(() => res.write(': ping\n\n'), KEEPALIVE_MS);
    res.on('close', () => {
      clearInterval(ping);
      clients.delete(client);
    });
  };

  const token = opts.token ?? newAccessToken();
  const timeouts = opts.timeouts ?? CLIENT_TIMEOUTS;
  const server = createServer(timeoutServerOptions(timeouts), (req, res) => {
    dropStalledBody(req, res, timeouts.bodyStallMs);
    const path = (req.url ?? '/').split('?')[0];
    if (opts.fallback && !isInspectorPath(path)) return opts.fallback(req, res);
    // The same guard as the proxy's paths (request-guard.ts): an origin-form target, loopback Host, own Origin, no
    // cross-site request.
    const h = req.headers;
    const refused = refusal({ url: req.url, host: h.host, origin: h.origin, secFetchSite: h['sec-fetch-site'] }, port);
    if (refused) return send(res, refused.status, 'text/plain', `forbidden: ${refused.message}`);
    // Static assets hold no data; the page and every /api/ path need the token.
    const needsToken = !Object.hasOwn(ASSETS, path);
    if (needsToken && !tokenMatches(token, requestToken(req))) return send(res, 403, 'text/plain', NO_TOKEN);
    // A host's own /api/ paths (the proxy's /api/status) answer after the same checks and the token.
    if (opts.fallback && path.startsWith('/api/') && path !== '/api/request' && path !== '/api/events')
      return opts.fallback(req, res);
    if (req.method === 'POST' && path === '/api/request') {
      api(req, res, clientOf(req.url)).catch((e: unknown) => send(res, 500, 'text/plain', String(e)));
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return send(res, 405, 'text/plain', 'method not allowed', { Allow: 'GET, POST' });
    if (path === '/' || path === '/index.html') return page(res);
    if (path === '/api/events') return events(res, clientOf(req.url));
    const asset = ASSETS[path];
    if (!asset) return send(res, 404, 'text/plain', 'not found');
    try {
      send(res, 200, asset[1], readFileSync(join(root, asset[0])));
    } catch {
      send(res, 404, 'text/plain', `missing ${asset[0]} (run npm run build)`);
    }
  });

  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(opts.port ?? 0, LOOPBACK, () => ok());
  });
  port = (server.address() as AddressInfo).port;
  const url = `http://${LOOPBACK}:${port}/`;
  return {
    url,
    pageUrl: urlWithToken(url, token),
    token,
    port,
    broadcast,
    close: () =>
      new Promise<void>((ok) => {
        for (const c of clients) c.res.end();
        clients.clear();
        server.close(() => ok());
        server.closeAllConnections();
      }),
  };
}
