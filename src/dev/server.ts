/**
 * A local Anthropic-compatible server for tests and the offline demo.
 *
 *   const server = await startTestServer();
 *   const client = new Anthropic({ apiKey: 'test', baseURL: server.url });
 *
 * Endpoints: POST /v1/messages (SSE or JSON), POST /v1/messages/count_tokens,
 * GET /v1/models[/id]. Every request is checked by the server's own validator
 * (./validate.ts) and rejected with the API's status, error JSON and wording;
 * usage comes from the prompt-cache simulator with the estimator in ./tokens.ts
 * and a real clock (overridable). Responses are scripted turns pushed by the
 * test, or the deterministic demo policy; faults (429/529/500, resets, error
 * events, slow streams) are injected per request. Every request is recorded.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CacheSimulator, type SimRequest } from '../core/cache/simulator';
import { deliver, sendJson, sleep } from './deliver';
import { demoTurn, echoTurn } from './demo-policy';
import { DiagnosticsMemory, diagnosticsAsk, type DiagnosticsAsk } from './diagnostics';
import { errorBody, randomId, seededId } from './errors';
import { modelInfo, modelTable, type ModelSpec } from './models';
import { materialize, verifyThinking, type OutMessage } from './sse';
import { blockTokens, outputTokens } from './tokens';
import type {
  Fault,
  FaultPredicate,
  IncomingCall,
  MessagesBody,
  RecordedRequest,
  RecordedResponse,
  ScriptEntry,
  ScriptedTurn,
} from './types';
import { checkRequest } from './validate';

/** The API's request size limit (docs: "32 MB for standard API endpoints"), answered with 413. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;
/** anthropic-version values the server accepts: the stable one and the one SDK v1.12.0 sends. */
export const KNOWN_API_VERSIONS: readonly string[] = ['2023-01-01', '2023-06-01', '2026-10-21'];

export interface TestServerOptions {
  /** 0 (default) picks a free port. */
  readonly port?: number;
  readonly host?: string;
  /** When set, requests must carry this key (`x-api-key`, or `Authorization: Bearer`). */
  readonly apiKey?: string;
  /** What answers when no scripted turn is queued: the demo policy (default), an echo, or a 500. */
  readonly fallback?: 'demo' | 'echo' | 'fail';
  /** Clock for the cache simulator (default Date.now). */
  readonly now?: () => number;
  /** Seed for ids and chunk boundaries. */
  readonly seed?: number;
  /** Overrides every model's context window (to trigger "prompt is too long" cheaply). */
  readonly contextWindow?: number;
  /** Models beyond the built-in table. */
  readonly models?: readonly ModelSpec[];
  readonly minCacheTokens?: number | ((model: string) => number);
  readonly maxBodyBytes?: number;
  readonly apiVersions?: readonly string[];
  /** The cache diagnostics beta (diagnostics.ts; default true); false: refuse it like an upstream without it. */
  readonly cacheDiagnostics?: boolean;
  /**
   * Tokens of a block in `usage` (default: characters / 3.5, ./tokens.ts). A replay of a recorded session passes
   * the sizes its recorded usage implies, so the server counts what the real API counted.
   */
  readonly tokensOf?: (block: object) => number;
  /**
   * When the cache entries a request used start their TTL again (default: when it arrived, `now`). A replay on a
   * recorded clock passes the recorded end of the response: the recordings read entries up to 5 minutes after it.
   */
  readonly refresh?: () => number;
  /**
   * Called with each valid request's body just before the cache prices it: a replay adds there what its client
   * did in between that the recording does not hold (a request made when the turn ended, from what was sent).
   */
  readonly beforeCache?: (body: object) => void;
}

export interface TestServer {
  readonly url: string;
  readonly port: number;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  readonly cache: CacheSimulator;
  /** Queue assistant turns; each answers one valid /v1/messages request, in order. */
  script(...entries: ScriptEntry[]): void;
  /** Scripted turns not yet used. */
  pending(): number;
  /** Queue faults; each applies to one /v1/messages request, in order. */
  fault(...faults: Fault[]): void;
  /** Decide a fault per request (consulted when the fault queue is empty). */
  faultWhen(predicate: FaultPredicate | undefined): void;
  /** Forget recorded requests, queues and cache entries. */
  reset(): void;
  close(): Promise<void>;
}

export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const models = modelTable(opts.models);
  const cache = new CacheSimulator({ minTokens: opts.minCacheTokens });
  const now = opts.now ?? Date.now;
  const seed = opts.seed ?? 1;
  const maxBytes = opts.maxBodyBytes ?? MAX_BODY_BYTES;
  const versions = new Set(opts.apiVersions ?? KNOWN_API_VERSIONS);
  const requests: RecordedRequest[] = [];
  const diagnostics = new DiagnosticsMemory();
  let queue: ScriptEntry[] = [];
  let faultQueue: Fault[] = [];
  let predicate: FaultPredicate | undefined;
  let seq = 0;

  const reject = (
    rec: RecordedRequest,
    res: ServerResponse,
    rid: string,
    status: number,
    type: string,
    message: string,
  ): void => {
    rec.validation = { ...rec.validation, ok: false, status, errorType: type, message };
    rec.response = { status, requestId: rid, kind: 'error' };
    // The API marks validation failures as not worth retrying.
    sendJson(res, status, rid, errorBody(type, message, rid), { 'x-should-retry': 'false' });
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rid = randomId('req_');
    const path = (req.url ?? '/').split('?')[0];
    const chunks: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of req) {
      bytes += (chunk as Buffer).length;
      if (bytes <= maxBytes) chunks.push(chunk as Buffer);
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (k === 'x-api-key' || k === 'authorization' || v === undefined) continue;
      headers[k] = Array.isArray(v) ? v.join(', ') : v;
    }
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = undefined;
    let parsed = true;
    if (text !== '' && bytes <= maxBytes) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
        parsed = false;
      }
    }
    const rec: RecordedRequest = {
      seq: ++seq,
      method: req.method ?? 'GET',
      path,
      headers,
      body,
      bytes,
      sha256: createHash('sha256').update(Buffer.concat(chunks)).digest('hex'),
      receivedAt: now(),
      validation: { ok: true, status: 200, warnings: [] },
    };
    requests.push(rec);

    if (opts.apiKey !== undefined) {
      const key = req.headers['x-api-key'];
      const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
      const given = typeof key === 'string' ? key : bearer;
      if (given === undefined)
        return reject(rec, res, rid, 401, 'authentication_error', 'x-api-key header is required');
      if (given !== opts.apiKey) return reject(rec, res, rid, 401, 'authentication_error', 'invalid x-api-key');
    }
    if (bytes > maxBytes) {
      return reject(rec, res, rid, 413, 'request_too_large', 'Request exceeds the maximum allowed number of bytes.');
    }
    const route = `${rec.method} ${path}`;
    if (route === 'GET /v1/models') {
      const data = [...models.values()].map(modelInfo);
      rec.response = { status: 200, requestId: rid, kind: 'json' };
      return sendJson(res, 200, rid, {
        data,
        has_more: false,
        first_id: data[0]?.id ?? null,
        last_id: data[data.length - 1]?.id ?? null,
      });
    }
    if (rec.method === 'GET' && path.startsWith('/v1/models/')) {
      const m = models.get(decodeURIComponent(path.slice('/v1/models/'.length)));
      if (!m) return reject(rec, res, rid, 404, 'not_found_error', `model: ${path.slice('/v1/models/'.length)}`);
      rec.response = { status: 200, requestId: rid, kind: 'json' };
      return sendJson(res, 200, rid, modelInfo(m));
    }
    if (route !== 'POST /v1/messages' && route !== 'POST /v1/messages/count_tokens') {
      return reject(rec, res, rid, 404, 'not_found_error', 'Not Found');
    }
    const version = req.headers['anthropic-version'];
    if (version === undefined)
      return reject(rec, res, rid, 400, 'invalid_request_error', 'anthropic-version: header is required');
    if (!versions.has(String(version))) {
      return reject(
        rec,
        res,
        rid,
        400,
        'invalid_request_error',
        `anthropic-version: "${String(version)}" is not a valid version`,
      );
    }
    if (!parsed) {
      return reject(
        rec,
        res,
        rid,
        400,
        'invalid_request_error',
        'There was an error parsing the body of your request: the body is not valid JSON.',
      );
    }
    const countOnly = path === '/v1/messages/count_tokens';
    const fault = countOnly ? undefined : (faultQueue.shift() ?? predicate?.({ seq: rec.seq, path, body }));
    if (fault?.kind === 'stall') {
      let gone = false;
      res.once('close', () => (gone = !res.writableFinished));
      await sleep(fault.ms);
      if (gone) {
        // The client gave up (timeout): nothing is processed, like a request that never reached the model.
        rec.response = { status: 499, requestId: rid, kind: 'error', fault, interrupted: true };
        return;
      }
    }
    if (fault?.kind === 'http') {
      const h: Record<string, string> = {};
      if (fault.retryAfterSec !== undefined) h['retry-after'] = String(fault.retryAfterSec);
      if (fault.retryAfterMs !== undefined) h['retry-after-ms'] = String(fault.retryAfterMs);
      if (fault.shouldRetry !== undefined) h['x-should-retry'] = String(fault.shouldRetry);
      rec.response = { status: fault.status, requestId: rid, kind: 'error', fault };
      return sendJson(res, fault.status, rid, errorBody(fault.errorType, fault.message, rid), h);
    }

    const check = checkRequest(body, {
      endpoint: countOnly ? 'count_tokens' : 'messages',
      models,
      contextWindow: opts.contextWindow,
      verifySignature: verifyThinking,
    });
    if (!check.ok) {
      rec.validation = {
        ok: false,
        status: check.rejection.status,
        errorType: check.rejection.type,
        message: check.rejection.message,
        warnings: check.warnings,
      };
      return reject(rec, res, rid, check.rejection.status, check.rejection.type, check.rejection.message);
    }
    rec.validation = { ok: true, status: 200, warnings: check.warnings };
    const ask = countOnly
      ? ({ asked: false } as const)
      : diagnosticsAsk(check.body, req.headers['anthropic-beta'], opts.cacheDiagnostics ?? true);
    if ('error' in ask) return reject(rec, res, rid, 400, 'invalid_request_error', ask.error);
    if (countOnly) {
      rec.response = { status: 200, requestId: rid, kind: 'json' };
      return sendJson(res, 200, rid, { input_tokens: check.promptTokens });
    }
    return respond(rec, res, rid, check.body, fault, ask);
  }

  async function respond(
    rec: RecordedRequest,
    res: ServerResponse,
    rid: string,
    body: MessagesBody,
    fault: Fault | undefined,
    ask: DiagnosticsAsk,
  ): Promise<void> {
    const entry = queue.shift();
    let turn: ScriptedTurn;
    const call: IncomingCall = { seq: rec.seq, body, headers: rec.headers };
    // A fault that cuts the response short applies even with nothing scripted.
    const cutShort = fault?.kind === 'reset' || fault?.kind === 'sse-error';
    if (entry !== undefined) turn = typeof entry === 'function' ? entry(call) : entry;
    else if (opts.fallback === 'fail' && !cutShort) {
      rec.response = { status: 500, requestId: rid, kind: 'error' };
      return sendJson(res, 500, rid, errorBody('api_error', 'test server: no scripted turn left', rid));
    } else if (opts.fallback === 'echo' || opts.fallback === 'fail') turn = echoTurn(body);
    else turn = demoTurn(body);
    // An injected fault cuts the response short: the scripted turn stays queued for the retry.
    const restore = (): void => {
      if (entry !== undefined) queue.unshift(entry);
    };

    opts.beforeCache?.(body);
    const at = now();
    const usage = cache.step(body as unknown as SimRequest, opts.tokensOf ?? blockTokens, at, opts.refresh?.() ?? at);
    const { content, stopReason } = materialize(turn, seed * 7919 + rec.seq);
    const id = seededId('msg_', seed * 104729 + rec.seq);
    const missReason = 'asked' in ask && ask.asked ? diagnostics.reason(ask.previous, body) : undefined;
    diagnostics.remember(id, body);
    const msg: OutMessage = {
      id,
      ...(missReason !== undefined ? { diagnostics: { cache_miss_reason: missReason } } : {}),
      model: body.model,
      content,
      stopReason,
      usage: { ...usage, output_tokens: turn.output_tokens ?? outputTokens(turn.content) },
    };
    const reported = {
      input_tokens: usage.input_tokens,
      cache_creation_input_tokens: usage.cache_creation_input_tokens,
      cache_read_input_tokens: usage.cache_read_input_tokens,
      output_tokens: msg.usage.output_tokens,
    };
    const base: RecordedResponse = {
      status: 200,
      requestId: rid,
      kind: body.stream ? 'stream' : 'json',
      usage: reported,
      stopReason,
      content,
      fault,
      cache: cache.lastTrace,
      ...(missReason !== undefined ? { cacheMissReason: missReason } : {}),
    };

    const eventSeed = seed ^ (rec.seq * 2654435761);
    return deliver(res, rec, msg, base, { stream: body.stream === true, fault, restore, eventSeed });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      const rid = randomId('req_');
      if (!res.headersSent) sendJson(res, 500, rid, errorBody('api_error', `test server error: ${String(err)}`, rid));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const host = opts.host ?? '127.0.0.1';

  return {
    url: `http://${host}:${port}`,
    port,
    requests,
    cache,
    script: (...entries) => void queue.push(...entries),
    pending: () => queue.length,
    fault: (...f) => void faultQueue.push(...f),
    faultWhen: (p) => {
      predicate = p;
    },
    reset: () => {
      requests.length = 0;
      seq = 0;
      queue = [];
      faultQueue = [];
      predicate = undefined;
      cache.clear();
      diagnostics.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export { faults } from './errors';
export type { Fault, RecordedRequest, ScriptEntry, ScriptedTurn } from './types';
