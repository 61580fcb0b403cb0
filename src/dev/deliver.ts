/**
 * Sending what the local server answers: JSON bodies, and a built message either whole or
 * as an SSE stream, cut short where an injected fault says (a reset drops the connection,
 * an `sse-error` fault ends with an error event or status, `slow` spaces the chunks). A cut
 * puts the scripted turn back (`restore`) so the client's retry gets it.
 */
import type { ServerResponse } from 'node:http';
import { errorBody, statusForErrorType } from './errors';
import { encodeEvent, errorEvent, messageJson, streamEvents, type OutMessage } from './sse';
import type { Fault, RecordedRequest, RecordedResponse } from './types';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A JSON response with the API's request id header. */
export function sendJson(
  res: ServerResponse,
  status: number,
  rid: string,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': rid, ...headers });
  res.end(text);
}

/** Send `msg` as the request asked (JSON or a stream); `rec.response` says what the client got. */
export async function deliver(
  res: ServerResponse,
  rec: RecordedRequest,
  msg: OutMessage,
  base: RecordedResponse,
  how: { stream: boolean; fault: Fault | undefined; restore: () => void; eventSeed: number },
): Promise<void> {
  const { fault, restore, eventSeed } = how;
  if (!how.stream) {
    if (fault?.kind === 'reset') {
      restore();
      rec.response = { ...base, kind: 'reset', interrupted: true };
      res.socket?.destroy();
      return;
    }
    if (fault?.kind === 'sse-error') {
      restore();
      const status = statusForErrorType(fault.errorType);
      rec.response = { ...base, status, kind: 'error', interrupted: true };
      return sendJson(res, status, base.requestId, errorBody(fault.errorType, fault.message, base.requestId));
    }
    if (fault?.kind === 'slow') await sleep(fault.delayMs);
    rec.response = base;
    return sendJson(res, 200, base.requestId, messageJson(msg));
  }

  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'request-id': base.requestId,
  });
  res.flushHeaders();
  let clientGone = false;
  let wakeOnClose: (() => void) | undefined;
  res.on('close', () => {
    if (!res.writableFinished) clientGone = true;
    wakeOnClose?.();
  });
  // Resolves when the chunk is flushed, or at once if the client went away (the callback may never come).
  const write = (chunk: string): Promise<void> =>
    new Promise<void>((resolve) => {
      if (clientGone) return resolve();
      wakeOnClose = resolve;
      res.write(chunk, () => resolve());
    });
  const events = streamEvents(msg, eventSeed);
  const delay = fault?.kind === 'slow' ? fault.delayMs : 0;
  for (let i = 0; i <= events.length; i++) {
    if (clientGone) {
      rec.response = { ...base, interrupted: true };
      return;
    }
    if (fault?.kind === 'reset' && i === fault.afterEvents) {
      restore();
      rec.response = { ...base, kind: 'reset', interrupted: true };
      res.socket?.destroy();
      return;
    }
    if (fault?.kind === 'sse-error' && i === fault.afterEvents) {
      restore();
      rec.response = { ...base, interrupted: true };
      res.end(encodeEvent(errorEvent(fault.errorType, fault.message)));
      return;
    }
    if (i === events.length) break;
    await write(encodeEvent(events[i]));
    if (delay > 0 && i < events.length - 1) await sleep(delay);
  }
  rec.response = base;
  res.end();
}
