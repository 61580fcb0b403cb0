/**
 * Reading a client's request body with a ceiling: the proxy never holds more than the API
 * accepts. A body past the ceiling is not the proxy's to judge: it goes upstream untouched,
 * streamed, and the API answers it (413).
 */
import type { IncomingMessage } from 'node:http';

/** The body in full, or (past the ceiling) what was read of it, with the rest still in the paused stream. */
export type CappedBody = { readonly body: Buffer } | { readonly over: readonly Buffer[] };

/** Bodies declared this large or larger are gathered into shared memory, which a worker thread reads without a copy. */
export const SHARED_FROM_BYTES = 256 * 1024;

/**
 * A body's chunks as they arrive. A declared body of at least SHARED_FROM_BYTES is also copied, chunk by chunk,
 * into one SharedArrayBuffer: the whole body is then there at its end without one big copy on the event loop,
 * and the proxy's worker thread (core/proxy/offload.ts) reads it in place.
 */
export class BodyCollector {
  readonly chunks: Buffer[] = [];
  size = 0;
  private readonly into?: Buffer;

  constructor(req: IncomingMessage) {
    const n = Number(req.headers['content-length']);
    if (Number.isInteger(n) && n >= SHARED_FROM_BYTES) this.into = Buffer.from(new SharedArrayBuffer(n));
  }

  push(c: Buffer): void {
    if (this.into && this.size + c.length <= this.into.length) c.copy(this.into, this.size);
    this.chunks.push(c);
    this.size += c.length;
  }

  /** The whole body (a client that sent other than it declared gets its chunks joined). */
  body(): Buffer {
    return this.into?.length === this.size ? this.into : Buffer.concat(this.chunks, this.size);
  }
}

/** Whether the client declared (`content-length`) a body larger than `max` bytes. */
export function declaredOver(req: IncomingMessage, max: number): boolean {
  const n = Number(req.headers['content-length']);
  return Number.isFinite(n) && n > max;
}

/**
 * The request body when it is at most `max` bytes. A larger one (declared, or found so while
 * reading) resolves `over` with the chunks read so far and the stream paused, so that the
 * caller can send them and pipe the rest; nothing past `max` is read here.
 */
export function readCapped(req: IncomingMessage, max: number): Promise<CappedBody> {
  if (declaredOver(req, max)) return Promise.resolve({ over: [] });
  return new Promise((ok, fail) => {
    const body = new BodyCollector(req);
    const stop = (): void => {
      req.off('data', data);
      req.off('end', end);
      req.off('error', fail);
    };
    const data = (c: Buffer): void => {
      body.push(c);
      if (body.size <= max) return;
      req.pause();
      stop();
      ok({ over: body.chunks });
    };
    const end = (): void => {
      stop();
      ok({ body: body.body() });
    };
    req.on('data', data);
    req.on('end', end);
    req.on('error', fail);
  });
}
