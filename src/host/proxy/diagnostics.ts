/**
 * `trimline proxy --cache-diagnostics`: ask the API why a call missed the cache (reference,
 * "Cache diagnostics"). Each `POST /v1/messages` goes upstream with the beta header
 * `cache-diagnosis-2026-04-07` merged into the client's `anthropic-beta` and
 * `diagnostics: {previous_message_id}` added to the client's body (the previous response
 * of the same client session, null on its first call); nothing else of the client's bytes
 * changes. The answer comes back in the response (`message_start.message.diagnostics`),
 * which the proxy reads as it relays it.
 *
 * An upstream that refuses the parameter (a 400 invalid_request_error naming
 * `diagnostics`: Bedrock, Vertex, a gateway, an older API) gets the client's own request
 * again at once, and no more diagnostics for the rest of the run; the user is told once.
 */
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import { forward, forwardHeaders, relayResponse, responseHeaders, type ForwardOptions } from './forward';
import { upstreamUrl } from '../request-guard';

export const CACHE_DIAGNOSIS_BETA = 'cache-diagnosis-2026-04-07';
/** A refusal's body is small; more than this is not one. */
const MAX_REFUSAL_BYTES = 64 * 1024;

/** The client's `anthropic-beta` with the diagnostics beta added (once). */
export function withDiagnosticsBeta(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const raw = headers['anthropic-beta'];
  const list = (Array.isArray(raw) ? raw.join(',') : (raw ?? ''))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!list.includes(CACHE_DIAGNOSIS_BETA)) list.push(CACHE_DIAGNOSIS_BETA);
  return { ...headers, 'anthropic-beta': list.join(',') };
}

/**
 * The client's body with `"diagnostics":{"previous_message_id":…}` inserted as its first
 * member: every other byte stays the client's. Undefined when the body is not a JSON object.
 */
export function withDiagnosticsBody(body: Buffer, previousMessageId: string | null): Buffer | undefined {
  let i = 0;
  while (i < body.length && (body[i] === 0x20 || body[i] === 0x0a || body[i] === 0x0d || body[i] === 0x09)) i++;
  if (body[i] !== 0x7b) return undefined;
  let j = i + 1;
  while (j < body.length && (body[j] === 0x20 || body[j] === 0x0a || body[j] === 0x0d || body[j] === 0x09)) j++;
  const value = JSON.stringify({ previous_message_id: previousMessageId });
  const member = `"diagnostics":${value}${body[j] === 0x7d ? '' : ','}`;
  return Buffer.concat([body.subarray(0, i + 1), Buffer.from(member, 'utf8'), body.subarray(i + 1)]);
}

/** Whether an upstream error body is the refusal of the diagnostics parameter (or of its beta). */
export function refusesDiagnostics(status: number, text: string): boolean {
  if (status !== 400) return false;
  try {
    const v = JSON.parse(text) as { error?: { type?: unknown; message?: unknown } };
    const m = typeof v.error?.message === 'string' ? v.error.message : '';
    return v.error?.type === 'invalid_request_error' && (/\bdiagnostics\b/.test(m) || m.includes(CACHE_DIAGNOSIS_BETA));
  } catch {
    return false;
  }
}

export class CacheDiagnostics {
  /** The upstream refused the parameter once: requests go as the client sent them from then on. */
  refused = false;

  constructor(private readonly notice: (line: string) => void) {}

  /**
   * Send `body` (the request the proxy would send) with diagnostics; on a refusal, send
   * `body` itself and stop asking. `o` is what `forward` would get.
   */
  send(
    req: IncomingMessage,
    res: ServerResponse,
    o: ForwardOptions & { body: Buffer },
    previousMessageId: string | null,
  ): void {
    const asked = this.refused ? undefined : withDiagnosticsBody(o.body, previousMessageId);
    if (!asked) return forward(req, res, o);
    const target = upstreamUrl(o.upstream, req.url ?? '');
    // A target that is not a plain path never goes anywhere (forward answers 400, request-guard.ts).
    if (target === undefined) return forward(req, res, o);
    const mod = target.protocol === 'https:' ? https : http;
    const headers = forwardHeaders(withDiagnosticsBeta(req.headers), target, asked, o.identity ?? false);
    const up = mod.request(target, { method: req.method, headers }, (ur) => {
      const status = ur.statusCode ?? 502;
      if (status !== 400) return relayResponse(ur, res, o);
      // A 400 may be the refusal: read it (it is small) before deciding.
      const chunks: Buffer[] = [];
      let size = 0;
      ur.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= MAX_REFUSAL_BYTES) chunks.push(c);
      });
      ur.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (size <= MAX_REFUSAL_BYTES && refusesDiagnostics(status, text)) {
          this.refused = true;
          this.notice(
            `cache diagnostics: ${target.origin} refused the diagnostics parameter; requests go as the client ` +
              `sent them from now on (local verdicts only)`,
          );
          return forward(req, res, o);
        }
        res.writeHead(status, ur.statusMessage, responseHeaders(ur.headers));
        res.end(Buffer.concat(chunks));
        o.onChunk?.(Buffer.concat(chunks));
        o.onEnd?.(status);
      });
      ur.on('error', () => res.destroy());
    });
    up.on('error', () => (res.headersSent ? res.destroy() : forward(req, res, o)));
    res.socket?.setNoDelay(true);
    res.on('close', () => {
      if (!res.writableFinished) up.destroy();
    });
    up.end(asked);
  }
}
