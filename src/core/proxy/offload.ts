/**
 * Where a big request's text-bound work runs (prework.ts): in a worker thread when the host has
 * its script (dist/proxy-worker.js), so the event loop stays free for other clients; else in this
 * thread, each job in an event-loop turn of its own. A worker that fails or exits is not fatal:
 * its jobs and the ones after run in this thread, and the failure is reported once.
 */
import { Worker, type MessagePort } from 'node:worker_threads';
import type { RequestBody } from '../api/wire';
import type { MessageParam } from '../session/types';
import { parseBody, sendBody, type BlockIdentity, type ParseJob, type Parsed, type Sending } from './prework';

/** What a send job gives back (prework.ts Sending, its bytes a Buffer). */
export interface Sent {
  readonly digests: string[];
  readonly bytes: Buffer;
  readonly identities?: BlockIdentity[];
}

export interface Offload {
  parse(job: ParseJob): Promise<Parsed>;
  /** The body's bytes and the digests of `undigested` (messages of it). */
  send(body: RequestBody, undigested: readonly MessageParam[]): Promise<Sent>;
  /** Jobs answered so far by a worker thread and in this thread. */
  readonly ran: { worker: number; here: number };
  close(): void;
}

type Job =
  | { readonly op: 'parse'; readonly job: ParseJob }
  | { readonly op: 'send'; readonly body: RequestBody; readonly undigested: readonly MessageParam[] };

function runJob(j: Job): Parsed | Sending {
  return j.op === 'parse' ? parseBody(j.job) : sendBody(j.body, j.undigested);
}

const sending = (s: Sending): Sent => ({ ...s, bytes: toBuffer(s.bytes) });

const toBuffer = (u: Uint8Array): Buffer => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

/** The next event-loop turn (after pending I/O: other clients' requests run first). */
export const nextTurn = (): Promise<void> => new Promise((ok) => setImmediate(ok));

/** Each job in an event-loop turn of its own, in this thread. */
export function inThreadOffload(): Offload {
  const ran = { worker: 0, here: 0 };
  const run = async <T>(j: Job): Promise<T> => {
    await nextTurn();
    ran.here++;
    return runJob(j) as T;
  };
  return {
    parse: (job) => run<Parsed>({ op: 'parse', job }),
    send: async (body, undigested) => sending(await run<Sending>({ op: 'send', body, undigested })),
    ran,
    close: () => undefined,
  };
}

interface Waiting {
  readonly job: Job;
  readonly ok: (v: unknown) => void;
  readonly fail: (e: unknown) => void;
}

/**
 * A worker idle this long is ended: its heap (garbage of megabyte bodies until its own collector runs) is the
 * process's memory. The next big request starts one again, off the event loop.
 */
export const WORKER_IDLE_MS = 5_000;

/** Jobs in one worker thread (started on the first job, ended when idle, never keeping the process alive). */
export function workerOffload(script: string, report: (e: unknown) => void): Offload {
  const local = inThreadOffload();
  const ran = local.ran;
  let worker: Worker | undefined;
  let broken = false;
  let next = 0;
  const waiting = new Map<number, Waiting>();
  let idle: NodeJS.Timeout | undefined;
  const retire = (): void => {
    idle = undefined;
    if (waiting.size > 0 || !worker) return;
    const w = worker;
    worker = undefined;
    void w.terminate();
  };
  const fallBack = (e: unknown): void => {
    if (broken) return;
    broken = true;
    report(e);
    void worker?.terminate();
    worker = undefined;
    // What the worker had not answered runs here.
    for (const w of waiting.values()) localRun(w.job).then(w.ok, w.fail);
    waiting.clear();
  };
  const localRun = (j: Job): Promise<unknown> =>
    j.op === 'parse' ? local.parse(j.job) : local.send(j.body, j.undigested);
  const start = (): Worker => {
    const w = new Worker(script);
    w.unref();
    w.on('message', (m: { id: number; result?: unknown; error?: string }) => {
      const job = waiting.get(m.id);
      waiting.delete(m.id);
      if (job) ran.worker++;
      if (m.error !== undefined) job?.fail(new Error(m.error));
      else job?.ok(m.result);
      if (waiting.size === 0) (idle = setTimeout(retire, WORKER_IDLE_MS)).unref();
    });
    // A worker ended on purpose (idle, closed) is no longer `worker`: its exit is no failure.
    w.on('error', (e) => w === worker && fallBack(e));
    w.on('exit', (code) => w === worker && fallBack(new Error(`the proxy's worker thread exited (code ${code})`)));
    return w;
  };
  const run = (job: Job): Promise<unknown> => {
    if (broken) return localRun(job);
    clearTimeout(idle);
    return new Promise((ok, fail) => {
      const id = next++;
      waiting.set(id, { job, ok, fail });
      try {
        worker ??= start();
        worker.postMessage({ id, job });
      } catch (e) {
        // A body the structured clone cannot carry, or no worker: this job runs here.
        waiting.delete(id);
        localRun(job).then(ok, fail);
        if (!worker) fallBack(e);
      }
    });
  };
  return {
    parse: (job) => run({ op: 'parse', job }) as Promise<Parsed>,
    send: async (body, undigested) => {
      const r = (await run({ op: 'send', body, undigested })) as Sending | Sent;
      return Buffer.isBuffer(r.bytes) ? (r as Sent) : sending(r);
    },
    ran,
    close: () => {
      broken = true;
      clearTimeout(idle);
      const w = worker;
      worker = undefined;
      void w?.terminate();
      // Requests still waiting for the worker go as the client sent them.
      for (const job of waiting.values()) job.fail(new Error('the proxy is closing'));
      waiting.clear();
    },
  };
}

/** The worker's side: answer each job (the worker script calls this). */
export function serveOffload(port: MessagePort): void {
  port.on('message', (m: { id: number; job: Job }) => {
    let result: ReturnType<typeof runJob>;
    try {
      result = runJob(m.job);
    } catch (e) {
      port.postMessage({ id: m.id, error: e instanceof Error ? e.message : String(e) });
      return;
    }
    // Bytes that own their whole buffer are moved, not copied (a pooled small buffer is copied).
    const bytes = 'bytes' in result ? result.bytes : undefined;
    const owns = bytes !== undefined && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
    const transfer = owns ? [bytes.buffer as ArrayBuffer] : [];
    port.postMessage({ id: m.id, result }, transfer);
  });
}
