/** Replays a shared transcript the way a host does and builds the inspector snapshot. */
import { request as httpRequest } from 'node:http';
import { resolve } from 'node:path';
import { replay, type ContextEngine, type PreparedCall } from '../../../src/core/engine';
import { importTranscript } from '../../../src/core/import';
import { buildSnapshot, CallHistory } from '../../../src/core/inspect';
import type { ImportedSession } from '../../../src/core/session/types';
import type { InspectorBackend } from '../../../src/host/standalone';
import {
  parseHostMessage,
  type HostMessage,
  type InspectorAction,
  type InspectorSnapshot,
  type WebviewRequest,
} from '../../../src/protocol';

export const TRANSCRIPTS = resolve(process.cwd(), 'test/fixtures/transcripts/m-claude');
/** A spread of real sessions with tool use: small, medium with thinking, large, and the largest (703 blocks). */
export const SAMPLES = [
  '343e3472-b9b6-4561-ade0-21d1a4730c11.jsonl',
  '43391f62-680a-4688-9dd8-3637467d6b23.jsonl',
  'abc757d1-3da3-42fb-bb7b-ffa293a4ba29.jsonl',
  '3cfce0ff-0725-47be-a572-f8af8122b71e.jsonl',
];

export interface Replayed {
  imp: ImportedSession;
  engine: ContextEngine;
  history: CallHistory;
  next: PreparedCall;
  now: number;
  epochStart: number;
  snapshot(): InspectorSnapshot;
  /** Re-prepare the next request (after a user action). */
  reprepare(): void;
}

export function replayFile(file: string, strategy = 'default'): Replayed {
  return replayImported(importTranscript(resolve(TRANSCRIPTS, file)), strategy);
}

export function replayImported(imp: ImportedSession, strategy = 'default'): Replayed {
  const it = replay(imp, { strategy });
  let history: CallHistory | undefined;
  let engine: ContextEngine;
  let last = 0;
  for (;;) {
    const r = it.next();
    if (r.done) {
      engine = r.value;
      break;
    }
    history ??= new CallHistory(r.value.engine.session, r.value.prepared.body.model, r.value.engine.tokens);
    history.record(r.value.prepared, r.value.now);
    last = r.value.now;
  }
  const h = history ?? new CallHistory(engine.session, engine.model, engine.tokens);
  const n = engine.session.messages.length;
  const epochStart = engine.builder.epochStart(engine.session, n);
  const now = last + 1000;
  const out: Replayed = {
    imp,
    engine,
    history: h,
    now,
    epochStart,
    next: engine.prepare({ callIndex: h.length, upTo: n, epochStart, now }),
    snapshot: () =>
      buildSnapshot(engine, out.next, {
        sessionId: imp.file,
        title: 'test',
        strategy,
        live: false,
        cachedUpTo: imp.calls.at(-1)?.at ?? 0,
        callHistory: h,
        epochStart,
        now,
      }),
    reprepare: () => {
      out.next = engine.prepare({ callIndex: h.length, upTo: n, epochStart, now });
    },
  };
  return out;
}

/** The content of the tool_result answering `toolUseId` in a request body, as text. */
export function sentToolResult(next: PreparedCall, toolUseId: string): string | undefined {
  for (const m of next.body.messages) {
    if (typeof m.content === 'string') continue;
    for (const b of m.content) {
      if (b.type !== 'tool_result' || b.tool_use_id !== toolUseId) continue;
      return typeof b.content === 'string'
        ? b.content
        : (b.content ?? []).map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
    }
  }
  return undefined;
}

/** A standalone-server backend without a session until a test gives it one; it records the requests it is handed. */
export class RecordingHost implements InspectorBackend {
  session?: InspectorSnapshot;
  readonly received: WebviewRequest[] = [];
  constructor(readonly emptyActions?: readonly InspectorAction[]) {}
  snapshot(): InspectorSnapshot | undefined {
    return this.session;
  }
  handle(req: WebviewRequest): unknown {
    this.received.push(req);
    return undefined;
  }
}

/** An open `/api/events` stream of the standalone server, read as a page reads it. */
export interface EventStream {
  /** Every message, validated with parseHostMessage, with its size on the wire. */
  readonly messages: { msg: HostMessage; bytes: number }[];
  close(): void;
}

/** Listen to the server's event stream (as the page `client` when given), with its token as the page sends it. */
export function listenEvents(
  server: { readonly port: number; readonly token: string },
  client?: string,
): Promise<EventStream> {
  const port = server.port;
  return new Promise((ok, fail) => {
    const messages: { msg: HostMessage; bytes: number }[] = [];
    const path = `/api/events?${client ? `client=${client}&` : ''}token=${server.token}`;
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { Host: `127.0.0.1:${port}` } }, (res) => {
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        buf += c;
        for (let end = buf.indexOf('\n\n'); end >= 0; end = buf.indexOf('\n\n')) {
          const ev = buf.slice(0, end);
          buf = buf.slice(end + 2);
          const msg = ev.startsWith('data: ') ? parseHostMessage(JSON.parse(ev.slice(6))) : undefined;
          if (msg) messages.push({ msg, bytes: Buffer.byteLength(ev) });
        }
      });
      ok({ messages, close: () => req.destroy() });
    });
    req.on('error', fail);
    req.end();
  });
}
