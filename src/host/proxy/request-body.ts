/**
 * Reading a client's request body with a ceiling: the proxy never holds more than the API
 * accepts. A body past the ceiling is not the proxy's to judge: it goes upstream untouched,
 * streamed, and the API answers it (413).
 */
import type { IncomingMessage } from 'node:http';

/** The body in full, or (past the ceiling) what was read of it, with the rest still in the paused stream. */
export type CappedBody = { readonly body: Buffer } | { readonly over: readonly Buffer[] };

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
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (): void => {
      req.off('data', data);
      req.off('end', end);
      req.off('error', fail);
    };
    const data = (c: Buffer): void => {
      chunks.push(c);
      size += c.length;
      if (size <= max) return;
      req.pause();
      stop();
      ok({ over: chunks });
    };
    const end = (): void => {
      stop();
      ok({ body: Buffer.concat(chunks, size) });
    };
    req.on('data', data);
    req.on('end', end);
    req.on('error', fail);
  });
}
