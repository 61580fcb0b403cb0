/**
 * `trimline proxy`: an Anthropic-compatible HTTP proxy on 127.0.0.1 with the inspector on
 * the same port.
 *
 *   POST /v1/messages (any query)  matched to a session, trimmed by the strategy (or not, with
 *                                  `none`), sent upstream; the response relayed as it arrives,
 *                                  its usage recorded
 *   any other path, any method     passed through unchanged (count_tokens, models, batches…)
 *   /, /assets/…, /api/…           the inspector, following the most recently active session; the
 *                                  page and /api/… need the per-launch token (`inspectorUrl` has it)
 *   GET /api/status?session=<id>   a session's status-line facts (`trimline statusline`), JSON; token too
 *
 * The client's auth headers go upstream and nowhere else: the engine sees only the session
 * header, and nothing here logs headers or bodies. Every path answers only to a loopback
 * `Host` and refuses other sites' `Origin`s; the target must be a path (src/host/request-guard.ts).
 * No body larger than the API accepts is held: it streams upstream untouched.
 */
import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { workerOffload } from '../../core/proxy/offload';
import { ProxyEngine, type Forward } from '../../core/proxy/proxy-engine';
import { clientHeaders } from '../../core/proxy/client-kind';
import { SessionFollower, sessionStatus } from '../../core/proxy/session-list';
import { SESSION_HEADER } from '../../core/proxy/session-key';
import { factsOfJson, SseUsageReader, type ResponseFacts } from '../../core/proxy/sse-usage';
import { warmEncoder } from '../../core/tokens';
import type { PipelineConfig } from '../../core/trimming';
import type { ClientTimeouts } from '../client-timeouts';
import { startInspectorServer, type InspectorBackend, type InspectorServer } from '../standalone/server';
import { CacheDiagnostics } from './diagnostics';
import { forward } from './forward';
import { BodyCollector, declaredOver, readCapped } from './request-body';
import { refusal, refusalBody } from '../request-guard';

/** The API's own request limit (reference: "Body over 32 MB: 413"); larger bodies pass through untouched. */
export const MAX_MESSAGES_BODY_BYTES = 32 * 1024 * 1024;
/** The default upstream: the Anthropic API. */
export const DEFAULT_UPSTREAM = 'https://api.anthropic.com';
/** Coalesce inspector pushes: at most one snapshot per this many ms while a session is busy. */
const BROADCAST_MS = 150;

export interface ProxyOptions {
  /** 0 or undefined: a free port. */
  readonly port?: number;
  /** Default: TRIMLINE_UPSTREAM, else https://api.anthropic.com. */
  readonly upstream?: string;
  /** `none` (observe only, the default), `default`, or a strategy spec. */
  readonly strategy?: string;
  readonly config?: PipelineConfig;
  /** Journal sessions here; undefined: not journaled. */
  readonly journalDir?: string;
  /** Package root for the inspector's assets (default: found from this file). */
  readonly root?: string;
  readonly log?: (line: string) => void;
  /** Problems to show even without `log` (journal write errors); default: `log`. */
  readonly warn?: (line: string) => void;
  /** A proxied session changed (a call, its usage, a user action): hosts refresh their views. */
  readonly onChange?: () => void;
  /** Ask the API why calls miss the cache (diagnostics.ts); off: the client's bytes go as sent. */
  readonly cacheDiagnostics?: boolean;
  /** What the user should see once (an upstream refusing diagnostics); default: `log`. */
  readonly notice?: (line: string) => void;
  /** Clock of the calls' timestamps (idle time, TTL verdicts); default Date.now (tests move it). */
  readonly now?: () => number;
  /** The inspector's access token (default: a fresh random one). */
  readonly token?: string;
  /** How long slow clients are waited for (default: client-timeouts.ts). */
  readonly timeouts?: ClientTimeouts;
  /**
   * The worker thread script for big requests' parsing and serialization (default: dist/proxy-worker.js beside
   * this bundle); without one they run on the event loop, in turns of their own.
   */
  readonly workerScript?: string;
}

/** The worker script beside the bundle (dist/proxy-worker.js); undefined when running from sources. */
function defaultWorkerScript(): string | undefined {
  const script = join(__dirname, 'proxy-worker.js');
  return existsSync(script) ? script : undefined;
}

export interface ProxyHandle {
  /** `http://127.0.0.1:PORT`: the base URL for API clients (no token). */
  readonly url: string;
  /** The inspector's address with its access token: what to print and open. */
  readonly inspectorUrl: string;
  readonly token: string;
  readonly port: number;
  readonly upstream: URL;
  readonly engine: ProxyEngine;
  close(): Promise<void>;
}

/** Response facts from either an SSE stream or a JSON body, decided by the first byte. */
class ResponseRecorder {
  private sse?: SseUsageReader;
  private json?: Buffer[];
  push(chunk: Buffer): void {
    if (!this.sse && !this.json) {
      const first = chunk.toString('utf8').trimStart()[0];
      if (first === '{') this.json = [];
      else this.sse = new SseUsageReader();
    }
    if (this.json) this.json.push(chunk);
    else this.sse!.push(chunk);
  }
  facts(): ResponseFacts {
    return this.json ? factsOfJson(Buffer.concat(this.json).toString('utf8')) : (this.sse?.facts ?? {});
  }
}

export async function startProxy(o: ProxyOptions = {}): Promise<ProxyHandle> {
  const upstream = new URL(o.upstream ?? process.env.TRIMLINE_UPSTREAM ?? DEFAULT_UPSTREAM);
  const clock = o.now ?? Date.now;
  // The inspector server exists only after listen; pushes scheduled before that go nowhere.
  const inspector: { server?: InspectorServer } = {};
  let pending: NodeJS.Timeout | undefined;
  const schedule = (): void => {
    o.onChange?.();
    pending ??= setTimeout(() => {
      pending = undefined;
      engine.faults.guard('updating the inspector', undefined, () => inspector.server?.broadcast());
    }, BROADCAST_MS);
  };
  const diagnostics = o.cacheDiagnostics ? new CacheDiagnostics(o.notice ?? o.log ?? (() => undefined)) : undefined;
  const workerScript = o.workerScript ?? defaultWorkerScript();
  const report = (e: unknown): void => engine.faults.report('parsing a big request in the worker thread', e);
  const engine = new ProxyEngine({
    offload: workerScript === undefined ? undefined : workerOffload(workerScript, report),
    strategy: o.strategy ?? 'none',
    config: o.config,
    journalDir: o.journalDir,
    onChange: schedule,
    log: o.log,
    warn: o.warn,
  });
  // Token counts the request path estimated from characters are made exact while idle: one
  // small step per event-loop turn, so requests and relayed streams interleave with it.
  let refining = false;
  let closed = false;
  const refine = (): void => {
    if (refining || closed) return;
    refining = true;
    const step = (): void => {
      if (!closed && engine.refineStep()) setImmediate(step);
      else refining = false;
    };
    setImmediate(step);
  };
  // The tokenizer's tables take ~300 ms to build: now, not on a client's first request.
  // Background steps never end the process: a failure is reported (stderr, the inspector's findings).
  setImmediate(() => engine.faults.guard('building the tokenizer', undefined, warmEncoder));
  // The inspector shows the session the user picked, else the most recently active one.
  const follower = new SessionFollower();
  const backend: InspectorBackend = {
    snapshot: () => follower.current(engine)?.inspector.snapshot(),
    handle: (r) => {
      if (r.op === 'sessions') return follower.list(engine);
      if (r.op === 'follow') {
        const result = follower.follow(engine, r.id);
        schedule();
        return result;
      }
      const st = follower.current(engine);
      if (!st) throw new Error('no proxied session yet: point a client at this proxy first');
      const result = st.inspector.handle(r);
      schedule();
      return result;
    },
    emptyActions: [],
  };

  const messages = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // Observe-only sends the client's bytes: they stream upstream as they arrive, and the call
    // is recorded once the body is in. Once the user pinned or trimmed something in a proxied
    // session (or a journaled session that is not live may come back, or an action waits for a
    // cold cache, or the API is asked why calls missed), requests go through the engine.
    const sessionHeader = req.headers[SESSION_HEADER];
    if (
      engine.strategy === 'none' &&
      !engine.hasOverlays() &&
      !engine.hasDeferred() &&
      (!diagnostics || diagnostics.refused) &&
      !engine.mayRestore({ [SESSION_HEADER]: sessionHeader })
    )
      return observe(req, res);
    const read = await readCapped(req, MAX_MESSAGES_BODY_BYTES);
    if ('over' in read) return forward(req, res, { upstream, head: read.over });
    const raw = read.body;
    const now = clock();
    const f = await engine.handle(raw, { [SESSION_HEADER]: sessionHeader, ...clientHeaders(req.headers) }, now);
    const recorder = new ResponseRecorder();
    const relay = {
      upstream,
      body: f.body,
      identity: true,
      onChunk: (c: Buffer) => engine.faults.guard('reading the response', f.sessionId, () => recorder.push(c)),
      onEnd: (status: number) => {
        if (f.sessionId === undefined || f.callIndex === undefined) return;
        if (status !== 200) return engine.onFailed(f.sessionId, f.callIndex);
        const facts = engine.faults.guard('reading the response', f.sessionId, () => recorder.facts()) ?? {};
        engine.onResponse(f.sessionId, f.callIndex, facts);
      },
    };
    const previous =
      diagnostics && f.sessionId !== undefined && f.callIndex !== undefined
        ? engine.verdicts.previousMessageId(f.sessionId, f.callIndex)
        : undefined;
    if (diagnostics && previous !== undefined) diagnostics.send(req, res, relay, previous);
    else forward(req, res, relay);
    setImmediate(() =>
      engine.faults.guard('recording the call', f.sessionId, () => {
        engine.afterForward(f);
        refine();
      }),
    );
  };

  /** Pipe the client's request upstream untouched, keep a copy, record the call from it. */
  const observe = (req: IncomingMessage, res: ServerResponse): void => {
    const sessionHeader = req.headers[SESSION_HEADER];
    const now = clock();
    // A copy is kept only of a body the API could accept, and let go once one turns out larger.
    const over = declaredOver(req, MAX_MESSAGES_BODY_BYTES);
    let copy: BodyCollector | undefined = over ? undefined : new BodyCollector(req);
    req.on('data', (c: Buffer) => {
      copy?.push(c);
      if (copy && copy.size > MAX_MESSAGES_BODY_BYTES) copy = undefined;
    });
    // The call as recorded: a big body is read off the event loop, and its response may end first.
    let recorded: Promise<Forward | undefined> = Promise.resolve(undefined);
    let sessionId: string | undefined;
    const recorder = new ResponseRecorder();
    req.on('end', () => {
      if (!copy) return;
      const raw = copy.body();
      const headers = { [SESSION_HEADER]: sessionHeader, ...clientHeaders(req.headers) };
      // After this turn's I/O: the bytes are on their way before any of this runs.
      recorded = new Promise<void>((ok) => setImmediate(ok))
        .then(() => engine.handle(raw, headers, now))
        .then((f) =>
          engine.faults.guard('recording the call', f.sessionId, () => {
            sessionId = f.sessionId;
            engine.afterForward(f);
            refine();
            return f;
          }),
        );
    });
    forward(req, res, {
      upstream,
      identity: true,
      onChunk: (c) => engine.faults.guard('reading the response', sessionId, () => recorder.push(c)),
      onEnd: (status) =>
        void recorded.then((f) => {
          if (f?.sessionId === undefined || f.callIndex === undefined) return;
          if (status !== 200) return engine.onFailed(f.sessionId, f.callIndex);
          const facts = engine.faults.guard('reading the response', f.sessionId, () => recorder.facts()) ?? {};
          engine.onResponse(f.sessionId, f.callIndex, facts);
        }),
    });
  };

  const api = (req: IncomingMessage, res: ServerResponse): void => {
    try {
      route(req, res);
    } catch (e) {
      engine.faults.report('handling a request', e);
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      const error = { type: 'api_error', message: 'Trimline proxy: could not handle the request' };
      res.end(JSON.stringify({ type: 'error', error }));
    }
  };

  const route = (req: IncomingMessage, res: ServerResponse): void => {
    // The inspector's own paths are checked by its server; everything else is checked here.
    const h = req.headers;
    const refused = refusal(
      { url: req.url, host: h.host, origin: h.origin, secFetchSite: h['sec-fetch-site'] },
      req.socket.localPort ?? 0,
    );
    if (refused) {
      res.writeHead(refused.status, { 'content-type': 'application/json' });
      res.end(refusalBody(refused));
      return;
    }
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'POST' && path === '/v1/messages') {
      messages(req, res).catch((e: unknown) => {
        // A client that went away mid-body is no failure of the proxy's.
        if (!req.complete) o.log?.(`proxy: ${e instanceof Error ? e.message : String(e)}`);
        else engine.faults.report('handling a request', e);
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            type: 'error',
            error: { type: 'api_error', message: 'Trimline proxy: could not read the request' },
          }),
        );
      });
      return;
    }
    if (req.method === 'GET' && path === '/api/status') return status(req, res);
    forward(req, res, { upstream });
  };

  /** `trimline statusline`: the facts of the session a client names; 404 when it is not proxied here. */
  const status = (req: IncomingMessage, res: ServerResponse): void => {
    const key = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams.get('session') ?? '';
    const facts = key ? sessionStatus(engine, key) : undefined;
    res.writeHead(facts ? 200 : 404, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
    });
    res.end(JSON.stringify(facts ?? { error: key ? `no proxied session ${key}` : 'pass ?session=<id>' }));
  };

  const served = { port: o.port, root: o.root, fallback: api, token: o.token, timeouts: o.timeouts };
  const s = await startInspectorServer(backend, served);
  inspector.server = s;
  return {
    url: s.url.replace(/\/$/, ''),
    inspectorUrl: s.pageUrl,
    token: s.token,
    port: s.port,
    upstream,
    engine,
    close: async () => {
      closed = true;
      if (pending) clearTimeout(pending);
      await s.close();
      engine.close();
    },
  };
}
